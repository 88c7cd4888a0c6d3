"""Shared test setup: quiet structured logs on stderr only, reset before every test so a
test that reconfigures logging (the CLI, the eval runner) cannot hide events from another."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.llm.gemini import GeminiBackend
from pipeline.config import CONFIG_ENV, KEYS
from pipeline.logs import configure_logging
from tests.fake_gemini import FakeGemini
from tests.fake_stages import Harness
from tests.gemini_helpers import KEY, POLICY, FakeClock

configure_logging("warning", stream=sys.stderr)

# Checked catalogs are cached for this session, not in the user's cache directory
# (agents.catalog.cache); the CLI subprocesses tests start inherit the setting.
_CATALOG_CACHE = tempfile.mkdtemp(prefix="advise-test-cache-")
os.environ.setdefault("ADVISE_CATALOG_CACHE_DIR", _CATALOG_CACHE)
atexit.register(shutil.rmtree, _CATALOG_CACHE, True)

# The workspace settings of whoever runs the tests (ADVISE_STATE_DIR, ADVISE_CONFIG, ...,
# pipeline.config) must not reach the commands the tests run.
for _name in [CONFIG_ENV, *(key.env for key in KEYS.values())]:
    os.environ.pop(_name, None)


@pytest.fixture(autouse=True)
def _reset_logging() -> Iterator[None]:
    configure_logging("warning", stream=sys.stderr)
    yield


@pytest.fixture
def h(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Harness:
    """A state/out directory harness for the engine tests, with the fake stages' side log."""
    harness = Harness(tmp_path)
    monkeypatch.setenv("FAKE_STAGE_LOG", str(harness.side_log))
    return harness


# Gemini backend tests (tests/test_gemini_*.py): the local fake server, a clock that only
# moves when the backend sleeps, and a backend wired to both with the test retry policy.


@pytest.fixture
def fake() -> Iterator[FakeGemini]:
    with FakeGemini() as server:
        yield server


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def backend(fake: FakeGemini, clock: FakeClock) -> Iterator[GeminiBackend]:
    with GeminiBackend(
        KEY, base_url=fake.base_url, retry=POLICY, sleep=clock.sleep, clock=clock.now
    ) as b:
        yield b

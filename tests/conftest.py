"""Shared test setup: quiet structured logs on stderr only, reset before every test so a
test that reconfigures logging (the CLI, the eval runner) cannot hide events from another."""

from __future__ import annotations

import atexit
import json
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
from tests.shared_helpers import (
    DemoBatch,
    changed_files,
    overload_request,
    run_demo_batch,
    run_plans,
    tree_digests,
)

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


# The demo batch uninterrupted: the reference the crash and Ray tests compare their runs with
# (tests/test_crash_real_stages.py, tests/test_ray_engine.py), run once per session.


@pytest.fixture(scope="session")
def demo_batch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoBatch]:
    batch = run_demo_batch(tmp_path_factory.mktemp("demo-batch"))
    configure_logging("warning", stream=sys.stderr)
    before = tree_digests(batch.root)
    yield batch
    changed = changed_files(before, batch.root)
    assert not changed, f"a test changed the shared demo batch {batch.root}: {changed[:5]}"


@pytest.fixture(scope="session")
def awaiting_approval(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A workspace where ``advise run req.json`` (the demo request overload-high-gpa, real
    stages, bundled catalog) stopped awaiting the LOAD-OVERLOAD approval: ``req.json``,
    ``state/``, ``logs/``. Read only: a test that decides or resumes works in a copy
    (``tests.shared_helpers.copy_workspace``)."""
    from pipeline.cli import main

    root = tmp_path_factory.mktemp("awaiting-approval")
    (root / "req.json").write_text(json.dumps(overload_request()), encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        try:
            code = main(["run", "req.json"])
        finally:
            configure_logging("warning", stream=sys.stderr)
    assert code == 4, "the overload request no longer stops for an approval"
    before = tree_digests(root)
    yield root
    changed = changed_files(before, root)
    assert not changed, f"a test changed the shared workspace {root}: {changed[:5]}"


@pytest.fixture(scope="session")
def plans(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Finished real plans of two catalogs in one workspace (``tests.shared_helpers.PLANS``),
    for the export tests. Read only: a test that exports into ``out/`` works in a copy."""
    root = tmp_path_factory.mktemp("plans")
    try:
        run_plans(root)
    finally:
        configure_logging("warning", stream=sys.stderr)
    before = tree_digests(root)
    yield root
    changed = changed_files(before, root)
    assert not changed, f"a test changed the shared workspace {root}: {changed[:5]}"

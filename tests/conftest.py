"""Shared test setup: quiet structured logs on stderr only, reset before every test so a
test that reconfigures logging (the CLI, the eval runner) cannot hide events from another."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.logs import configure_logging
from tests.fake_stages import Harness

configure_logging("warning", stream=sys.stderr)


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

"""Shared test setup: quiet structured logs on stderr only, reset before every test so a
test that reconfigures logging (the CLI, the eval runner) cannot hide events from another."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from pipeline.logs import configure_logging

configure_logging("warning", stream=sys.stderr)


@pytest.fixture(autouse=True)
def _reset_logging() -> Iterator[None]:
    configure_logging("warning", stream=sys.stderr)
    yield

"""Shared test setup: quiet structured logs on stderr only."""

from __future__ import annotations

import sys

from pipeline.logs import configure_logging

configure_logging("warning", stream=sys.stderr)

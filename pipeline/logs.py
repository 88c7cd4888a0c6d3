"""structlog configuration: JSON lines to a file per run or batch, a readable console on
stderr. Secrets are redacted before any renderer sees an event."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any, TextIO

import structlog

_LEVELS = {"debug": 10, "info": 20, "warning": 30, "error": 40}


def configure_logging(
    console_level: str = "warning", stream: TextIO | None = None, json_path: Path | None = None
) -> None:
    """Console events at ``console_level`` and above go to stderr, readable."""
    level = _LEVELS[console_level]
    processors: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.dev.ConsoleRenderer(colors=False),
    ]
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=stream or sys.stderr),
        cache_logger_on_first_use=False,
    )
    logging.getLogger().setLevel(logging.WARNING)
    del json_path  # the JSON-lines file sink is added with the runner

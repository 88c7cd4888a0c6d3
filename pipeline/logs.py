"""structlog configuration: JSON lines to a file per run or batch, a readable console on
stderr (control characters shown as escapes, ``pipeline.terminal``). Secrets are redacted
before any renderer sees an event.

Events go through the standard library's logging so that one event can reach two sinks
with different levels and renderers (console: warnings by default, ``-v`` for info; file:
info and above, one JSON object per line), and so that third-party log records (the
Gemini SDK's HTTP client) are redacted and written the same way.

The console renders exceptions as plain text (as the file does): structlog's Rich
tracebacks would load Rich into every process at start-up (see ``pipeline.startup``).
"""

from __future__ import annotations

import functools
import io
import logging
import os
import re
import sys
from collections.abc import MutableMapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import structlog

from agents.files import ensure_dir, open_append
from pipeline.terminal import printable

_LEVELS = {"debug": 10, "info": 20, "warning": 30, "error": 40}
REDACTED = "[REDACTED]"
# Keys whose values are secrets: key, api_key, x-goog-api-key, token, access_token,
# authorization, password, secret ... but not counts such as "tokens" or "input_tokens".
_SECRET_KEY = re.compile(r"(^|_)(api_?key|key|token|secret|password|authorization)$", re.I)
_SECRET_ENV = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
_MIN_SECRET_LEN = 8  # shorter env values would mask ordinary words

_handlers: list[logging.Handler] = []


def _env_secrets() -> list[str]:
    values = (os.environ.get(name, "") for name in _SECRET_ENV)
    return [v for v in values if len(v) >= _MIN_SECRET_LEN]


def _scrub(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, dict):
        return {k: REDACTED if _is_secret_key(k) else _scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_scrub(v, secrets) for v in value)
    return value


def _is_secret_key(key: object) -> bool:
    return isinstance(key, str) and _secret_name(key)


@functools.lru_cache(maxsize=4096)
def _secret_name(key: str) -> bool:
    # Events use a few dozen keys: each is matched once, not at every event.
    return bool(_SECRET_KEY.search(key.replace("-", "_")))


_PLAIN = (int, float, bool, type(None))  # nothing to scrub in these


def redact(
    logger: Any, method_name: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """Mask values of secret-looking keys and any occurrence of the API key's value."""
    secrets = _env_secrets()
    for key, value in list(event_dict.items()):
        if key.startswith("_"):
            continue  # structlog's own bookkeeping (the stdlib record)
        if _is_secret_key(key):
            event_dict[key] = REDACTED
        elif isinstance(value, str):
            if secrets:
                event_dict[key] = _scrub(value, secrets)
        elif not isinstance(value, _PLAIN):
            event_dict[key] = _scrub(value, secrets)
    return event_dict


class SafeFileHandler(logging.FileHandler):
    """Appends to a log file opened with ``O_NOFOLLOW``: a symbolic link planted at the
    log's name is refused (``UnsafePathError``), never written through."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, mode="a", encoding="utf-8", delay=True)
        self._failed = False
        self.stream = self._open()

    def _open(self) -> io.TextIOWrapper:
        return io.TextIOWrapper(
            io.FileIO(open_append(Path(self.baseFilename)), "a"), encoding="utf-8"
        )

    def handleError(self, record: logging.LogRecord) -> None:
        """A log that cannot be written (disk full) is said once on stderr, not as a
        traceback per event; the run goes on (checkpoints are its record)."""
        if not self._failed:
            self._failed = True
            exc = sys.exc_info()[1]
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            print(f"warning: cannot write the log {self.baseFilename!r}: {reason}; "
                  "later events go to the console only", file=sys.stderr)  # fmt: skip

    def emit(self, record: logging.LogRecord) -> None:
        if not self._failed:
            super().emit(record)


class _ConsoleFormatter(structlog.stdlib.ProcessorFormatter):
    """The readable console line, with no control character that could drive the terminal
    (an event can quote a student's name; ``pipeline.terminal``)."""

    def format(self, record: logging.LogRecord) -> str:
        return printable(super().format(record))


def log_file(log_dir: Path, kind: str, label: str | None = None) -> Path:
    """``<log_dir>/<kind>[-<label>]-<UTC timestamp>-<pid>.jsonl`` (directory created)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    name = "-".join(p for p in (kind, label, stamp, str(os.getpid())) if p)
    ensure_dir(log_dir)
    return log_dir / f"{name}.jsonl"


def configure_logging(
    console_level: str = "warning",
    stream: TextIO | None = None,
    json_path: Path | None = None,
    file_level: str = "info",
) -> None:
    """Console events at ``console_level`` and above go to ``stream`` (stderr), readable;
    with ``json_path`` events at ``file_level`` and above are appended there as JSON lines.
    Calling it again replaces the previous configuration."""
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.format_exc_info,
        redact,
    ]
    console = logging.StreamHandler(stream or sys.stderr)
    console.setLevel(_LEVELS[console_level])
    console.setFormatter(
        _ConsoleFormatter(
            processor=structlog.dev.ConsoleRenderer(
                colors=False, exception_formatter=structlog.dev.plain_traceback
            ),
            foreign_pre_chain=shared,
        )
    )
    handlers: list[logging.Handler] = [console]
    if json_path is not None:
        ensure_dir(json_path.parent)
        file_handler = SafeFileHandler(json_path)
        file_handler.setLevel(_LEVELS[file_level])
        file_handler.setFormatter(
            structlog.stdlib.ProcessorFormatter(
                processor=structlog.processors.JSONRenderer(sort_keys=True),
                foreign_pre_chain=shared,
            )
        )
        handlers.append(file_handler)
    level = min(h.level for h in handlers)
    # Both renderers take the event dict only: a record's caller, thread and process are
    # never shown, so the stdlib does not collect them (its documented optimizations).
    logging._srcfile = None  # type: ignore[attr-defined]
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False

    root = logging.getLogger()
    for old in _handlers:
        root.removeHandler(old)
        old.close()
    _handlers[:] = handlers
    for h in handlers:
        root.addHandler(h)
    root.setLevel(level)
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.stdlib.LoggerFactory(),
        cache_logger_on_first_use=False,
    )

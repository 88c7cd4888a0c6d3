"""A batch's progress on stderr: a rich bar when stderr is a terminal; otherwise (a CI log,
a pipe) a ``batch.progress`` event and one short line every few seconds:

    progress: 40/76 (done 35, failed 2, invalid 3), 3.1 requests/s, ETA 0:12

``awaiting approval N`` is added to the counts when N is not 0; without a known total
(stdin, ``resume --all``) the count has no ``/total`` and there is no ETA. The counts are
read by the bar's refresh thread and the line timer while the batch adds to them.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol, get_args

import structlog
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from pipeline.results import JobStatus
from pipeline.terminal import raw

log = structlog.get_logger(__name__)

ProgressMode = Literal["off", "bar", "lines"]
"""How a batch reports progress on stderr: not at all; a rich bar (stderr is a terminal);
or a ``batch.progress`` event and a line every ``RunOptions.progress_every_s`` seconds."""

Bucket = Literal["done", "failed", "invalid", "awaiting_approval"]
# What each job status counts as. Every status is in one bucket, so the buckets add up to
# the requests processed; an interrupted request counts as failed.
BUCKETS: Final[dict[JobStatus, Bucket]] = {
    "done": "done",
    "rerun_stale": "done",
    "skipped": "done",
    "degraded": "done",
    "awaiting_approval": "awaiting_approval",
    "failed": "failed",
    "locked": "failed",
    "stale": "failed",
    "interrupted": "failed",
    "catalog_missing": "failed",
    "unwritable": "failed",
    "invalid": "invalid",
}


@dataclass(frozen=True)
class ProgressSnapshot:
    """A batch's counts at one moment, and the rate and ETA they give."""

    total: int | None  # requests in the input; None when unknown (stdin, resume --all)
    elapsed_s: float
    done: int = 0
    failed: int = 0
    invalid: int = 0
    awaiting_approval: int = 0

    @property
    def processed(self) -> int:
        return self.done + self.failed + self.invalid + self.awaiting_approval

    @property
    def rate(self) -> float:
        """Requests per second since the batch started."""
        return self.processed / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def eta_s(self) -> float | None:
        """Seconds left at the rate so far; None without a total or before any request."""
        if self.total is None or not self.rate:
            return None
        return max(self.total - self.processed, 0) / self.rate

    def counts(self) -> str:
        text = f"done {self.done}, failed {self.failed}, invalid {self.invalid}"
        if self.awaiting_approval:
            text += f", awaiting approval {self.awaiting_approval}"
        return text

    def speed(self) -> str:
        eta = self.eta_s
        return f"{self.rate:.1f} requests/s" + (f", ETA {hms(eta)}" if eta is not None else "")

    def line(self) -> str:
        """The line printed on a stderr that is not a terminal (see the module docstring)."""
        of = f"/{self.total}" if self.total is not None else ""
        return f"progress: {self.processed}{of} ({self.counts()}), {self.speed()}"

    def fields(self) -> dict[str, Any]:
        """The ``batch.progress`` event's fields."""
        eta = self.eta_s
        return {
            "processed": self.processed,
            "total": self.total,
            "done": self.done,
            "failed": self.failed,
            "invalid": self.invalid,
            "awaiting_approval": self.awaiting_approval,
            "rate": round(self.rate, 2),
            "eta_s": round(eta, 1) if eta is not None else None,
        }


def hms(seconds: float) -> str:
    """``0:12``, ``12:05``, ``1:02:03``."""
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class ProgressTally:
    """Requests processed so far, by bucket (thread-safe)."""

    def __init__(self, total: int | None, clock: Callable[[], float] = time.monotonic) -> None:
        self.total = total
        self.clock = clock
        self._started = clock()
        self._counts: dict[Bucket, int] = dict.fromkeys(get_args(Bucket), 0)
        self._lock = threading.Lock()

    def add(self, status: JobStatus) -> None:
        with self._lock:
            self._counts[BUCKETS[status]] += 1

    def snapshot(self) -> ProgressSnapshot:
        with self._lock:
            counts = dict(self._counts)
        return ProgressSnapshot(self.total, self.clock() - self._started, **counts)


class Meter(Protocol):
    def advance(self, status: JobStatus) -> None: ...

    def close(self) -> None: ...


class _TallyColumn(ProgressColumn):
    def __init__(self, tally: ProgressTally) -> None:
        super().__init__()
        self._tally = tally

    def render(self, task: Task) -> Text:
        snap = self._tally.snapshot()
        return Text(f"{snap.counts()} | {snap.speed()}")


class _Bar:
    """``requests ━━━━━━━━╸━━━━━━ 40/76 0:00:13 done 35, failed 2, invalid 3 | 3.1 requests/s,
    ETA 0:12`` (the time elapsed after the count), erased when the batch ends (the summary
    table follows)."""

    def __init__(self, tally: ProgressTally) -> None:
        self._tally = tally
        self._progress = Progress(
            TextColumn("requests"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            _TallyColumn(tally),
            console=Console(file=raw(sys.stderr)),  # its escapes are the bar's own
            transient=True,
            get_time=tally.clock,
        )
        self._task = self._progress.add_task("requests", total=tally.total)
        self._progress.start()

    def advance(self, status: JobStatus) -> None:
        self._tally.add(status)
        self._progress.advance(self._task)

    def close(self) -> None:
        self._progress.stop()


class _Lines:
    """Every ``every_s`` seconds a ``batch.progress`` event and, with ``echo``, its line on
    stderr. A timer thread writes them, so a long request does not silence the log."""

    def __init__(self, tally: ProgressTally, every_s: float, *, echo: bool) -> None:
        self._tally = tally
        self._every_s = every_s
        self._echo = echo
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._run, name="batch-progress", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._closed.wait(self._every_s):
            self.emit()

    def emit(self) -> None:
        snap = self._tally.snapshot()
        log.info("batch.progress", **snap.fields())
        if self._echo:
            with contextlib.suppress(OSError, ValueError):  # stderr closed: no line, no crash
                print(snap.line(), file=sys.stderr, flush=True)

    def advance(self, status: JobStatus) -> None:
        self._tally.add(status)

    def close(self) -> None:
        self._closed.set()
        self._thread.join()


def start_progress(
    mode: bool | ProgressMode,
    total: int | None,
    *,
    every_s: float = 10.0,
    echo: bool = True,
    clock: Callable[[], float] = time.monotonic,
) -> Meter | None:
    """The progress display ``mode`` names (``True``: ``"bar"``, ``False``: ``"off"``),
    started; None for ``"off"``. ``echo`` prints the lines as well as logging them."""
    mode = ("bar" if mode else "off") if isinstance(mode, bool) else mode
    tally = ProgressTally(total, clock)
    if mode == "bar":
        return _Bar(tally)
    if mode == "lines":
        return _Lines(tally, every_s, echo=echo)
    return None

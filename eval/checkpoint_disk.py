"""What checkpoints cost the disk, for ``eval.bench_pipeline``.

``pipeline.store`` makes a checkpoint durable with ``os.fsync`` / ``os.fdatasync`` and
``os.replace`` (a whole file: temp file, fsync, rename, directory fsync; a journal line:
append, fdatasync), in a background writer thread or in the caller's, so neither the
writer thread's wall time nor the time a request waits is the disk's cost: the first
includes serializing and waiting for the interpreter lock, the second hides what overlaps
the next stage. ``DiskCalls`` times the calls themselves instead: every ``os.fsync``,
``os.fdatasync`` and ``os.replace`` made in this process while it is installed, those on a
file or directory under the state directory (the file behind the descriptor, the rename's
target) apart from the rest (outputs, the batch summary). A call's wall time still
includes getting the interpreter lock back after it while another thread computes, so the
figure is an upper bound on the disk's time.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pipeline.results import BatchReport

CALLS = ("fsync", "fdatasync", "replace")
"""The ``os`` functions timed (those the platform has)."""


class DiskCalls:
    """Wall time and number of ``CALLS`` while ``installed``, by function, for files under
    ``root`` (``checkpoint``) and every other (``other``)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.ms = {"checkpoint": 0.0, "other": 0.0}
        self.calls: dict[str, dict[str, int]] = {
            kind: dict.fromkeys(CALLS, 0) for kind in ("checkpoint", "other")
        }
        self._lock = threading.Lock()  # the writer thread and the caller's both count

    def _kind(self, path: str | None) -> str:
        if path is None:
            return "other"
        p = Path(path)
        return "checkpoint" if p == self.root or self.root in p.parents else "other"

    def _timed(self, name: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            kind = self._kind(_target(name, args))
            started = time.perf_counter_ns()
            try:
                return call(*args, **kwargs)
            finally:
                ms = (time.perf_counter_ns() - started) / 1e6
                with self._lock:
                    self.ms[kind] += ms
                    self.calls[kind][name] += 1

        return timed

    @contextmanager
    def installed(self) -> Iterator[DiskCalls]:
        """Time the calls made inside (this process only); the originals restored after."""
        saved = {name: getattr(os, name) for name in CALLS if hasattr(os, name)}
        for name, call in saved.items():
            setattr(os, name, self._timed(name, call))
        try:
            yield self
        finally:
            for name, call in saved.items():
                setattr(os, name, call)


def _target(name: str, args: tuple[Any, ...]) -> str | None:
    """The file a call works on: a rename's target, else the file behind the descriptor."""
    if name == "replace":
        return os.path.realpath(os.fspath(args[1])) if len(args) > 1 else None
    if args and isinstance(args[0], int):
        try:
            return os.readlink(f"/proc/self/fd/{args[0]}")
        except OSError:
            return None
    return None


def disk_figures(
    disk: DiskCalls, report: BatchReport, requests: int, request_ms: float
) -> dict[str, Any]:
    """What the 1-worker run's checkpoints cost the disk (see the module docstring)."""
    calls = disk.calls["checkpoint"]
    if not sum(calls.values()) and report.checkpoint_bytes:
        raise SystemExit(
            f"checkpoints were written under {str(disk.root)!r} but no {', '.join(CALLS)} "
            "call was made there: pipeline.store makes them durable some other way now; "
            "update eval.checkpoint_disk.CALLS"
        )
    in_run = disk.ms["checkpoint"]
    return {
        "measures": "wall time inside os.fsync, os.fdatasync and os.replace calls on files "
        "under the state directory, 1-worker run, whichever thread made them (an upper "
        "bound on the disk's time: it includes getting the interpreter lock back)",
        "calls_per_request": {k: round(v / requests, 2) for k, v in calls.items()},
        "ms_per_request": round(in_run / requests, 2),
        "share": round(in_run / request_ms, 4),
        "other_ms_per_request": round(disk.ms["other"] / requests, 2),
    }

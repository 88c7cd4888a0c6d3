"""What every benchmark's JSON line says about its own run, so a figure quoted from it can
name the command, the code and the load it was measured under.

``RunInfo.start()`` is called first thing in a benchmark's ``main`` and ``finish()`` last:
``command`` (``python -m <module> <arguments>``), ``commit`` (``git rev-parse --short
HEAD``; None outside a git checkout), ``dirty`` (tracked files changed since that commit;
None outside a checkout), ``cores`` and ``load_avg_start`` / ``load_avg_end`` (the 1, 5
and 15-minute load averages, ``os.getloadavg``; None where the platform has none).

``parallel_ceiling()`` says how much two processes gain over one on this machine at this
moment, with nothing of the project in them: a speed-up of several workers is read against
it (two virtual cores that are one physical core's two threads, or a host that lends out
its cores, give far less than 2).
"""

from __future__ import annotations

import os
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def _git(*args: str, repo: Path = REPO) -> str | None:
    """``git args`` run in ``repo``: its output, None if git or the checkout is missing."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=repo, capture_output=True, text=True, check=False, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_commit(repo: Path = REPO) -> str | None:
    """The checkout's commit, abbreviated; None when ``repo`` is not a git checkout."""
    return _git("rev-parse", "--short", "HEAD", repo=repo) or None


def git_dirty(repo: Path = REPO) -> bool | None:
    """Whether tracked files differ from the commit; None when not a git checkout."""
    out = _git("status", "--porcelain", "--untracked-files=no", repo=repo)
    return None if out is None else bool(out)


def load_average() -> list[float] | None:
    """The 1, 5 and 15-minute load averages, rounded; None where there are none."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


# Pure-Python work of about half a second: no I/O, no allocation to speak of.
_SPIN = "s = 0\nfor i in range(6_000_000):\n    s += i * i\n"


def _spin(copies: int) -> float:
    """Wall seconds for ``copies`` fresh interpreters running ``_SPIN`` at once."""
    started = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-S", "-c", _SPIN]) for _ in range(copies)]
    for proc in procs:
        proc.wait()
    return time.perf_counter() - started


def parallel_ceiling(rounds: int = 3) -> dict[str, Any]:
    """The most two processes can gain over one here and now: one spin alone, then two at
    once, ``rounds`` times alternating; ``speedup`` is the median of ``2 * one / two``
    (2.0 on two free cores), with each round's figures."""
    pairs = [(_spin(1), _spin(2)) for _ in range(rounds)]
    ratios = [2 * one / two for one, two in pairs]
    return {
        "speedup": round(statistics.median(ratios), 2),
        "rounds": [{"one_s": round(a, 3), "two_s": round(b, 3)} for a, b in pairs],
        "measures": "two interpreters running the same pure-Python loop at once against one "
        "alone: 2 * t(one) / t(two at once), median of the rounds",
    }


@dataclass(frozen=True)
class RunInfo:
    """A benchmark run's command, code and load at its start."""

    command: str
    commit: str | None
    dirty: bool | None
    load_avg_start: list[float] | None

    @classmethod
    def start(cls, module: str, argv: Sequence[str]) -> RunInfo:
        return cls(
            command=shlex.join(["python", "-m", module, *argv]),
            commit=git_commit(),
            dirty=git_dirty(),
            load_avg_start=load_average(),
        )

    def finish(self) -> dict[str, Any]:
        """The fields for the benchmark's JSON line, the load average read now."""
        return {
            "command": self.command,
            "commit": self.commit,
            "dirty": self.dirty,
            "cores": os.cpu_count(),
            "load_avg_start": self.load_avg_start,
            "load_avg_end": load_average(),
        }

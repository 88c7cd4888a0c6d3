"""The memory of a process tree, from Linux's /proc (no psutil): a batch, its workers
and, with the Ray engine, Ray's own processes (GCS, raylet, agents: children of the
driver that started the local instance; workers are the raylet's children).

RSS counts a page shared by several processes in each of them; PSS divides it among
them, so the sum of PSS is the tree's true footprint and the sum of RSS an upper bound.
The process pool's ``multiprocessing`` resource tracker (a bare interpreter the pool
starts beside its workers) is counted in the tree and reported apart, so the batch
itself - parent and workers - can be read without it.

Two samplers: ``TreeSampler`` (every second or so: the whole tree's RSS and PSS, from
``smaps_rollup``, which is slow to read) and ``SumSampler``, a thread that reads the RSS of
the batch's own processes together every 10 ms and keeps the largest *sum*: the memory
the batch held at one moment. Adding each process's own peak instead (``ru_maxrss``) adds
peaks reached at different moments, and overstates it.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

_PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def _tree(root: int) -> list[int]:
    """``root`` and every process below it (Ray's are children of the driver)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except (OSError, ValueError):
            continue  # not a process, or it just exited
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def _memory_kb(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of a process in kB from /proc/<pid>/smaps_rollup; (0, 0) if it is gone."""
    rss = pss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as f:
            for line in f:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1])
    except OSError:
        pass
    return rss, pss


def _children(pid: int) -> list[int] | None:
    """The children of ``pid``, from ``/proc/<pid>/task/<tid>/children`` (no walk over all
    of /proc); None when the kernel does not provide those files."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []  # gone
    out: list[int] = []
    seen = False
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                out += [int(x) for x in f.read().split()]
            seen = True
        except FileNotFoundError:
            continue  # the thread exited, or no such file on this kernel
        except OSError:
            continue
    return out if seen or not tids else None


def tree_pids(root: int) -> list[int]:
    """``root`` and every process below it, cheaply where the kernel allows."""
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        kids = _children(pid)
        if kids is None:
            return _tree(root)
        out.append(pid)
        todo.extend(kids)
    return out


def rss_kb(pid: int) -> int:
    """A process's resident set size in kB - ``VmRSS``, read from ``/proc/<pid>/statm``
    (the same counters in one short line); 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE_KB
    except (OSError, ValueError, IndexError):
        return 0


def _is_helper(pid: int) -> bool:
    """Whether ``pid`` is multiprocessing's resource tracker (not a batch process)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"resource_tracker" in f.read()
    except OSError:
        return False


class TreeSampler:
    """Samples the memory of a whole process tree (the resource tracker too; RSS and PSS)
    every ``every_s`` seconds until it exits."""

    def __init__(self, proc: subprocess.Popen[str], every_s: float = 1.0) -> None:
        self.samples: list[tuple[float, int, int, int]] = []  # (t, processes, rss kB, pss kB)
        started = time.perf_counter()
        while proc.poll() is None:
            pids = tree_pids(proc.pid)
            sizes = [_memory_kb(pid) for pid in pids]
            rss, pss = sum(r for r, _ in sizes), sum(p for _, p in sizes)
            self.samples.append((time.perf_counter() - started, len(pids), rss, pss))
            time.sleep(every_s)

    def figures(self) -> dict[str, Any]:
        if not self.samples:
            return {}
        half = self.samples[-1][0] / 2
        first = [s[3] for s in self.samples if s[0] <= half] or [0]
        second = [s[3] for s in self.samples if s[0] > half] or [0]
        return {
            "tree_processes": max(s[1] for s in self.samples),
            "tree_peak_rss_mb": round(max(s[2] for s in self.samples) / 1024, 1),
            "tree_peak_pss_mb": round(max(s[3] for s in self.samples) / 1024, 1),
            # flat memory: the second half of the batch peaks no higher than the first
            "tree_pss_mb_first_half": round(max(first) / 1024, 1),
            "tree_pss_mb_second_half": round(max(second) / 1024, 1),
        }


class SumSampler:
    """A thread that reads the RSS of the batch's processes - ``root`` and every process
    below it but multiprocessing's resource tracker - together every ``every_s`` seconds
    and keeps the largest sum (the simultaneous peak) and each process's own peak. The
    tree is looked up again every ``rescan_s``. Use as a context manager: sampling runs
    from entry to exit. ``rss``, ``tree``, ``helper`` and ``clock`` are for tests."""

    def __init__(
        self,
        root: int,
        every_s: float = 0.01,
        rescan_s: float = 0.1,
        *,
        rss: Callable[[int], int] = rss_kb,
        tree: Callable[[int], list[int]] = tree_pids,
        helper: Callable[[int], bool] = _is_helper,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.root = root
        self.every_s = every_s
        self.rescan_s = rescan_s
        self.peak_kb = 0
        self.peak_processes = 0
        self.process_peaks_kb: dict[int, int] = {}
        self.samples = 0
        self.cpu_s = 0.0
        """CPU time of the sampling thread itself."""
        self._rss, self._tree, self._helper, self._clock = rss, tree, helper, clock
        self._helpers: dict[int, bool] = {}
        self._pids: list[int] = []
        self._next_scan = float("-inf")
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rss-sum-sampler", daemon=True)

    def sample(self) -> int:
        """Read every batch process's RSS now; their sum in kB (the peaks updated)."""
        now = self._clock()
        if now >= self._next_scan:
            self._next_scan = now + self.rescan_s
            pids = self._tree(self.root)
            for pid in pids:
                # Only "is the tracker" is kept: a process just forked still shows its
                # parent's command line until it execs into the tracker, so "is not" is read
                # again at every scan.
                if not self._helpers.get(pid):
                    self._helpers[pid] = self._helper(pid)
            self._pids = [pid for pid in pids if not self._helpers[pid]]
        total = alive = 0
        for pid in self._pids:
            kb = self._rss(pid)
            total += kb
            alive += kb > 0
            if kb > self.process_peaks_kb.get(pid, 0):
                self.process_peaks_kb[pid] = kb
        self.samples += 1
        if total > self.peak_kb:
            self.peak_kb, self.peak_processes = total, alive
        return total

    def _run(self) -> None:
        started = time.thread_time()
        while True:
            self.sample()
            if self._stop.wait(self.every_s):
                break
        self.cpu_s = time.thread_time() - started

    def __enter__(self) -> SumSampler:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()

    def figures(self) -> dict[str, Any]:
        """The batch's simultaneous peak and how it was sampled."""
        return {
            "batch_peak_rss_mb": round(self.peak_kb / 1024, 1),
            "batch_peak_processes": self.peak_processes,
            "batch_rss_sampling": f"VmRSS of the batch parent and its workers read together "
            f"every {self.every_s * 1000:g} ms ({self.samples} samples): the peak of their sum",
            "sampler_cpu_s": round(self.cpu_s, 2),
        }

"""The memory of a process tree, from Linux's /proc (no psutil): a batch, its workers
and, with the Ray engine, Ray's own processes (GCS, raylet, agents: children of the
driver that started the local instance; workers are the raylet's children).

RSS counts a page shared by several processes in each of them; PSS divides it among
them, so the sum of PSS is the tree's true footprint and the sum of RSS an upper bound.
The process pool's ``multiprocessing`` resource tracker (a bare interpreter the pool
starts beside its workers) is counted in the tree and reported apart, so the batch
itself - parent and workers - can be read without it.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any


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


def _is_helper(pid: int) -> bool:
    """Whether ``pid`` is multiprocessing's resource tracker (not a batch process)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"resource_tracker" in f.read()
    except OSError:
        return False


class TreeSampler:
    """Samples the memory of a process tree every ``every_s`` seconds until it exits."""

    def __init__(self, proc: subprocess.Popen[str], every_s: float = 1.0) -> None:
        self.samples: list[tuple[float, int, int, int]] = []  # (t, processes, rss kB, pss kB)
        self.batch_rss_kb: list[int] = []  # per sample: RSS of the tree without helpers
        started = time.perf_counter()
        while proc.poll() is None:
            pids = _tree(proc.pid)
            sizes = [(_memory_kb(pid), _is_helper(pid)) for pid in pids]
            rss, pss = sum(r for (r, _), _ in sizes), sum(p for (_, p), _ in sizes)
            self.samples.append((time.perf_counter() - started, len(pids), rss, pss))
            self.batch_rss_kb.append(sum(r for (r, _), helper in sizes if not helper))
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
            # the batch's own processes (parent and workers), summed per sample
            "batch_peak_rss_mb": round(max(self.batch_rss_kb) / 1024, 1),
            # flat memory: the second half of the batch peaks no higher than the first
            "tree_pss_mb_first_half": round(max(first) / 1024, 1),
            "tree_pss_mb_second_half": round(max(second) / 1024, 1),
        }

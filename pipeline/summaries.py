"""Batch summaries that never lose earlier work.

Each batch run (``advise batch``, ``advise resume --all``) streams its lines to a file of
its own, ``<out_dir>/summaries/<run-id>.jsonl`` (run-id: UTC timestamp + a short random
part, so names sort by start time and two runs never share one). When a run ends,
``<out_dir>/batch-summary.jsonl`` is rewritten atomically from every per-run file: one
line per request id, the latest run's line winning (a rejected input line is kept beside
it, keyed by its id and source), in the order the requests first appeared. A run that was
killed leaves its per-run file behind, and the next merge picks it up. The batch index,
``<out_dir>/index.html`` (``pipeline.index``), is rewritten with every merge.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agents.files import append_line, atomic_write, ensure_dir, remove_temps, storage_error
from pipeline.index import INDEX_NAME, write_index
from pipeline.results import SUMMARY_FIELDS, JobResult

MERGED_NAME = "batch-summary.jsonl"
RUNS_DIR = "summaries"


def new_run_id() -> str:
    """``20261123T151804123456Z-1a2b3c``: sortable by start time, unique per run."""
    return f"{datetime.now(UTC):%Y%m%dT%H%M%S%fZ}-{secrets.token_hex(3)}"


class SummaryWriter:
    """This run's ``summaries/<run-id>.jsonl``, one line per request as it finishes;
    ``close`` merges every run's lines into ``batch-summary.jsonl``."""

    def __init__(
        self, out_dir: Path, run_id: str | None = None, state_dir: Path | None = None
    ) -> None:
        self.out_dir = out_dir
        self.state_dir = state_dir  # the checkpoints: names and catalogs for the index
        self.run_id = run_id or new_run_id()
        self.path = out_dir / RUNS_DIR / f"{self.run_id}.jsonl"
        _adopt_legacy(out_dir)
        ensure_dir(self.path.parent)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        try:
            self._fd = os.open(self.path, flags | os.O_CLOEXEC, 0o666)
        except OSError as exc:
            raise storage_error(self.path, exc) from None

    def write(self, result: JobResult) -> None:
        """Append the result's line, whole or not at all (a full disk raises
        StorageError and leaves no torn line)."""
        # json.dumps, not model_dump_json: the file keeps its ", " and ": " separators.
        line = result.model_dump(mode="json", include=set(SUMMARY_FIELDS))
        append_line(self._fd, self.path, (json.dumps(line) + "\n").encode("utf-8"))

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        merge_summaries(self.out_dir, self.state_dir)


def _adopt_legacy(out_dir: Path) -> None:
    """A ``batch-summary.jsonl`` from before per-run files becomes the oldest run's file."""
    merged, runs = out_dir / MERGED_NAME, out_dir / RUNS_DIR
    if merged.is_file() and not runs.exists():
        ensure_dir(runs)
        atomic_write(runs / "00000000T000000000000Z-legacy.jsonl", merged.read_bytes())


def _key(row: Any, line: str) -> str:
    """Which earlier line a line replaces: a request's latest line wins; a rejected input
    line (invalid, or a duplicate id) is its own fact, replaced only by the same line of a
    later run (same id and source)."""
    if not isinstance(row, dict):
        return f"line:{line}"
    if row.get("id") is None or row.get("status") == "invalid":
        return f"invalid:{row.get('id')}:{row.get('source')}"
    return f"id:{row['id']}"


def merge_summaries(out_dir: Path, state_dir: Path | None = None) -> Path:
    """Rewrite ``<out_dir>/batch-summary.jsonl`` atomically from every per-run file (the
    latest line per request id wins); returns its path. Merges are serialized by a lock,
    so two batches finishing together never interleave their writes."""
    runs = out_dir / RUNS_DIR
    ensure_dir(runs)
    merged = out_dir / MERGED_NAME
    lock = runs / ".merge.lock"
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise storage_error(lock, exc) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        for target in (merged, out_dir / INDEX_NAME):
            remove_temps(target)  # a killed merger's; the lock makes us the only writer
        lines: dict[str, str] = {}
        for name in sorted(n for n in os.listdir(runs) if n.endswith(".jsonl")):
            with open(runs / name, encoding="utf-8") as f:
                for raw in f:
                    line = raw.rstrip("\n")
                    if not line.strip():
                        continue
                    try:
                        row = json.loads(line)
                    except ValueError:
                        continue  # a line cut short by a killed run
                    lines[_key(row, line)] = line
        atomic_write(merged, "".join(f"{line}\n" for line in lines.values()).encode("utf-8"))
        write_index(out_dir, list(lines.values()), state_dir)
    finally:
        os.close(fd)
    return merged

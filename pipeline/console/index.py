"""The dashboard's rows: one per checkpoint, kept in ``<state_dir>/.console/index.json``.

A page must not open every checkpoint of a large workspace, so each row is kept with the
size and modification time of the files it was read from (``<id>.json`` and
``<id>.journal``). A refresh lists the directory once (``os.scandir``), re-reads only the
checkpoints whose files changed (through ``CheckpointStore.summary``: lenient, no full
validation), drops the rows of removed ones, and rewrites the index file atomically when
anything changed. The checkpoints stay the one source of truth: the index can be deleted
at any time and is rebuilt from them.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from agents.files import atomic_write, ensure_dir
from pipeline.console.users import console_dir
from pipeline.results import ADVISOR_WORDS, STATUS_WORDS, advisor_group
from pipeline.store import JOURNAL_SUFFIX, CheckpointStore, check_request_id
from pipeline.workspace import describe_source

log = structlog.get_logger(__name__)

INDEX_NAME = "index.json"
INDEX_VERSION = 3
Stamp = list[int]  # [json mtime_ns, json size, journal mtime_ns, journal size]; 0 = none
FILTERS = ("state", "catalog")


def _stamps(state_dir: Path) -> dict[str, Stamp]:
    found: dict[str, Stamp] = {}
    try:
        entries = os.scandir(state_dir)
    except FileNotFoundError:
        return found
    with entries:
        for entry in entries:
            stem, dot, suffix = entry.name.rpartition(".")
            if not dot or f".{suffix}" not in (".json", JOURNAL_SUFFIX):
                continue
            try:
                check_request_id(stem)
                st = entry.stat(follow_symlinks=False)
            except (ValueError, OSError):
                continue
            stamp = found.setdefault(stem, [0, 0, 0, 0])
            at = 0 if suffix == "json" else 2
            stamp[at], stamp[at + 1] = st.st_mtime_ns, st.st_size
    return found


def state_words(state: str) -> str:
    """A run's state as an advisor reads it (the batch index's words, ``pipeline.results``);
    a run that stopped between stages says where."""
    if state == "done":
        return STATUS_WORDS["done"]
    if state in ("awaiting_approval", "failed"):
        return ADVISOR_WORDS[state]
    if state == "unreadable":
        return "Unreadable checkpoint"
    return f"Unfinished (at {state})"


def outcome_words(outcome: str | None, infeasible_kind: str | None) -> str:
    """A finished request's outcome in the batch index's words; no plan before a time limit
    ran out is not called infeasible."""
    if not outcome:
        return ""
    return ADVISOR_WORDS[advisor_group("done", outcome, infeasible_kind == "timed_out")]


def _row(store: CheckpointStore, rid: str) -> dict[str, Any]:
    summary = store.summary(rid)
    if summary is None:
        return {
            "id": rid,
            "state": "unreadable",
            "student": "",
            "student_id": "",
            "programs": [],
            "outcome": "",
            "outcome_words": "",
            "graduation": "",
            "catalog": "",
            "catalog_source": None,
            "updated": "",
        }
    request = summary.request or {}
    found = request.get("student")
    student: dict[str, Any] = found if isinstance(found, dict) else {}
    programs = [*(student.get("programs") or []), *(request.get("add_programs") or [])]
    row_state = summary.state.value if summary.state is not None else "unreadable"
    return {
        "id": rid,
        "state": row_state,
        "student": str(student.get("name") or ""),
        "student_id": str(student.get("id") or ""),
        "programs": [str(p) for p in dict.fromkeys(programs)],
        "outcome": summary.outcome or "",
        "outcome_words": outcome_words(summary.outcome, summary.infeasible_kind),
        "graduation": summary.graduation_term or "",
        "catalog": describe_source(summary.catalog_source),
        "catalog_source": summary.catalog_source,
        "updated": f"{summary.updated_at:%Y-%m-%d %H:%M}" if summary.updated_at else "",
    }


def _haystack(row: dict[str, Any]) -> str:
    """What a search looks in: the id, the student's name and id (a newline keeps a match
    from spanning two fields)."""
    return "\n".join((row["id"], row["student"], row["student_id"])).casefold()


@dataclass
class Page:
    rows: list[dict[str, Any]]
    total: int  # rows matching the filters
    page: int
    pages: int
    states: list[str]
    catalogs: list[str]


class RequestIndex:
    """The rows of one workspace's checkpoints; safe to share between threads."""

    def __init__(self, state_dir: Path) -> None:
        self.store = CheckpointStore(state_dir)
        self.path = console_dir(state_dir) / INDEX_NAME
        self._lock = threading.Lock()
        self._entries: dict[str, dict[str, Any]] | None = None
        # The rows sorted by id, each with the text a search looks in; rebuilt on change.
        self._rows: list[tuple[dict[str, Any], str]] | None = None
        self.reread = 0  # checkpoints read by the last refresh (the benchmark reports it)

    def _load_file(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("version") != INDEX_VERSION:
            return {}
        entries = data.get("entries")
        return entries if isinstance(entries, dict) else {}

    def refresh(self) -> list[dict[str, Any]]:
        """Every row, sorted by id, after re-reading the checkpoints that changed."""
        return [row for row, _ in self._refresh()]

    def _refresh(self) -> list[tuple[dict[str, Any], str]]:
        with self._lock:
            if self._entries is None:
                self._entries = self._load_file()
            entries, changed = self._entries, False
            stamps = _stamps(self.store.root)
            self.reread = 0
            for rid in [r for r in entries if r not in stamps]:
                del entries[rid]
                changed = True
            for rid, stamp in stamps.items():
                held = entries.get(rid)
                if isinstance(held, dict) and held.get("stamp") == stamp:
                    continue
                entries[rid] = {"stamp": stamp, "row": _row(self.store, rid)}
                self.reread += 1
                changed = True
            if changed:
                self._save(entries)
            if changed or self._rows is None:
                rows = [entries[rid]["row"] for rid in sorted(entries)]
                self._rows = [(r, _haystack(r)) for r in rows]
            return self._rows

    def _save(self, entries: dict[str, dict[str, Any]]) -> None:
        try:
            ensure_dir(self.path.parent)
            body = json.dumps({"version": INDEX_VERSION, "entries": entries})
            atomic_write(self.path, body.encode("utf-8"))
        except Exception as exc:  # a read-only workspace still lists: the index is a cache
            log.warning("console.index_not_saved", path=str(self.path), error=str(exc))

    def catalog_sources(self) -> list[str]:
        """The catalogs the workspace's requests were made with (their recorded sources)."""
        return sorted({r["catalog_source"] for r in self.refresh() if r["catalog_source"]})

    def row(self, rid: str) -> dict[str, Any] | None:
        return next((r for r in self.refresh() if r["id"] == rid), None)

    def page(
        self,
        *,
        state: str = "",
        catalog: str = "",
        search: str = "",
        page: int = 1,
        per_page: int = 50,
    ) -> Page:
        rows = self._refresh()
        states = sorted({r["state"] for r, _ in rows})
        catalogs = sorted({r["catalog"] for r, _ in rows})
        needle = search.strip().casefold()
        picked = [
            r
            for r, text in rows
            if (not state or r["state"] == state)
            and (not catalog or r["catalog"] == catalog)
            and (not needle or needle in text)
        ]
        pages = max(1, -(-len(picked) // per_page))
        page = min(max(1, page), pages)
        start = (page - 1) * per_page
        return Page(picked[start : start + per_page], len(picked), page, pages, states, catalogs)

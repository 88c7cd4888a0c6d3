"""The batch index: ``<out_dir>/index.html``, every request of the merged batch summary with
its status, outcome, graduation term, rounds, risk count and a link to its report - one
self-contained page (template ``index.html.j2``) that sorts and filters without a server.

It is rewritten with the merged summary (``pipeline.summaries.merge_summaries``), so it
always lists the latest line per request. Graduation and risks come from each finished
request's ``<id>.json``; a request without outputs shows its status and error only.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import structlog

from agents.catalog import term_label
from agents.files import atomic_write
from agents.reports import render

log = structlog.get_logger(__name__)

INDEX_NAME = "index.html"


def _outcome_facts(out_dir: Path, rid: str) -> dict[str, Any]:
    path = out_dir / f"{rid}.json"
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    grad = rec.get("graduation_term")
    return {
        "graduation": grad or "",
        "graduation_label": (term_label(grad) or grad) if grad else "",
        "risks": len(rec.get("risks") or []),
        "report": f"{rid}.html" if (out_dir / f"{rid}.html").is_file() else None,
        "summary": rec.get("summary", ""),
        # No plan before a time limit ran out is not a finding of infeasibility.
        "timed_out": rec.get("outcome") == "infeasible"
        and rec.get("infeasible_kind") == "timed_out",
    }


def index_rows(out_dir: Path, lines: list[str]) -> list[dict[str, Any]]:
    rows = []
    for line in lines:
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if not isinstance(row, dict):
            continue
        rid = row.get("id")
        facts = _outcome_facts(out_dir, rid) if rid and row.get("outcome") else {}
        rows.append(
            {
                "id": rid or "",
                "source": row.get("source") or "",
                "status": row.get("status") or "",
                "outcome": "timed_out" if facts.get("timed_out") else row.get("outcome") or "",
                "rounds": row.get("rounds") if row.get("rounds") is not None else "",
                "graduation": facts.get("graduation", ""),
                "graduation_label": facts.get("graduation_label", ""),
                "risks": facts.get("risks", ""),
                "report": facts.get("report"),
                "summary": facts.get("summary", ""),
                "error": row.get("error") or "",
            }
        )
    return rows


def write_index(out_dir: Path, lines: list[str]) -> Path:
    """Write ``<out_dir>/index.html`` for the merged summary's ``lines``; returns its path."""
    rows = index_rows(out_dir, lines)
    counts = Counter(r["status"] for r in rows)
    page = render(
        "index.html.j2",
        rows=rows,
        statuses=sorted(counts),
        outcomes=sorted({r["outcome"] for r in rows if r["outcome"]}),
        counts=dict(sorted(counts.items())),
        total=len(rows),
    )
    path = out_dir / INDEX_NAME
    atomic_write(path, page.encode("utf-8"))
    log.info("batch.index", path=str(path), requests=len(rows))
    return path

"""The batch index: ``<out_dir>/index.html``, every request of the merged batch summary with
the student's name, where it stands in an advisor's words, graduation term, rounds, risk
count and a link to its report - one self-contained page (template ``index.html.j2``).

Requests that need someone (an approval, information, a plan that cannot be made as asked,
a failure) are listed first, in sections an advisor jumps to from the page's top links;
these are plain anchors, so the page works without scripts. Below them, the table of every
request sorts and filters with a few lines of inline script. A catalog column appears when
the requests were made with more than one catalog.

It is rewritten with the merged summary (``pipeline.summaries.merge_summaries``), so it
always lists the latest line per request. Graduation, risks and the student's name come
from each finished request's ``<id>.json``; the name (of a request without outputs) and the
catalog from its checkpoint in ``state_dir`` when that is given.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import structlog

from agents.audit import name_requirements
from agents.catalog import term_label
from agents.files import atomic_write
from agents.reports import render
from pipeline.checkpoint_summary import CheckpointSummary
from pipeline.errors import UnsafeRequestIdError
from pipeline.results import ADVISOR_WORDS, STATUS_WORDS, advisor_group
from pipeline.store import check_request_id
from pipeline.workspace import describe_source

log = structlog.get_logger(__name__)

INDEX_NAME = "index.html"
# The groups listed in sections above the table: the ones a person must act on.
ATTENTION = (
    "awaiting_approval",
    "needs_input",
    "infeasible",
    "timed_out",
    "unresolved_after_max_rounds",
    "failed",
    "invalid",
    "stale",
)


def _outcome_facts(out_dir: Path, rid: str) -> dict[str, Any]:
    path = out_dir / f"{rid}.json"
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(rec, dict):
        return {}
    grad = rec.get("graduation_term")
    titles = rec.get("requirement_titles")
    titles = (
        {k: v for k, v in titles.items() if isinstance(v, str)} if isinstance(titles, dict) else {}
    )
    return {
        "name": rec.get("student_name") or "",
        "graduation": grad or "",
        "graduation_label": (term_label(grad) or grad) if grad else "",
        "risks": len(rec.get("risks") or []),
        "report": f"{rid}.html" if (out_dir / f"{rid}.html").is_file() else None,
        "summary": name_requirements(str(rec.get("summary", "")), titles),
        # No plan before a time limit ran out is not a finding of infeasibility.
        "timed_out": rec.get("outcome") == "infeasible"
        and rec.get("infeasible_kind") == "timed_out",
    }


def _checkpoint_facts(state_dir: Path | None, rid: str) -> dict[str, str]:
    """The student's name and the catalog of the request's checkpoint (empty when there is
    none, or the id is not a safe file name: it is never used as a path then)."""
    if state_dir is None or not rid:
        return {}
    try:
        path = state_dir / f"{check_request_id(rid)}.json"
        saved = CheckpointSummary.model_validate_json(path.read_bytes())
    except (OSError, ValueError, UnsafeRequestIdError):
        return {}
    student = (saved.request or {}).get("student")
    name = student.get("name") if isinstance(student, dict) else None
    return {
        "name": name if isinstance(name, str) else "",
        "catalog": describe_source(saved.catalog_source) if saved.catalog_source else "",
    }


def index_rows(
    out_dir: Path, lines: list[str], state_dir: Path | None = None
) -> list[dict[str, Any]]:
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
        saved = _checkpoint_facts(state_dir, rid) if isinstance(rid, str) else {}
        status = row.get("status") or ""
        group = advisor_group(status, row.get("outcome"), bool(facts.get("timed_out")))
        rows.append(
            {
                "id": rid or "",
                "name": facts.get("name") or saved.get("name", ""),
                "source": row.get("source") or "",
                "status": status,
                "group": group,
                "words": ADVISOR_WORDS[group],
                "outcome": "timed_out" if facts.get("timed_out") else row.get("outcome") or "",
                "rounds": row.get("rounds") if row.get("rounds") is not None else "",
                "graduation": facts.get("graduation", ""),
                "graduation_label": facts.get("graduation_label", ""),
                "risks": facts.get("risks", ""),
                "report": facts.get("report"),
                "summary": facts.get("summary", ""),
                "catalog": saved.get("catalog", ""),
                "error": row.get("error") or "",
            }
        )
    return rows


def index_sections(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The groups a person must act on, most urgent first, each with its requests; then one
    section per other group present (ready, answered), so every request is in one."""
    order = [*ATTENTION, *(g for g in ADVISOR_WORDS if g not in ATTENTION)]
    out = []
    for group in order:
        members = [r for r in rows if r["group"] == group]
        if members:
            out.append({
                "group": group, "anchor": group.replace("_", "-"), "words": ADVISOR_WORDS[group],
                "attention": group in ATTENTION, "rows": members,
            })  # fmt: skip
    return out


def write_index(out_dir: Path, lines: list[str], state_dir: Path | None = None) -> Path:
    """Write ``<out_dir>/index.html`` for the merged summary's ``lines`` (``state_dir``:
    where the checkpoints are, for names and catalogs); returns its path."""
    rows = index_rows(out_dir, lines, state_dir)
    counts = Counter(r["status"] for r in rows)
    catalogs = sorted({r["catalog"] for r in rows if r["catalog"]})
    page = render(
        "index.html.j2",
        rows=rows,
        sections=index_sections(rows),
        statuses=sorted(counts),
        status_words={s: STATUS_WORDS.get(s, s) for s in counts},
        advisor_words=ADVISOR_WORDS,
        outcomes=sorted({r["outcome"] for r in rows if r["outcome"]}),
        counts=dict(sorted(counts.items())),
        catalogs=catalogs,
        total=len(rows),
    )
    path = out_dir / INDEX_NAME
    atomic_write(path, page.encode("utf-8"))
    log.info("batch.index", path=str(path), requests=len(rows))
    return path

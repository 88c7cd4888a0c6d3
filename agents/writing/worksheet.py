"""The audit worksheet an advisor reads (as Degree Works and Stellic show one): percent
complete per program and overall, what is still needed per requirement, the courses that
count toward nothing (fallthrough), the in-progress and planned courses (look-ahead), the
what-if programs and the advisor exceptions - as a self-contained HTML page or Markdown,
from the templates ``worksheet.html.j2`` and ``worksheet.md.j2``.

Percent complete counts requirements, not courses: every leaf of a program's tree that
must be met (an n_of counts only the ``n`` children closest to done) and every program
check (total units, program GPA); a leaf counts as done when completed courses meet it,
so in-progress and planned courses show as look-ahead, not progress.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agents.audit.report import AuditReport, ProgramAudit, RequirementAudit, iter_nodes
from agents.audit.titles import readable_id, requirement_name, requirement_titles
from agents.catalog import (
    Catalog,
    NOfRequirement,
    Program,
    RequirementNode,
    StudentRecord,
    credits_text,
)
from agents.catalog.overrides import effective_catalog
from agents.reports import render

if TYPE_CHECKING:
    from agents.artifacts.nearby import CloseProgram, CloseReport

WORDS = {"met": "met", "partly_met": "in progress", "unmet": "not started"}
# A status is never told by colour alone: each row shows an icon (hidden from screen
# readers, which read the words) and the words beside it.
ICONS = {"met": "\u2713", "partly_met": "\u25d0", "unmet": "\u2717", "spare": "\u2013"}


def _leaves(node: RequirementAudit, n_of: dict[str, int]) -> list[RequirementAudit]:
    """The leaves that must be met: an n_of counts only its ``n`` best children."""
    if not node.children:
        return [node]
    kids = node.children
    if node.kind == "n_of":
        ranked = sorted(kids, key=lambda k: (k.met_by_completed, k.status == "met"), reverse=True)
        kids = ranked[: n_of.get(node.id, 1)]
    return [leaf for k in kids for leaf in _leaves(k, n_of)]


def _n_of(program: Program) -> dict[str, int]:
    """Every n_of node's ``n`` in ``program``'s tree, by node id."""
    out: dict[str, int] = {}

    def walk(node: RequirementNode) -> None:
        if isinstance(node, NOfRequirement):
            out[node.id] = node.n
        for child in getattr(node, "children", []):
            walk(child)

    walk(program.requirement)
    return out


def _still_needed(node: RequirementAudit) -> str:
    if node.status == "met":
        return ""
    needs = []
    if node.courses_needed:
        needs.append(f"{node.courses_needed} course" + ("s" if node.courses_needed != 1 else ""))
    if node.units_needed:
        needs.append(credits_text(node.units_needed))
    text = ", ".join(needs) or node.explanation
    if node.options:
        shown = ", ".join(node.options[:10])
        text += f" from {shown}" + (
            f" (+{len(node.options) - 10} more)" if len(node.options) > 10 else ""
        )
    return text


def _name(node: RequirementAudit) -> str:
    """The node's title; an untitled course leaf by its course's code."""
    if node.title:
        return node.title
    if node.kind == "course":
        codes = [c.course for c in node.counted] or node.options
        return codes[0] if codes else node.id
    return readable_id(node.id)


def _rows(node: RequirementAudit, depth: int = 0) -> list[dict[str, Any]]:
    spare = node.explanation.startswith("not needed")
    out = [
        {
            "depth": depth,
            "id": node.id,
            "title": _name(node),
            "status": "spare" if spare else node.status,
            "icon": ICONS["spare" if spare else node.status],
            "words": "not needed" if spare else WORDS[node.status],
            "explanation": node.explanation,
            "counted": [
                {
                    "course": c.course,
                    "title": c.title,
                    "grade": c.grade or "",
                    "term": c.term,
                    "units": credits_text(c.units),
                    "status": c.status.replace("_", " "),
                }
                for c in node.counted
            ],
            "needed": "" if spare else _still_needed(node),
        }
    ]
    for child in node.children:
        out += _rows(child, depth + 1)
    return out


def _percent(done: int, total: int) -> int:
    return round(100 * done / total) if total else 100


def program_view(program: ProgramAudit, tree: Program) -> dict[str, Any]:
    parts = [*_leaves(program.root, _n_of(tree)), *program.checks]
    done = sum(p.met_by_completed for p in parts)
    return {
        "code": program.code,
        "name": program.name,
        "kind": program.kind,
        "what_if": program.what_if,
        "eligible": program.eligible,
        "eligibility_note": program.eligibility_note,
        "status": program.status,
        "words": WORDS[program.status],
        "icon": ICONS[program.status],
        "done": done,
        "total": len(parts),
        "percent": _percent(done, len(parts)),
        "rows": [r for node in [program.root, *program.checks] for r in _rows(node)],
        "notes": [*program.sharing_notes],
    }


def worksheet_view(
    catalog: Catalog,
    student: StudentRecord,
    report: AuditReport,
    changes: list[str] | None = None,
    close: CloseReport | None = None,
) -> dict[str, Any]:
    """What the worksheet templates are given (``close``: the programs the student could
    add, shown when given)."""
    effective = effective_catalog(catalog, student)
    programs = [program_view(p, effective.program(p.code)) for p in report.programs]
    counted = {c.course for _, node in iter_nodes(report) for c in node.counted}
    fallthrough = [
        {"course": a.course, "title": _title(catalog, a.course), "term": a.term,
         "grade": a.grade or "", "units": credits_text(student.units_of(a, catalog))}
        for a in student.courses
        if a.status == "completed" and a.course not in counted
        and catalog.grade_meets(a.grade, None)
    ]  # fmt: skip
    lookahead = [
        {"course": a.course, "title": _title(catalog, a.course), "term": a.term,
         "status": a.status.replace("_", " "),
         "counts": ", ".join(sorted(_where_counted(report, a.course))) or "nothing yet"}
        for a in student.courses
        if a.status != "completed"
    ]  # fmt: skip
    lookahead += [
        {"course": r.course, "title": _title(catalog, r.course), "term": r.term,
         "status": "registered",
         "counts": ", ".join(sorted(_where_counted(report, r.course))) or "nothing yet"}
        for r in student.registered
    ]  # fmt: skip
    done = sum(p["done"] for p in programs)
    total = sum(p["total"] for p in programs)
    return {
        "report": report,
        "student": student,
        "catalog_year": report.catalog_year,
        "standing": report.class_standing.replace("_", " "),
        "gpa": f"{report.gpa:.2f}" if report.gpa is not None else "none yet",
        "earned": credits_text(report.units_earned),
        "in_progress": credits_text(report.units_in_progress),
        "planned": credits_text(report.units_planned),
        "percent": _percent(done, total),
        "done": done,
        "total": total,
        "programs": programs,
        "fallthrough": fallthrough,
        "lookahead": lookahead,
        "exceptions": report.exceptions,
        "changes": changes or [],
        "warnings": report.warnings,
        "close": close_view(close) if close is not None else None,
    }


def close_view(close: CloseReport) -> dict[str, Any]:
    """The programs-you-are-close-to section: baseline, ranked rows with the courses still
    needed, the programs that would delay graduation and the ones not planned."""
    return {
        "programs": ", ".join(close.programs),
        "graduation": close.baseline_graduation_term or "",
        "units": credits_text(close.baseline_units),
        "reasons": close.baseline_reasons,
        "rows": [_close_row(p) for p in close.close],
        "delayed": [_close_row(p) for p in close.delayed],
        "skipped": [s.model_dump() for s in close.skipped],
    }


def _close_row(p: CloseProgram) -> dict[str, Any]:
    courses = [
        {"course": n.course, "title": n.title, "units": credits_text(n.units), "term": n.term,
         "fills": ", ".join(n.fills)}
        for n in p.courses
    ]  # fmt: skip
    return {
        "code": p.code,
        "name": p.name,
        "kind": p.kind,
        "status": p.status,
        "extra": credits_text(p.extra_units),
        "remaining": credits_text(p.remaining_units),
        "counted": credits_text(p.units_counted),
        "graduation": p.graduation_term or "",
        "proved": p.plan_status == "optimal",
        "reasons": p.reasons,
        "courses": courses,
    }


def _where_counted(report: AuditReport, course: str) -> set[str]:
    """The title of every requirement that counts ``course`` (a person reads titles; the
    'PROGRAM/node' ids stay in the audit's JSON)."""
    titles = requirement_titles(report)
    return {
        requirement_name(f"{code}/{node.id}", titles)
        for code, node in iter_nodes(report)
        if any(c.course == course for c in node.counted)
    }


def _title(catalog: Catalog, code: str) -> str:
    course = catalog.course_by_code.get(code)
    return course.title if course is not None else ""


def worksheet_html(view: dict[str, Any]) -> str:
    return render("worksheet.html.j2", **view)


def worksheet_markdown(view: dict[str, Any]) -> str:
    return render("worksheet.md.j2", **view)

"""Plain-text rendering of a degree audit: one tree per program with status marks, each
requirement named by its title (the ids stay in the audit's JSON).

The text has no colour codes (the CLI may add colour); every line is stable for a given
report, so the rendering can be compared in tests and pasted into letters and tickets.
"""

from __future__ import annotations

from collections.abc import Mapping

from agents.audit.report import AuditReport, CountedCourse, ProgramAudit, RequirementAudit
from agents.audit.titles import program_titles, requirement_name, requirement_titles
from agents.catalog import credits_text, unit_name

MARKS: dict[str, str] = {"met": "[met]", "partly_met": "[partly met]", "unmet": "[unmet]"}
MAX_OPTIONS = 12


def _num(x: float) -> str:
    return f"{x:g}"


def _counted_line(c: CountedCourse) -> str:
    grade = c.grade or "-"
    status = c.status.replace("_", " ")
    source = {"institution": "", "transfer": ", transfer credit", "ap": ", AP credit"}.get(
        c.source, f", {c.source} credit"
    )
    note = f" ({c.note})" if c.note else ""
    units = credits_text(c.units)
    return f"{c.course} {c.title} | {grade} | {c.term} | {units} | {status}{source}{note}"


def _remaining_line(node: RequirementAudit) -> str | None:
    if node.status == "met" or node.children:
        return None
    if not (node.courses_needed or node.units_needed or node.options):
        return None
    needs = []
    if node.courses_needed:
        needs.append(f"{node.courses_needed} course" + ("" if node.courses_needed == 1 else "s"))
    if node.units_needed:
        needs.append(credits_text(node.units_needed))
    text = "needs " + (", ".join(needs) if needs else "a better GPA")
    if node.options:
        shown = node.options[:MAX_OPTIONS]
        more = len(node.options) - len(shown)
        text += "; options: " + ", ".join(shown) + (f" (+{more} more)" if more else "")
    return text


def _render_node(
    node: RequirementAudit, depth: int, lines: list[str], names: Mapping[str, str]
) -> None:
    pad = "  " * depth
    name = names[node.id]
    lines.append(f"{pad}{MARKS[node.status]} {name}: {node.explanation}")
    for c in node.counted:
        lines.append(f"{pad}    + {_counted_line(c)}")
    remaining = _remaining_line(node)
    if remaining is not None:
        lines.append(f"{pad}    - {remaining}")
    for child in node.children:
        _render_node(child, depth + 1, lines, names)


def render_program(
    program: ProgramAudit,
    catalog_year: str | None = None,
    titles: Mapping[str, str] | None = None,
) -> str:
    """One program's audit as an indented tree (its catalog year shown when it is not
    ``catalog_year``, the catalog's own). Requirements are named by title, never by id
    (``agents.audit.titles``); ``titles`` ('PROGRAM/node' -> title) names the other
    programs' requirements a shared course counts toward."""
    names = program_titles(program)
    others = titles or {}
    kind: str = "institution requirements" if program.kind == "institution" else program.kind
    kind += ", what-if" if program.what_if else ""
    if program.catalog_year is not None and program.catalog_year != catalog_year:
        kind += f", {program.catalog_year} catalog"
    lines = [f"{program.code} {program.name} ({kind}) {MARKS[program.status]}"]
    if not program.eligible:
        lines.append(f"  Not eligible: {program.eligibility_note}")
    _render_node(program.root, 1, lines, names)
    for check in program.checks:
        _render_node(check, 1, lines, names)
    for s in program.shared_courses:
        other = requirement_name(f"{s.with_program}/{s.other_requirement}", others)
        lines.append(
            f"  Shared: {s.course} ({s.term}) counts toward "
            f"{names.get(s.requirement) or s.requirement} here and {other} in {s.with_program}"
        )
    for note in program.sharing_notes:
        lines.append(f"  Sharing: {note}")
    return "\n".join(lines) + "\n"


def render_audit(report: AuditReport) -> str:
    """The whole report: a header with the student's standing, then each program."""
    gpa = f"{report.gpa:.2f}" if report.gpa is not None else "none yet"
    lines = [
        f"Degree audit for {report.student_id} (catalog {report.catalog_year}, "
        f"as of {report.as_of_term})",
        f"Standing: {report.class_standing.replace('_', ' ')} | GPA: {gpa} | "
        f"{unit_name().capitalize()}: "
        f"{_num(report.units_earned)} earned, {_num(report.units_in_progress)} in progress, "
        f"{_num(report.units_planned)} planned",
    ]
    if report.all_met:
        result = "all requirements met" + (
            "" if report.all_met_by_completed else " once in-progress and planned courses pass"
        )
    else:
        result = "requirements remain"
    lines.append(f"Result: {result}")
    text = "\n".join(lines) + "\n"
    titles = requirement_titles(report)
    for program in report.programs:
        text += "\n" + render_program(program, report.catalog_year, titles)
    if report.exceptions:
        text += "\nAdvisor exceptions:\n" + "".join(
            f"  - [{u.status}] {u.exception} ({u.by}, {u.date}: {u.reason}): {u.note}\n"
            for u in report.exceptions
        )
    if report.warnings:
        text += "\nWarnings:\n" + "".join(f"  - {w}\n" for w in report.warnings)
    return text

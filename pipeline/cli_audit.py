"""The ``advise audit`` command: a student's degree audit as text or JSON, with what-if
programs (``--add-program``), proposed advisor exceptions (``--exception``) and the
programs the student is close to (``--close``, see ``agents.advice.nearby``)."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.cli_common import EXIT_OK, Formatter, positive
from pipeline.config import add_settings

if TYPE_CHECKING:
    from agents.advice.nearby import CloseProgram, CloseReport
    from agents.audit import AuditReport

# agents.advice.nearby.KIND_ORDER, named here so that parsing never loads the solver.
CLOSE_KINDS = ("minor", "concentration", "major")


def add_audit(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "audit",
        help="degree audit of a student record",
        formatter_class=Formatter,
        description="Audit a student's record against their programs: every requirement "
        "met, partly met or unmet,\nwhich courses count where, and what remains. "
        "--add-program audits a program the student\nhas not declared (what-if).\n\n"
        "--exception FILE shows what proposed advisor exceptions (an exceptions file, see\n"
        "exceptions.schema.json) would change before they are granted.\n\n"
        "--close [N] plans the programs the student could add (minors, then concentrations)\n"
        "and lists the N that fit without delaying graduation, fewest extra units first;\n"
        "with --html/--md the worksheet gets a section for them.\n\n"
        "examples:\n  advise audit demos/students/is-junior-cs-minor.json\n"
        "  advise audit demos/students/is-junior-cs-minor.json --add-program CS-MIN --json\n"
        "  advise audit demos/students/is-senior.json --exception demos/exceptions/is-senior.json\n"
        "  advise audit demos/students/is-senior.json --add-program CS-MIN --html -o audit.html\n"
        "  advise audit demos/students/econ-junior.json --close 3",
    )
    p.add_argument("student", help="student record JSON file")
    p.add_argument(
        "--add-program",
        action="append",
        default=[],
        metavar="CODE",
        help="what-if: audit this program too - a code (any case), name or alias (repeatable)",
    )
    p.add_argument(
        "--exception",
        action="append",
        default=[],
        metavar="FILE",
        help="what-if: apply the exceptions in this file (repeatable) and show what changes",
    )
    p.add_argument(
        "--as-of",
        type=date.fromisoformat,
        metavar="YYYY-MM-DD",
        help="day exceptions are judged on (expired ones are ignored; default: today)",
    )
    p.add_argument(
        "--close",
        nargs="?",
        const=0,
        type=positive,
        metavar="N",
        help="the programs the student could add without delaying graduation, planned and "
        "ranked (the best N; default: all); text and --json show these instead of the audit",
    )
    p.add_argument(
        "--close-kinds",
        default="minor,concentration",
        type=_kinds,
        metavar="KINDS",
        help="kinds of program --close considers, comma-separated, from: " + ", ".join(CLOSE_KINDS),
    )
    shape = p.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="print the audit as JSON")
    shape.add_argument(
        "--html", action="store_true", help="the audit worksheet as a self-contained HTML page"
    )
    shape.add_argument("--md", action="store_true", help="the audit worksheet as Markdown")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    add_settings(p, ("catalog", "templates"))
    p.set_defaults(handler=_cmd_audit)


def _kinds(text: str) -> list[str]:
    """An argparse type: 'minor,major' -> ['minor', 'major'], each a kind one may add."""
    kinds = [k.strip().lower() for k in text.split(",") if k.strip()]
    bad = [k for k in kinds if k not in CLOSE_KINDS]
    if bad or not kinds:
        raise argparse.ArgumentTypeError(
            f"expected kinds from {', '.join(CLOSE_KINDS)}, got {text!r}"
        )
    return kinds


def _cmd_audit(args: argparse.Namespace) -> int:
    from agents.audit import audit, render_audit
    from agents.catalog import (
        check_student_against_catalog,
        load_catalog,
        load_student,
        use_catalog,
    )
    from agents.catalog.exceptions import load_exceptions, use_of
    from agents.catalog.lookup import resolve_program, respell_courses
    from agents.errors import StudentRecordError
    from agents.files import atomic_write
    from agents.reports import check_templates, use_templates
    from agents.writing.worksheet import worksheet_html, worksheet_markdown, worksheet_view

    cat = load_catalog(args.catalog)
    student = load_student(args.student, calendar=cat.calendar)
    student, _ = respell_courses(student, cat)  # codes in any case and spacing: 'cs101'
    problems = check_student_against_catalog(student, cat)
    if problems:
        raise StudentRecordError(args.student, problems)
    adds = [resolve_program(cat, text) for text in args.add_program]  # alias, name, any case
    before = student
    for path in args.exception:
        student = student.with_exceptions(load_exceptions(path))
    day = args.as_of or date.today()
    student, expired = student.split_expired(day)
    before, _ = before.split_expired(day)
    templates = Path(args.templates) if args.templates else None
    if templates is not None:
        check_templates(templates)
    with use_catalog(cat), use_templates(templates):
        report = audit(cat, student, add_programs=adds)
        gone = [use_of(e, "expired", f"expired on {e.expires} (judged on {day})") for e in expired]
        report = report.model_copy(update={"exceptions": [*report.exceptions, *gone]})
        was = audit(cat, before, add_programs=adds) if args.exception else None
        close = None
        if args.close is not None:
            from agents.advice.nearby import close_programs

            programs = list(dict.fromkeys([*student.programs, *adds]))
            limit = args.close or None
            close = close_programs(
                cat, student, programs=programs, limit=limit, kinds=args.close_kinds
            )
        if close is not None and args.json:
            text = json.dumps(close.model_dump(mode="json"), indent=2, sort_keys=True) + "\n"
        elif args.json:
            text = json.dumps(report.model_dump(mode="json"), indent=2, sort_keys=True) + "\n"
        elif args.html or args.md:
            changes = changed_requirements(was, report) if was is not None else []
            view = worksheet_view(cat, student, report, changes, close)
            text = worksheet_html(view) if args.html else worksheet_markdown(view)
        elif close is not None:
            text = render_close(close, student.name) + "\n"
        else:
            text = render_audit(report) + "\n"
            if was is not None:
                text += what_changes(was, report) + "\n"
    if args.output:
        atomic_write(Path(args.output), text.encode("utf-8"))
        print(f"wrote {args.output}")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def changed_requirements(before: AuditReport, after: AuditReport) -> list[str]:
    """'IS-BS 67-475: unmet -> met' for each requirement whose status changed."""
    from agents.audit import iter_nodes

    def statuses(report: AuditReport) -> dict[tuple[str, str], tuple[str, str]]:
        return {(c, n.id): (n.status, n.title or n.id) for c, n in iter_nodes(report)}

    old, new = statuses(before), statuses(after)
    return [
        f"{key[0]} {title}: {old[key][0].replace('_', ' ')} -> {status.replace('_', ' ')}"
        for key, (status, title) in new.items()
        if key in old and old[key][0] != status
    ]


def what_changes(before: AuditReport, after: AuditReport) -> str:
    """The requirements whose status the proposed exceptions change, as text."""
    lines = [f"  {line}" for line in changed_requirements(before, after)]
    head = "What the proposed exceptions change:"
    if not lines:
        return f"{head}\n  no requirement changes status"
    return head + "\n" + "\n".join(lines)


def render_close(report: CloseReport, name: str) -> str:
    """The programs ``name`` could add (``agents.advice.nearby.CloseReport``) as a text table,
    each with the courses still needed, then the ones that would delay graduation and the
    ones not planned."""
    from agents.catalog import credits_noun, credits_text, format_credits, unit_name

    c = report.constraints
    grad = report.baseline_graduation_term
    lines = [
        f"Programs {name} could add without delaying graduation",
        f"Baseline: {', '.join(report.programs)} - "
        + (
            f"graduates {grad} with {credits_text(report.baseline_units)} "
            f"planned ({report.baseline_status})"
            if grad is not None
            else "no plan: " + "; ".join(report.baseline_reasons)
        ),
        f"Each plan: at most {credits_text(c.max_units_per_term)} a term, "
        f"target {c.target_term or 'none'}, planner safety limit {c.time_limit_s:g} s",
        "",
    ]
    if report.close:
        lines.append(f"{'#':>3}  {'Program':<10} {'Kind':<13} {'Extra':>6} {'Remaining':>9}  "
                     "Graduates")  # fmt: skip
        for i, p in enumerate(report.close, 1):
            lines.append(
                f"{i:>3}  {p.code:<10} {p.kind:<13} {format_credits(p.extra_units):>6} "
                f"{format_credits(p.remaining_units):>9}  {p.graduation_term}"
                + ("" if p.plan_status == "optimal" else " (not proved optimal)")
            )
            lines += _needed_lines(p)
        lines.append(
            f"Extra: {unit_name()} beyond the baseline plan; Remaining: {unit_name()} of the "
            "planned courses that count toward the program."
        )
    elif grad is not None:
        lines.append("None fits without delaying graduation.")
    later = [p for p in report.delayed if p.status == "delays"]
    if later:
        lines += ["", "Would delay graduation:"]
        lines += [
            f"  {p.code:<10} {p.kind:<13} to {p.graduation_term}, "
            f"{format_credits(p.extra_units)} extra {credits_noun(p.extra_units)}"
            for p in later
        ]
    never = [p for p in report.delayed if p.status == "infeasible"]
    if never:
        lines += ["", "No plan with the baseline programs:"]
        lines += [f"  {p.code:<10} {p.kind:<13} {'; '.join(p.reasons)}" for p in never]
    if report.skipped:
        lines += ["", "Not planned:"]
        lines += [f"  {s.code:<10} {s.kind:<13} {s.reason}" for s in report.skipped]
    return "\n".join(lines)


def _needed_lines(p: CloseProgram) -> list[str]:
    from agents.catalog import credits_text

    if not p.courses:
        return ["       nothing left to take: the record already meets it"]
    return [
        f"       {n.term}  {n.course} {n.title} ({credits_text(n.units)}): {', '.join(n.fills)}"
        for n in p.courses
    ]

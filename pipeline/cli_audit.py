"""The ``advise audit`` command: a student's degree audit as text or JSON, with what-if
programs (``--add-program``) and proposed advisor exceptions (``--exception``)."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.cli_common import EXIT_OK, Formatter

if TYPE_CHECKING:
    from agents.audit import AuditReport


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
        "examples:\n  advise audit demos/students/is-junior-cs-minor.json\n"
        "  advise audit demos/students/is-junior-cs-minor.json --add-program CS-MIN --json\n"
        "  advise audit demos/students/is-senior.json --exception demos/exceptions/is-senior.json\n"
        "  advise audit demos/students/is-senior.json --add-program CS-MIN --html -o audit.html",
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
    p.add_argument("--catalog", help="catalog JSON file (default: the bundled sample)")
    shape = p.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="print the audit as JSON")
    shape.add_argument(
        "--html", action="store_true", help="the audit worksheet as a self-contained HTML page"
    )
    shape.add_argument("--md", action="store_true", help="the audit worksheet as Markdown")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    p.add_argument(
        "--templates", metavar="DIR", help="directory of templates overriding the shipped ones"
    )
    p.set_defaults(handler=_cmd_audit)


def _cmd_audit(args: argparse.Namespace) -> int:
    from agents.audit import audit, render_audit
    from agents.catalog import (
        check_student_against_catalog,
        load_catalog,
        load_student,
        use_catalog,
    )
    from agents.catalog.exceptions import load_exceptions, use_of
    from agents.catalog.lookup import resolve_program
    from agents.errors import StudentRecordError
    from agents.reports import check_templates, use_templates
    from agents.worksheet import worksheet_html, worksheet_markdown, worksheet_view
    from pipeline.store import atomic_write

    cat = load_catalog(args.catalog)
    student = load_student(args.student, calendar=cat.calendar)
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
        if args.json:
            text = json.dumps(report.model_dump(mode="json"), indent=2, sort_keys=True) + "\n"
        elif args.html or args.md:
            changes = changed_requirements(was, report) if was is not None else []
            view = worksheet_view(cat, student, report, changes)
            text = worksheet_html(view) if args.html else worksheet_markdown(view)
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

"""The ``advise audit`` command: a student's degree audit as text or JSON, with what-if
programs (``--add-program``) and proposed advisor exceptions (``--exception``)."""

from __future__ import annotations

import argparse
import json
from datetime import date
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
        "  advise audit demos/students/is-senior.json --exception demos/exceptions/is-senior.json",
    )
    p.add_argument("student", help="student record JSON file")
    p.add_argument(
        "--add-program",
        action="append",
        default=[],
        metavar="CODE",
        help="what-if: audit this program too (repeatable)",
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
    p.add_argument("--json", action="store_true", help="print the audit as JSON")
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
    from agents.errors import StudentRecordError

    cat = load_catalog(args.catalog)
    student = load_student(args.student)
    problems = check_student_against_catalog(student, cat)
    if problems:
        raise StudentRecordError(args.student, problems)
    before = student
    for path in args.exception:
        student = student.with_exceptions(load_exceptions(path))
    day = args.as_of or date.today()
    student, expired = student.split_expired(day)
    before, _ = before.split_expired(day)
    with use_catalog(cat):
        report = audit(cat, student, add_programs=args.add_program)
        gone = [use_of(e, "expired", f"expired on {e.expires} (judged on {day})") for e in expired]
        report = report.model_copy(update={"exceptions": [*report.exceptions, *gone]})
        if args.json:
            print(json.dumps(report.model_dump(mode="json"), indent=2, sort_keys=True))
            return EXIT_OK
        print(render_audit(report))
        if args.exception:
            was = audit(cat, before, add_programs=args.add_program)
            print(what_changes(was, report))
    return EXIT_OK


def what_changes(before: AuditReport, after: AuditReport) -> str:
    """The requirements whose status the proposed exceptions change, as text."""

    from agents.audit import iter_nodes

    def statuses(report: AuditReport) -> dict[tuple[str, str], tuple[str, str]]:
        return {(c, n.id): (n.status, n.title or n.id) for c, n in iter_nodes(report)}

    old, new = statuses(before), statuses(after)
    lines = [
        f"  {code} {title}: {old[key][0].replace('_', ' ')} -> {status.replace('_', ' ')}"
        for key, (status, title) in new.items()
        if (code := key[0]) and key in old and old[key][0] != status
    ]
    head = "What the proposed exceptions change:"
    if not lines:
        return f"{head}\n  no requirement changes status"
    return head + "\n" + "\n".join(lines)

"""The ``advise student`` commands: ``import`` makes a student record JSON file from a
transcript (PESC College Transcript XML, or CSV), checked against the catalog."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.cli_common import EXIT_FAILED, EXIT_OK, Formatter
from pipeline.config import add_settings

if TYPE_CHECKING:
    from agents.catalog.transcript_import import ImportResult

IMPORT_HELP = """\
Make a student record JSON file ('advise audit' and 'advise run' read it) from a transcript.
Course codes must be the catalog's (case, spaces and hyphens ignored), grades in its grade
scale, terms readable by its calendar ('F2024', 'Fall 2024' or a date such as '2024-09').
A course with a value that does not fit is reported with its line (and, in XML, its element
path) and left out - never guessed; the closest course codes are suggested.

PESC XML (CollegeTranscript, any namespace prefixes): the id, name, programs, GPA, terms,
courses, AP/transfer/exam credit (CourseCreditBasis) and courses in progress
(CourseInProgressIndicator) come from the file. A DOCTYPE is refused.

CSV: UTF-8, a header naming the columns term, course, grade, credits, and optionally
source (institution - the default -, transfer, ap or exam) and title (not checked). A
blank or IP grade means in progress, blank credits the catalog's units, a blank term (on
transfer/AP/exam lines only) the start term. Give the student with --id, --name, --program.

The options override the transcript. Not given, each is derived and the derivation listed:
start term = the earliest term of a course taken here; current term = the latest term with
courses in progress, else the latest term; catalog year = the academic year of the start
term. Credits that differ from the catalog's units are kept as the attempt's units, noted.

exit codes:
  0  the record was written and nothing was left out
  1  the record was written, but something on the transcript was left out (listed on
     stderr: the line, where, the value and why)
  2  no record: the file cannot be used (empty, not XML, a DOCTYPE, not a PESC
     CollegeTranscript, no CSV header or a missing column) or a fact is missing (--id,
     --name, --program, --start-term); the message says which and how to fix it

examples:
  advise student import demos/transcripts/cs-junior-ap.xml -o student.json
  advise student import demos/transcripts/stat-transfer.xml --program STAT-BS -o aisha.json
  advise student import demos/transcripts/econ-junior.csv --id NIT-2024-0733 --name "Priya Raman" --program ECON-BA --program PHIL-MIN -o priya.json
  advise student import demos/transcripts/hb-major-minor.csv --catalog demos/harrow-bay --id HB-25-0198 --name "Noor Haddad" --program ECON-BA --program DATA-MIN"""  # noqa: E501


def add_student(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "student",
        help="make student records: import a transcript",
        formatter_class=Formatter,
        description="Make student record files.\n\nexamples:\n"
        "  advise student import demos/transcripts/cs-junior-ap.xml -o student.json",
    )
    ssub = p.add_subparsers(dest="student_cmd", required=True, metavar="{import}")
    i = ssub.add_parser(
        "import",
        help="a student record from a PESC XML or CSV transcript",
        formatter_class=Formatter,
        description=IMPORT_HELP,
    )
    i.add_argument("transcript", metavar="FILE", help="the transcript: PESC XML or CSV")
    i.add_argument(
        "--format",
        choices=("pesc", "csv"),
        help="pesc (College Transcript XML) or csv (default: from the suffix, .xml or .csv)",
    )
    i.add_argument(
        "-o", "--output", metavar="FILE", help="write the record here (default: print it)"
    )
    i.add_argument("--id", help="student id (CSV: required; PESC: overrides the file's)")
    i.add_argument("--name", help="student name (CSV: required; PESC: overrides the file's)")
    i.add_argument(
        "--program",
        action="append",
        default=[],
        metavar="CODE",
        help="declared program - a code, name or alias (repeatable; CSV: required)",
    )
    i.add_argument("--catalog-year", metavar="YEAR", help="catalog year, e.g. 2026-2027")
    i.add_argument("--start-term", metavar="TERM", help="first term enrolled, e.g. F2024")
    i.add_argument("--current-term", metavar="TERM", help="term in progress now, e.g. F2026")
    i.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: the output file (or the record), the summary, what was "
        "derived, notes and what was left out",
    )
    add_settings(i, ("catalog",))
    i.set_defaults(handler=_cmd_import)


def _cmd_import(args: argparse.Namespace) -> int:
    from agents.catalog import load_catalog
    from agents.catalog.transcript_import import StudentFacts, import_transcript, record_json
    from agents.files import atomic_write

    catalog = load_catalog(args.catalog)
    facts = StudentFacts(
        id=args.id,
        name=args.name,
        programs=tuple(args.program),
        catalog_year=args.catalog_year,
        start_term=args.start_term,
        current_term=args.current_term,
    )
    result = import_transcript(args.transcript, catalog, facts, args.format)
    text = record_json(result.record)
    if args.json:
        return _print_json(args, result, text)
    report = sys.stdout
    if args.output:
        atomic_write(Path(args.output), text.encode("utf-8"))  # StorageError: exit 5
        print(f"wrote {args.output}: {summary(result)}")
    else:
        sys.stdout.write(text)
        report = sys.stderr
        print(summary(result), file=report)
    for line in result.derived:
        print(f"derived: {line}", file=report)
    for line in result.notes:
        print(f"note: {line}", file=report)
    if result.clean:
        return EXIT_OK
    print(f"left out ({len(result.problems)}):", file=sys.stderr)
    for problem in result.problems:
        print(f"  {problem}", file=sys.stderr)
    print(
        "the record holds everything else; fix the transcript (or pass the catalog it was "
        "written for) and import it again",
        file=sys.stderr,
    )
    return EXIT_FAILED


def _print_json(args: argparse.Namespace, result: ImportResult, text: str) -> int:
    """``--json``: one object on stdout (the record itself when no ``-o`` is given)."""
    import json

    from agents.files import atomic_write

    if args.output:
        atomic_write(Path(args.output), text.encode("utf-8"))
    out = {
        "output": args.output,
        "record": None if args.output else json.loads(text),
        "summary": summary(result),
        "derived": list(result.derived),
        "notes": list(result.notes),
        "left_out": [str(p) for p in result.problems],
        "clean": result.clean,
    }
    print(json.dumps(out))
    return EXIT_OK if result.clean else EXIT_FAILED


def summary(result: ImportResult) -> str:
    """'NIT-2024-0412 (Jordan Okafor), CS-BS: 25 courses (2 transfer/AP/exam, 4 in
    progress), F2024 to F2026'."""
    r = result.record
    credited = sum(a.source != "institution" for a in r.courses)
    taking = sum(a.status == "in_progress" for a in r.courses)
    courses = "1 course" if len(r.courses) == 1 else f"{len(r.courses)} courses"
    return (
        f"{r.id} ({r.name}), {', '.join(r.programs)}: {courses} ({credited} transfer/AP/exam, "
        f"{taking} in progress), {r.start_term} to {r.current_term}"
    )

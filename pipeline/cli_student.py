"""The ``advise student`` commands: ``import`` makes a student record JSON file from a
transcript (PESC College Transcript XML, or CSV), checked against the catalog."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.cli_common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, Formatter
from pipeline.config import add_settings

if TYPE_CHECKING:
    from agents.catalog.transcript_import import ImportResult

IMPORT_HELP = """\
Make a student record JSON file ('advise audit' and 'advise run' read it) from a transcript.
Course codes must be the catalog's (case, spaces and hyphens ignored), grades in its grade
scale, terms readable by its calendar ('F2024', 'Fall 2024' or a date such as '2024-09').
A course with a value that does not fit is reported with its line (and, in XML, its element
path) and left out - never guessed; the closest course codes are suggested.

PESC XML (CollegeTranscript, any namespace prefixes): the id, name, programs (by
AcademicProgramName, else AcademicProgramCode), GPA, terms (by the sessions' dates when
given, else their names), courses, AP/transfer/exam credit (CourseCreditBasis), credit
units (CourseCreditUnits, converted by the catalog's credit_conversion) and courses in
progress (CourseInProgressIndicator) come from the file. A DOCTYPE is refused. Every
element not read is listed under 'not used', with why.

CSV: UTF-8, a header naming the columns term, course, grade, credits, and optionally
source (institution - the default -, transfer, ap or exam), title (not checked),
institution (the other school of a transfer line), student_id, student_name and programs
(';'-separated). A blank or IP grade means in progress, blank credits the catalog's
units, a blank term (on transfer/AP/exam lines only) the start term. Without the student
columns give the student with --id, --name, --program. A file of several students
(student_id) writes one record per student into the directory -o names: DIR/<id>.json.

--transfer-table FILE: a CSV of institution, course, local_course (a catalog course or
'elective') and optionally units; every course of another school (PESC: a later
AcademicRecord's School; CSV: the institution column) becomes its local course, or is
reported when the table has no row for it.

The options override the transcript. Not given, each is derived and the derivation listed:
start term = the earliest term of a course taken here; current term = the latest term with
courses in progress, else the latest term; catalog year = the academic year of the start
term. Credits that differ from the catalog's units are kept as the attempt's units, noted.

exit codes (a file of several students: the worst of its students'):
  0  the record was written and nothing was left out
  1  the record was written, but something on the transcript was left out (listed on
     stderr: the line, where, the value and why)
  2  no record: the file cannot be used (empty, not XML, a DOCTYPE, not a PESC
     CollegeTranscript, no CSV header or a missing column, a bad transfer table) or a
     fact is missing (--id, --name, --program, --start-term); the message says which and
     how to fix it

examples:
  advise student import demos/transcripts/cs-junior-ap.xml -o student.json
  advise student import demos/transcripts/stat-transfer.xml --program STAT-BS -o aisha.json
  advise student import demos/transcripts/econ-junior.csv --id NIT-2024-0733 --name "Priya Raman" --program ECON-BA --program PHIL-MIN -o priya.json
  advise student import demos/transcripts/hb-major-minor.csv --catalog demos/harrow-bay --id HB-25-0198 --name "Noor Haddad" --program ECON-BA --program DATA-MIN
  advise student import demos/transcripts/advising-office.csv --transfer-table demos/transcripts/transfer-equivalencies.csv -o records/"""  # noqa: E501


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
        "-o",
        "--output",
        metavar="FILE",
        help="write the record here (default: print it); a file of several students: the "
        "directory to write DIR/<id>.json in",
    )
    i.add_argument(
        "--transfer-table",
        metavar="CSV",
        help="transfer equivalency table: institution, course, local_course, units",
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
        "derived, notes, what was not used and what was left out; several students: "
        '{"students": [...]}, one entry each',
    )
    add_settings(i, ("catalog",))
    i.set_defaults(handler=_cmd_import)


def _cmd_import(args: argparse.Namespace) -> int:
    from agents.catalog import load_catalog
    from agents.catalog.transcript_import import StudentFacts, import_transcripts
    from agents.catalog.transcript_transfer import load_transfer_table

    catalog = load_catalog(args.catalog)
    facts = StudentFacts(
        id=args.id,
        name=args.name,
        programs=tuple(args.program),
        catalog_year=args.catalog_year,
        start_term=args.start_term,
        current_term=args.current_term,
    )
    table = load_transfer_table(args.transfer_table, catalog) if args.transfer_table else None
    results = import_transcripts(args.transcript, catalog, facts, args.format, table)
    if len(results) == 1:
        outcome = results[0][1]
        if isinstance(outcome, Exception):
            raise outcome
        output = Path(args.output) if args.output else None
        if args.json:
            entry, code = _json_entry(outcome, output)
            print(json.dumps(entry))
            return code
        return _write_one(outcome, output, "")
    if not args.output:
        print(
            f"error: {args.transcript} holds {len(results)} students; pass -o DIR to write "
            "one record per student (DIR/<id>.json)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    return _write_many(results, Path(args.output), args.json)


def _write_many(
    results: Sequence[tuple[str, ImportResult | Exception]], folder: Path, as_json: bool
) -> int:
    """One record per student in ``folder``; a student without a record is reported and
    the others written. The exit code is the worst student's. ``as_json``: one object on
    stdout, ``{"students": [...]}``, an entry per student (``_json_entry``, or its
    ``problems`` when it got no record)."""
    from pipeline.errors import UnsafeRequestIdError
    from pipeline.store import check_request_id

    if folder.exists() and not folder.is_dir():
        print(f"error: {folder} is a file; -o names a directory for several students",
              file=sys.stderr)  # fmt: skip
        return EXIT_USAGE
    folder.mkdir(parents=True, exist_ok=True)
    worst = EXIT_OK
    entries: list[dict[str, object]] = []
    for label, outcome in results:
        if isinstance(outcome, Exception):
            problems = getattr(outcome, "problems", [str(outcome)])
            entries.append({"student": label, "problems": [str(p) for p in problems]})
            print(f"{label}: no record ({len(problems)} problem(s)):", file=sys.stderr)
            for problem in problems:
                print(f"  {problem}", file=sys.stderr)
            worst = max(worst, EXIT_USAGE)
            continue
        try:
            name = check_request_id(outcome.record.id)
        except UnsafeRequestIdError:
            why = (f"the id {outcome.record.id!r} is not a safe file name (letters, digits, "
                   "'.', '_', '-'); fix the student_id")  # fmt: skip
            entries.append({"student": label, "problems": [why]})
            print(f"{label}: no record: {why}", file=sys.stderr)
            worst = max(worst, EXIT_USAGE)
            continue
        if as_json:
            entry, code = _json_entry(outcome, folder / f"{name}.json")
            entries.append({"student": label, **entry})
        else:
            code = _write_one(outcome, folder / f"{name}.json", f"{label}: ")
        worst = max(worst, code)
    if as_json:
        print(json.dumps({"students": entries}))
    return worst


def _write_one(result: ImportResult, output: Path | None, prefix: str) -> int:
    from agents.catalog.transcript_import import record_json
    from agents.files import atomic_write

    text = record_json(result.record)
    report = sys.stdout
    if output is not None:
        atomic_write(output, text.encode("utf-8"))  # StorageError: exit 5
        print(f"wrote {output}: {summary(result)}")
    else:
        sys.stdout.write(text)
        report = sys.stderr
        print(summary(result), file=report)
    for line in result.derived:
        print(f"{prefix}derived: {line}", file=report)
    for line in result.notes:
        print(f"{prefix}note: {line}", file=report)
    if result.ignored:
        print(f"{prefix}not used ({len(result.ignored)}):", file=report)
        for line in result.ignored:
            print(f"  {line}", file=report)
    if result.clean:
        return EXIT_OK
    print(f"{prefix}left out ({len(result.problems)}):", file=sys.stderr)
    for problem in result.problems:
        print(f"  {problem}", file=sys.stderr)
    print(
        f"{prefix}the record holds everything else; fix the transcript (or pass the catalog it "
        "was written for) and import it again",
        file=sys.stderr,
    )
    return EXIT_FAILED


def _json_entry(result: ImportResult, output: Path | None) -> tuple[dict[str, object], int]:
    """``--json``: what one student's import gave (the record itself when no ``-o`` is
    given; else it is written there), and the exit code."""
    from agents.catalog.transcript_import import record_json
    from agents.files import atomic_write

    text = record_json(result.record)
    if output is not None:
        atomic_write(output, text.encode("utf-8"))  # StorageError: exit 5
    entry: dict[str, object] = {
        "output": str(output) if output is not None else None,
        "record": None if output is not None else json.loads(text),
        "summary": summary(result),
        "derived": list(result.derived),
        "notes": list(result.notes),
        "not_used": list(result.ignored),
        "left_out": [str(p) for p in result.problems],
        "clean": result.clean,
    }
    return entry, EXIT_OK if result.clean else EXIT_FAILED


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

"""``courses.csv`` (one row per course) and ``sections.csv`` (one row per meeting).

Rows of ``sections.csv`` with the same course, term and section form one section; each
row adds a meeting (a row with empty days, start and end adds none). Row order is kept:
courses in the order of their rows, a course's sections in the order they first appear,
a section's meetings in row order.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agents.catalog.authoring.csvfiles import (
    Cell,
    Row,
    read_choice,
    read_integer,
    read_list,
    read_number,
    read_rows,
)
from agents.catalog.authoring.sourcemap import SourceMap
from agents.catalog.codes import CodeIndex, code_key, code_problem, same_code
from agents.catalog.prereq import STANDINGS
from agents.catalog.prereq_parse import parse_prereq
from agents.catalog.session_offerings import offering_problem
from agents.catalog.terms import Calendar
from agents.errors import PrereqSyntaxError, TermError

COURSE_COLUMNS = (
    "code",
    "title",
    "units",
    "department",
    "subject",
    "level",
    "description",
    "attributes",
    "offered_terms",
    "offered_years",
    "offered_only",
    "offered_last",
    "prerequisites",
    "corequisites",
    "antirequisites",
    "repeatable",
    "grading",
    "free_elective",
    "restricted_to",
    "open_to_programs",
    "closed_to_programs",
    "status",
    "last_offered",
)
COURSE_REQUIRED = ("code", "title", "units", "department", "level", "offered_terms")
SECTION_COLUMNS = (
    "course",
    "term",
    "section",
    "days",
    "start",
    "end",
    "location",
    "instructor",
    "capacity",
)
SECTION_REQUIRED = ("course", "term", "section")

YEARS = ("every", "odd", "even")
GRADING = ("graded", "pass_fail_allowed", "pass_fail_only")
STATUSES = ("active", "dormant", "retired")
_YES = {"yes": True, "true": True, "y": True, "no": False, "false": False, "n": False}
_DAYS_RE = re.compile(r"^[MTWRFSU]+$")
_TIME_RE = re.compile(r"^([01]?[0-9]|2[0-3]):([0-5][0-9])$")
EXPRESSION_HINT = "write an expression such as '15-112 and (21-127 or 21-128[C])'"
UNKNOWN_HINT = "add the course to courses.csv or correct the code"


def read_prereq(cell: Cell, problems: list[str], codes: CodeIndex | None = None) -> Any:
    """An expression (kept as text; the loader parses it, against the catalog's ``codes``)
    or a JSON tree for trees the expression syntax cannot say; None when the cell is
    empty."""
    text = cell.text.strip()
    if not text:
        return None
    if text.startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            problems.append(
                f"{cell.where}: {text!r} is not valid JSON ({exc.msg} at character "
                f"{exc.colno}) - {EXPRESSION_HINT}"
            )
            return None
    try:
        parse_prereq(text, codes)
    except PrereqSyntaxError as exc:
        hint = UNKNOWN_HINT if exc.reason.startswith("unknown course") else EXPRESSION_HINT
        problems.append(
            f"{cell.where}: {text!r} has an error at character {exc.column}: {exc.reason} - {hint}"
        )
        return None
    return text


def _course(
    row: Row, index: int, calendar: Calendar, codes: CodeIndex, smap: SourceMap, problems: list[str]
) -> dict[str, Any]:
    at: tuple[str | int, ...] = ("courses", index)
    smap.add(at, row.where)
    for column in COURSE_COLUMNS:
        smap.add((*at, column), row.cell(column).where)
    smap.add((*at, "offered", "terms"), row.cell("offered_terms").where)
    smap.add((*at, "offered", "years"), row.cell("offered_years").where)
    smap.add((*at, "offered", "only_in"), row.cell("offered_only").where)
    smap.add((*at, "offered", "last_run"), row.cell("offered_last").where)

    code = row.cells["code"].strip()
    if (why := code_problem(code)) is not None:
        problems.append(f"{row.cell('code').where}: {code!r} is not a course code: it {why}")
    course: dict[str, Any] = {
        "code": code,
        "title": row.cells["title"],
        "units": read_number(row.cell("units"), "units", problems),
        "department": row.cells["department"],
        "level": read_integer(row.cell("level"), "the level", "100 or 300", problems),
    }
    if subject := row.cells.get("subject", "").strip():
        course["subject"] = subject
    if row.cells.get("description"):
        course["description"] = row.cells["description"]
    if attributes := read_list(row.cell("attributes")):
        course["attributes"] = attributes
    terms = []
    for term in read_list(row.cell("offered_terms")) or [""]:
        if calendar.kind_code(term) is None:
            kinds = [k.name.lower() for k in calendar.terms]
            problems.append(
                f"{row.cell('offered_terms').where}: {term!r} is not a kind of term of the "
                f"calendar - write kinds from {', '.join(kinds)} (or their codes) separated "
                f"by ';', e.g. '{';'.join(kinds[-1:] + kinds[:1])}'"
            )
        elif (why := offering_problem(calendar, term)) is not None:
            problems.append(f"{row.cell('offered_terms').where}: {why}")
        terms.append(term)
    offered: dict[str, Any] = {"terms": terms}
    if row.cells.get("offered_years", "").strip():
        offered["years"] = read_choice(row.cell("offered_years"), YEARS, "a year pattern", problems)
    if only := read_list(row.cell("offered_only")):
        for text in only:
            try:
                calendar.parse(text)
            except TermError:
                problems.append(
                    f"{row.cell('offered_only').where}: {text!r} is not a term of the calendar "
                    f"- write term codes such as {calendar.examples()} separated by ';'"
                )
        offered["only_in"] = [calendar.parse(t).code if _parses(calendar, t) else t for t in only]
    if last := read_list(row.cell("offered_last")):
        for text in last:
            if not _parses(calendar, text):
                problems.append(
                    f"{row.cell('offered_last').where}: {text!r} is not a term of the calendar "
                    f"- write the last run of each kind as term codes such as "
                    f"{calendar.examples()} separated by ';'"
                )
        offered["last_run"] = [calendar.parse(t).code if _parses(calendar, t) else t for t in last]
    course["offered"] = offered
    for field in ("prerequisites", "corequisites"):
        tree = read_prereq(row.cell(field), problems, codes)
        if tree is not None:
            course[field] = tree
    if antirequisites := read_list(row.cell("antirequisites")):
        course["antirequisites"] = antirequisites
    for column, yes in (
        ("repeatable", "the course may be taken again for credit"),
        ("free_elective", "a planner may add the course to make up units (no for a practicum, "
         "internship or independent study)"),
    ):  # fmt: skip
        if (flag := _yes_no(row.cell(column), yes, problems)) is not None:
            course[column] = flag
    if row.cells.get("grading", "").strip():
        course["grading"] = read_choice(row.cell("grading"), GRADING, "a grading option", problems)
    for column in ("open_to_programs", "closed_to_programs"):
        if programs := read_list(row.cell(column)):
            course[column] = programs
    if standings := read_list(row.cell("restricted_to")):
        bad = [s for s in standings if s not in STANDINGS]
        if bad:
            problems.append(
                f"{row.cell('restricted_to').where}: {';'.join(bad)!r} is not a class standing "
                f"- write standings from {', '.join(STANDINGS)} separated by ';'"
            )
        course["restricted_to"] = standings
    if row.cells.get("status", "").strip():
        course["status"] = read_choice(row.cell("status"), STATUSES, "a course status", problems)
    if text := row.cells.get("last_offered", "").strip():
        if not _parses(calendar, text):
            problems.append(
                f"{row.cell('last_offered').where}: {text!r} is not a term of the calendar - "
                f"write the last term the course ran as a code such as {calendar.examples()}"
            )
        course["last_offered"] = calendar.parse(text).code if _parses(calendar, text) else text
    return course


def _yes_no(cell: Cell, yes: str, problems: list[str]) -> bool | None:
    """A yes/no cell (None when blank or unreadable: the model's default holds)."""
    text = cell.text.strip()
    if not text:
        return None
    if text.lower() not in _YES:
        problems.append(
            f"{cell.where}: {text!r} is not yes or no - write yes if {yes}, no or nothing otherwise"
        )
        return None
    return _YES[text.lower()]


def _parses(calendar: Calendar, text: str) -> bool:
    try:
        calendar.parse(text)
    except TermError:
        return False
    return True


def read_courses(
    path: Path, calendar: Calendar, smap: SourceMap, problems: list[str]
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The courses of ``courses.csv`` and each code's index in the list (-1 for the code of
    a row that could not be read)."""
    rows = read_rows(path, "courses.csv", COURSE_COLUMNS, COURSE_REQUIRED, problems)
    courses: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    first_line: dict[str, tuple[str, int]] = {}  # by code_key: the code and its line
    # Expressions are read against every code of the file, rows below included.
    codes = CodeIndex(row.cells.get("code", "").strip() for row in rows if not row.broken)
    for row in rows:
        if row.broken:
            index[row.cells.get("code", "").strip()] = -1  # reported; sections skip it
            continue
        course = _course(row, len(courses), calendar, codes, smap, problems)
        code = course["code"]
        first, line = first_line.get(code_key(code), (code, 0))
        if line and first == code:
            problems.append(
                f"{row.cell('code').where}: {code!r} is already on line {line} - "
                "give each course one row (its sections go in sections.csv)"
            )
            continue
        if line:
            problems.append(
                f"{row.cell('code').where}: {code!r} is {same_code(first)} (line {line}); "
                "lookups could not tell them apart - give one of the two courses another code"
            )
            continue
        first_line[code_key(code)] = (code, row.line)
        index[code] = len(courses)
        courses.append(course)
    return courses, index


def _meeting(row: Row, at: tuple[str | int, ...], smap: SourceMap, problems: list[str]) -> Any:
    smap.add(at, row.where)
    for column in ("days", "start", "end", "location"):
        smap.add((*at, column), row.cell(column).where)
    days = row.cells.get("days", "").strip()
    if not _DAYS_RE.match(days):
        problems.append(
            f"{row.cell('days').where}: {days!r} is not a set of days - write letters from "
            "M T W R(Thursday) F S(Saturday) U(Sunday), e.g. 'MWF' or 'TR'"
        )
    meeting: dict[str, Any] = {"days": days}
    for column in ("start", "end"):
        text = row.cells.get(column, "").strip()
        m = _TIME_RE.match(text)
        if m is None:
            problems.append(
                f"{row.cell(column).where}: {text!r} is not a time - write 24-hour times such "
                "as '09:00' or '13:30'"
            )
        meeting[column] = f"{int(m.group(1)):02d}:{m.group(2)}" if m else text
    if row.cells.get("location"):
        meeting["location"] = row.cells["location"]
    return meeting


def _section_value(
    section: dict[str, Any],
    lines: dict[str, int],
    field: str,
    value: Any,
    row: Row,
    column: str,
    problems: list[str],
) -> None:
    """Instructor and capacity belong to the section: given once, or the same on each row."""
    if field not in section:
        section[field] = value
        lines[field] = row.line
    elif section[field] != value:
        problems.append(
            f"{row.cell(column).where}: {row.cells[column]!r} differs from "
            f"{section[field]!r} on line {lines[field]} for the same section - give the same "
            "value on every row of a section, or leave it empty after the first"
        )


def read_sections(
    path: Path,
    courses: list[dict[str, Any]],
    index: dict[str, int],
    calendar: Calendar,
    smap: SourceMap,
    problems: list[str],
) -> None:
    """Add the sections of ``sections.csv`` to ``courses``."""
    rows = read_rows(path, "sections.csv", SECTION_COLUMNS, SECTION_REQUIRED, problems)
    found: dict[tuple[str, str, str], tuple[dict[str, Any], dict[str, int]]] = {}
    for row in rows:
        code = row.cells.get("course", "").strip()
        if row.broken or index.get(code) == -1:
            continue  # the row, or its course's row, is already reported
        if code not in index:
            problems.append(
                f"{row.cell('course').where}: {code!r} is not a course in courses.csv - add "
                "the course to courses.csv or correct the code"
            )
            continue
        term_text = row.cells["term"].strip()
        try:
            term = calendar.parse(term_text).code
        except TermError:
            problems.append(
                f"{row.cell('term').where}: {term_text!r} is not a term of the calendar - "
                f"write a term code such as {calendar.examples()}"
            )
            continue
        sid = row.cells["section"].strip()
        if not sid:
            problems.append(
                f"{row.cell('section').where}: the section id is empty - write one such as 'A'"
            )
            continue
        ci = index[code]
        sections = courses[ci].setdefault("sections", [])
        key = (code, term, sid)
        if key not in found:
            at: tuple[str | int, ...] = ("courses", ci, "sections", len(sections))
            smap.add(at, row.where)
            smap.add((*at, "term"), row.cell("term").where)
            smap.add((*at, "id"), row.cell("section").where)
            found[key] = ({"term": term, "id": sid, "meetings": []}, {})
            sections.append(found[key][0])
        section, lines = found[key]
        at = ("courses", ci, "sections", sections.index(section))
        if any(row.cells.get(c, "").strip() for c in ("days", "start", "end")):
            k = len(section["meetings"])
            section["meetings"].append(_meeting(row, (*at, "meetings", k), smap, problems))
        if row.cells.get("instructor"):
            smap.add((*at, "instructor"), row.cell("instructor").where)
            _section_value(
                section, lines, "instructor", row.cells["instructor"], row, "instructor", problems
            )
        if row.cells.get("capacity", "").strip():
            smap.add((*at, "capacity"), row.cell("capacity").where)
            capacity = read_integer(row.cell("capacity"), "the capacity", "40", problems)
            _section_value(section, lines, "capacity", capacity, row, "capacity", problems)

"""A transfer equivalency table: another school's course -> a catalog course, or elective
credit. Applied on import to every course a transcript says was taken at another school.

The table is a UTF-8 CSV file with a header naming, in any order and case:

==============  ==================================================================
institution     the other school, as transcripts name it (PESC
                ``AcademicRecord/School/OrganizationName``; the CSV ``institution``
                column); case and spacing ignored
course          its course code there; case, spaces and hyphens ignored
local_course    the catalog course it counts as, or ``elective`` for elective credit
                that matches no catalog course
units           optional: the credits it counts for, in the catalog's unit; blank:
                the transcript's credits (converted), else the catalog course's
==============  ==================================================================

A row that does not fit (an unknown catalog course, bad units, an elective without units,
a course listed twice) is a ``StudentRecordError`` naming the file, line, column and value
with the fix: a table that is wrong would credit every student it touches wrongly, so it
is refused whole.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from agents.catalog.codes import code_key
from agents.catalog.credits import is_credit_value
from agents.catalog.limits import LIMITS, not_utf8, size_problem
from agents.catalog.lookup import resolve_course
from agents.catalog.model import Catalog
from agents.errors import StudentRecordError, UnknownCourseError

COLUMNS = ("institution", "course", "local_course")
OPTIONAL = ("units",)
ELECTIVE = "elective"


@dataclass(frozen=True)
class Equivalency:
    """One row: what another school's course counts as here."""

    institution: str
    course: str
    local: str | None  # a catalog course code; None: elective credit
    units: float | None
    line: int

    def shown(self, source: str) -> str:
        return f"{Path(source).name} line {self.line}"


@dataclass(frozen=True)
class TransferTable:
    """The rows of an equivalency table by (school, course), compared loosely."""

    source: str
    rows: dict[tuple[str, str], Equivalency]

    def find(self, institution: str, course: str) -> Equivalency | None:
        return self.rows.get((school_key(institution), code_key(course)))


def school_key(name: str) -> str:
    return " ".join(re.sub(r"[^\w ]", " ", name.casefold()).split())


def load_transfer_table(path: str | Path, catalog: Catalog) -> TransferTable:
    """The table at ``path``, checked against ``catalog``; a ``StudentRecordError`` listing
    every problem (file, line, column, value, fix) when it does not fit."""
    p, source = Path(path), str(path)
    too_big = size_problem(p, "transcript_bytes", "is this an equivalency table?")
    if too_big is not None:
        raise StudentRecordError(source, [too_big])
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise StudentRecordError(
            source, ["file not found; pass the path of a transfer equivalency CSV"]
        ) from None
    except OSError as exc:
        raise StudentRecordError(source, [f"cannot read: {exc.strerror or exc}"]) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line, what = not_utf8(data, exc)
        raise StudentRecordError(source, [f"line {line}: {what}; save the CSV as UTF-8"]) from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    problems: list[str] = []
    rows: dict[tuple[str, str], Equivalency] = {}
    columns: dict[str, int] | None = None
    try:
        for cells in reader:
            if not any(c.strip() for c in cells):
                continue
            line = reader.line_num
            if columns is None:
                columns = _header(cells, line, source)
                continue
            if len(rows) >= LIMITS["record_courses"].value:
                problems.append(f"line {line}: {LIMITS['record_courses'].past('split it')}")
                break
            row = _row(cells, columns, line, catalog, problems)
            if row is None:
                continue
            key = (school_key(row.institution), code_key(row.course))
            first = rows.setdefault(key, row)
            if first is not row:
                problems.append(
                    f"line {line}: {row.institution} {row.course} is listed twice (first at "
                    f"line {first.line}); keep one"
                )
    except csv.Error as exc:
        problems.append(f"line {reader.line_num}: not readable as CSV: {exc}; check its quotes")
    if columns is None:
        problems.append(f"the file is empty; an equivalency table starts with the header "
                        f"{','.join(COLUMNS + OPTIONAL)}")  # fmt: skip
    if problems:
        raise StudentRecordError(source, problems)
    return TransferTable(source, rows)


def _header(cells: list[str], line: int, source: str) -> dict[str, int]:
    names = [c.strip().casefold() for c in cells]
    problems = [
        f"line {line}: missing column {c!r}; the header names {', '.join(COLUMNS)} "
        f"(optional: {', '.join(OPTIONAL)})"
        for c in COLUMNS
        if c not in names
    ]
    problems += [
        f"line {line}: unknown column {cells[i].strip()!r}; rename or remove it"
        for i, n in enumerate(names)
        if n not in COLUMNS + OPTIONAL
    ]
    if problems:
        raise StudentRecordError(source, problems)
    return {n: i for i, n in enumerate(names)}


def _row(
    cells: list[str], columns: dict[str, int], line: int, catalog: Catalog, problems: list[str]
) -> Equivalency | None:
    if len(cells) != len(columns):
        problems.append(f"line {line}: {len(cells)} cells where the header has {len(columns)}")
        return None
    get = {name: cells[i].strip() for name, i in columns.items()}
    before = len(problems)
    for name in COLUMNS:
        if not get[name]:
            problems.append(f"line {line}, column {name}: empty; give a value")
    units: float | None = None
    if get.get("units"):
        try:
            value = Decimal(get["units"])
        except InvalidOperation:
            value = Decimal(-1)
        if not value.is_finite() or value <= 0 or not is_credit_value(float(value)):
            problems.append(
                f"line {line}, column units: {get['units']!r} is not a number of "
                f"{catalog.institution.unit_name} above 0 with at most two decimals"
            )
        else:
            units = float(value)
    local: str | None = None
    if get["local_course"].casefold() == ELECTIVE:
        if units is None and not get.get("units"):
            problems.append(
                f"line {line}, column units: elective credit needs its units; give them"
            )
    elif get["local_course"]:
        try:
            local = resolve_course(catalog, get["local_course"])
        except UnknownCourseError as exc:
            problems.append(f"line {line}, column local_course: {exc}, or write 'elective'")
    if len(problems) > before:
        return None
    return Equivalency(get["institution"], get["course"], local, units, line)

"""Reading a plain CSV transcript: one course per line under a header.

The file is UTF-8 (a byte-order mark is fine), comma-separated, with a header line naming
its columns in any order and case:

=========  ======================================================================
term       the term: a code ('F2024'), words ('Fall 2024') or a date ('2024-09');
           may be blank only on transfer/AP/exam lines (credited to the start term)
course     the catalog's course code; case, spaces and hyphens are ignored
grade      a grade of the catalog's scale; blank or 'IP' means in progress
credits    the course's credits as the transcript lists them; blank means the
           catalog's units
source     optional: institution (the default), transfer, ap or exam (PESC credit
           basis words such as AdvancedPlacement are accepted too)
title      optional, for the reader's eyes only: it is not checked (reported as not used)
institution  optional: the other school a transfer line was taken at, looked up in the
           transfer equivalency table (``--transfer-table``)
student_id   optional: the student the line belongs to - a file of several students
student_name optional: the student's name (the first given for a student is used)
programs   optional: the student's programs, codes or names separated by ';'
=========  ======================================================================

Blank lines are skipped. A file without the header or with unknown columns cannot be
used (``StudentRecordError``); a line with the wrong number of cells is reported and kept out.
Reading stops at the line past the courses a record may hold (``record_courses``; per
student with ``student_id``). Without the student columns the command line gives the id,
name and programs. With ``student_id``, ``read_csv_students`` gives one transcript per
student, in the order they first appear; lines with a blank id belong to no student and
make a transcript of their own (no id), whose problems name them.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from agents.catalog.limits import LIMITS, not_utf8
from agents.catalog.transcript import (
    IN_PROGRESS_GRADES,
    Cell,
    Problem,
    Transcript,
    TranscriptProgram,
)
from agents.catalog.transcript import TranscriptCourse as Course
from agents.errors import StudentRecordError

REQUIRED = ("term", "course", "grade", "credits")
STUDENT = ("student_id", "student_name", "programs")
OPTIONAL = ("source", "title", "institution", *STUDENT)
COLUMNS_HELP = (
    "term, course, grade, credits (optional: source, title, institution, student_id, "
    "student_name, programs)"
)


def read_csv(data: bytes, source: str) -> Transcript:
    """The transcript in CSV ``data`` (the bytes of file ``source``): the first student's
    when the file holds several (``read_csv_students`` reads them all)."""
    return read_csv_students(data, source)[0]


def read_csv_students(data: bytes, source: str) -> list[Transcript]:
    """The transcripts in CSV ``data``: one per ``student_id`` when the file has that
    column, else one."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line, what = not_utf8(data, exc)
        raise StudentRecordError(source, [f"line {line}: {what}; save the CSV as UTF-8"]) from None
    if not text.strip():
        raise StudentRecordError(
            source, [f"the file is empty; a CSV transcript starts with the header {_header()}"]
        )
    rows = csv.reader(io.StringIO(text, newline=""), strict=True)
    students: dict[str, _Student] = {}
    limit = LIMITS["record_courses"]
    header: list[str] | None = None
    columns: dict[str, int] = {}
    try:
        for cells in rows:
            if not any(c.strip() for c in cells):
                continue
            line = rows.line_num
            if header is None:
                header, columns = cells, _columns(cells, line, source)
                continue
            at = columns.get("student_id")
            key = cells[at].strip() if at is not None and at < len(cells) else ""
            if len(cells) != len(header):
                student = students.setdefault(key, _Student())
                student.problems.append(
                    Problem(line, "", f"{len(cells)} cells where the header has "
                            f"{len(header)}; the line is left out")
                )  # fmt: skip
                continue
            student = students.setdefault(key, _Student())
            student.add(cells, columns, line)
            if len(student.courses) > limit.value:  # stop reading: no record may hold them
                problem = limit.past("is this one student's transcript?")
                raise StudentRecordError(source, [f"line {line}: {problem}"])
    except csv.Error as exc:
        raise StudentRecordError(
            source, [f"line {rows.line_num}: not readable as CSV: {exc}; check its quotes"]
        ) from None
    if not students:
        return [Transcript(source, "csv", ignored=_ignored(columns))]
    return [s.transcript(source, key, columns) for key, s in students.items()]


@dataclass
class _Student:
    courses: list[Course] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    facts: dict[str, Cell] = field(default_factory=dict)  # the first of each student column

    def add(self, cells: list[str], columns: dict[str, int], line: int) -> None:
        self.courses.append(_course(cells, columns, line))
        for name in STUDENT[1:]:
            if name not in columns or not cells[columns[name]].strip():
                continue
            cell = Cell(cells[columns[name]].strip(), line, f"column {name}")
            first = self.facts.setdefault(name, cell)
            if first.value != cell.value:
                self.problems.append(
                    Problem.at(cell, f"{cell.value!r} differs from {first.value!r} at line "
                               f"{first.line}; the first is used")
                )  # fmt: skip

    def transcript(self, source: str, key: str, columns: dict[str, int]) -> Transcript:
        problems = list(self.problems)
        student_id = None
        if key:
            student_id = Cell(key, self.courses[0].at.line if self.courses else None,
                              "column student_id")  # fmt: skip
        elif "student_id" in columns:
            lines = ", ".join(str(c.at.line) for c in self.courses)
            problems.append(Problem(None, "column student_id", f"blank on line(s) {lines}: "
                                    "these lines belong to no student; fill it in"))  # fmt: skip
        programs: tuple[TranscriptProgram, ...] = ()
        if "programs" in self.facts:
            cell = self.facts["programs"]
            programs = tuple(
                TranscriptProgram(Cell(p.strip(), cell.line, cell.where))
                for p in cell.value.split(";")
                if p.strip()
            )
        return Transcript(
            source,
            "csv",
            courses=tuple(self.courses),
            student_id=student_id,
            name=self.facts.get("student_name"),
            programs=programs,
            problems=tuple(problems),
            ignored=_ignored(columns),
        )


def _ignored(columns: dict[str, int]) -> tuple[str, ...]:
    if "title" in columns:
        return ("column title: not checked - titles are the catalog's",)
    return ()


def _header() -> str:
    return ",".join(REQUIRED)


def _columns(header: list[str], line: int, source: str) -> dict[str, int]:
    """Column name -> index; a header that lacks a required column, names an unknown one
    or repeats one is a ``StudentRecordError``."""
    names = [h.strip().casefold() for h in header]
    if not set(REQUIRED) & set(names):
        shown = ",".join(header)
        raise StudentRecordError(
            source,
            [f"line {line}: no header: the first line must name the columns "
             f"{COLUMNS_HELP}; it reads {shown!r}"],
        )  # fmt: skip
    problems = []
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        noun = "column" if len(missing) == 1 else "columns"
        problems.append(
            f"line {line}: missing {noun} {', '.join(map(repr, missing))}; the header must "
            f"name {COLUMNS_HELP}"
        )
    for i, name in enumerate(names):
        if name not in REQUIRED + OPTIONAL:
            problems.append(
                f"line {line}: unknown column {header[i].strip()!r}; the columns are "
                f"{COLUMNS_HELP} - rename or remove it"
            )
        elif names.index(name) != i:
            problems.append(f"line {line}: column {name!r} is named twice; keep one")
    if problems:
        raise StudentRecordError(source, problems)
    return {name: i for i, name in enumerate(names)}


def _course(cells: list[str], columns: dict[str, int], line: int) -> Course:
    def cell(name: str) -> Cell | None:
        i = columns.get(name)
        if i is None:
            return None
        return Cell(cells[i].strip(), line, f"column {name}")

    term, code, grade, credits = (cell(name) for name in REQUIRED)
    assert code is not None and term is not None and grade is not None
    source, school = cell("source"), cell("institution")
    return Course(
        code=code,
        terms=(term,) if term.value else (),
        grade=grade,
        credits=credits if credits is not None and credits.value else None,
        source=source if source is not None and source.value else None,
        in_progress=grade.value.upper() in IN_PROGRESS_GRADES,
        at=Cell(",".join(cells), line, ""),
        institution=school if school is not None and school.value else None,
    )

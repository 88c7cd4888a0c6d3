"""Transcripts as read from a file, before they are checked against a catalog.

A reader (``agents.catalog.transcript_pesc`` for PESC College Transcript XML,
``agents.catalog.transcript_csv`` for plain CSV) turns a file into a ``Transcript``: the
student facts it carries and one ``TranscriptCourse`` per course line, every value a
``Cell`` that remembers where it stood (CSV line and column, or XML line and element
path). ``agents.catalog.transcript_import`` checks the cells against the catalog and builds
the student record; every value it cannot use becomes a ``Problem`` at that cell, and the
course is kept out - never guessed.

A file that cannot be used at all (empty, not XML, a DOCTYPE, the wrong root element, no
CSV header) raises ``StudentRecordError`` - no student record can be made from it - with
one problem naming the line and the fix.

This module also holds what both formats share: the words for where credit came from
(``SOURCE_WORDS``), the grades that mean a course is in progress, and reading a term from
a code, words or a ``YYYY-MM`` date designator with the catalog's calendar.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agents.catalog.limits import size_problem
from agents.catalog.student import AttemptSource
from agents.catalog.terms import Calendar, Term
from agents.errors import StudentRecordError, TermError

TranscriptFormat = Literal["pesc", "csv"]
FORMATS: tuple[TranscriptFormat, ...] = ("pesc", "csv")

SOURCE_WORDS: dict[str, AttemptSource] = {
    "institution": "institution",
    "regular": "institution",
    "regularenrollment": "institution",
    "transfer": "transfer",
    "transfercredit": "transfer",
    "advancedstanding": "transfer",
    "highschooldualcredit": "transfer",
    "military": "transfer",
    "ap": "ap",
    "advancedplacement": "ap",
    "exam": "exam",
    "byexam": "exam",
    "creditbyexam": "exam",
    "ib": "exam",
    "internationalbaccalaureate": "exam",
}
"""Where credit came from, as a transcript writes it (compared ignoring case, spaces and
punctuation): the record's own words, and PESC ``CourseCreditBasis`` values. A PESC basis
not listed here (HighSchoolCreditOnly, Remedial, Exemption ...) earns no degree credit the
record can hold, so such a course is reported and kept out."""

SOURCE_HELP = (
    "institution, transfer, ap or exam, or a PESC CourseCreditBasis: Regular, "
    "RegularEnrollment, TransferCredit, AdvancedStanding, HighSchoolDualCredit, Military, "
    "AdvancedPlacement, ByExam, CreditByExam, InternationalBaccalaureate"
)

IN_PROGRESS_GRADES = frozenset({"", "IP"})
"""Grades that mean 'being taken now' (no grade yet)."""

PASS_FAIL_GRADES = frozenset({"P", "NP", "S", "U", "CR", "NC"})
"""Grades given only to courses taken pass/fail; those of the catalog's scale set
``CourseAttempt.pass_fail``."""

_TERM_WORDS = ("semester", "quarter", "trimester", "term", "session")
_DESIGNATOR = re.compile(r"^([0-9]{4})-([0-9]{2})(?:-[0-9]{2})?$")


@dataclass(frozen=True)
class Cell:
    """One value of a transcript and where it stands."""

    value: str
    line: int | None
    where: str  # 'column grade', or 'AcademicRecord[1]/Course[3]/CourseAcademicGrade'


@dataclass(frozen=True)
class Problem:
    """Something on a transcript that was not used, where it stands and why."""

    line: int | None
    where: str
    message: str

    @classmethod
    def at(cls, cell: Cell, message: str) -> Problem:
        return cls(cell.line, cell.where, message)

    def __str__(self) -> str:
        line = f"line {self.line}" if self.line is not None else ""
        at = ", ".join(part for part in (line, self.where) if part)
        return f"{at}: {self.message}" if at else self.message


@dataclass(frozen=True)
class TranscriptCourse:
    """One course line as the transcript gives it, not yet checked against a catalog."""

    code: Cell
    terms: tuple[Cell, ...]  # readings of its term, most trusted first; () when none given
    grade: Cell | None
    credits: Cell | None
    source: Cell | None  # where the credit came from; None: taken here
    in_progress: bool
    at: Cell  # the whole line or Course element, for problems about the course itself
    credit_unit: Cell | None = None  # PESC CourseCreditUnits ('Semester'); None: the catalog's
    dates: SessionDates | None = None  # the session's first and last day, when given
    institution: Cell | None = None  # another school's name: a transfer course of it


@dataclass(frozen=True)
class SessionDates:
    """A session's first and last day as the transcript gives them (YYYY-MM-DD)."""

    begin: Cell | None
    end: Cell | None


@dataclass(frozen=True)
class TranscriptProgram:
    """A program the transcript names, and the kind it says it is ('Major', 'Minor')."""

    text: Cell  # the name (else the code)
    kind: str | None = None
    code: Cell | None = None  # the program's code when the name is given too


@dataclass(frozen=True)
class Transcript:
    """What a transcript file says, every value with its place in the file."""

    source: str
    format: TranscriptFormat
    courses: tuple[TranscriptCourse, ...] = ()
    student_id: Cell | None = None
    name: Cell | None = None
    programs: tuple[TranscriptProgram, ...] = ()
    gpa: Cell | None = None
    problems: tuple[Problem, ...] = ()  # lines the reader could not make a course of
    ignored: tuple[str, ...] = ()  # what the file says that nothing was read from, and why


def source_of(word: str) -> AttemptSource | None:
    """The ``CourseAttempt.source`` a transcript's word stands for; None if unknown."""
    return SOURCE_WORDS.get(re.sub(r"[^a-z]", "", word.casefold()))


def read_term(text: str, calendar: Calendar) -> Term:
    """A term from a code ('F2023'), words ('Fall 2023') or a date designator ('2023-09',
    read with the calendar's months). Raises ``TermError`` saying what is accepted."""
    m = _DESIGNATOR.match(text.strip())
    if m is None:
        try:
            return calendar.parse(text)
        except TermError as exc:
            error = exc
        # 'Spring Quarter 2024', 'Fall Semester 2023': the kind's name with the term word.
        words = {calendar.system, calendar.term_word or "", *_TERM_WORDS} - {""}
        kept = [w for w in text.split() if w.casefold() not in words]
        if kept and len(kept) < len(text.split()):
            try:
                return calendar.parse(" ".join(kept))
            except TermError:
                pass
        raise TermError(f"{error}, or a date such as '2026-09'") from None
    year, month = int(m.group(1)), int(m.group(2))
    kind = calendar.kind_for_month(month) if 1 <= month <= 12 else None
    if kind is None:
        months = ", ".join(
            f"{k.name} {'/'.join(map(str, k.months))}" for k in calendar.terms if k.months
        )
        raise TermError(
            f"not a term: {text!r}: month {m.group(2)} is in no term of this "
            f"{calendar.system} calendar (months: {months}); write a term code such as "
            f"{calendar.examples()}"
        )
    return calendar.term(kind, year)


def guess_format(path: str | Path) -> TranscriptFormat:
    """The format a file's name says (.xml: pesc, .csv: csv); otherwise a
    ``StudentRecordError`` asking for ``--format``."""
    suffix = Path(path).suffix.lower()
    if suffix == ".xml":
        return "pesc"
    if suffix == ".csv":
        return "csv"
    raise StudentRecordError(
        str(path),
        [f"cannot tell the format from the file name (suffix {suffix!r}); pass "
         "--format pesc for PESC College Transcript XML or --format csv for CSV"],
    )  # fmt: skip


def read_bytes(path: str | Path) -> bytes:
    """The file's bytes; a missing or unreadable file is a ``StudentRecordError``."""
    p = Path(path)
    too_big = size_problem(p, "transcript_bytes", "is this a transcript?")
    if too_big is not None:
        raise StudentRecordError(str(p), [too_big])
    try:
        return p.read_bytes()
    except FileNotFoundError:
        raise StudentRecordError(
            str(p), ["file not found; pass the path of a transcript"]
        ) from None
    except OSError as exc:
        raise StudentRecordError(str(p), [f"cannot read: {exc.strerror or exc}"]) from None

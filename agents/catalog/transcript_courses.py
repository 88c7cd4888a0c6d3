"""Checking a transcript's course lines against a catalog, one cell at a time.

``CourseChecker.check`` turns ``TranscriptCourse`` lines into ``CheckedCourse`` values:

- the course code must be a catalog code, compared ignoring case, spaces and hyphens
  ('15 112', '15112' and '15-112' are the same); an unknown code is reported with the
  closest catalog codes (``resolve_course``), never replaced by one;
- the grade must be in the catalog's grade scale (``Catalog.grade_by_symbol``); in
  progress means no grade (a grade as well is a problem); a pass/fail grade
  (``PASS_FAIL_GRADES``) that the catalog keeps out of the GPA sets ``pass_fail`` (UNSW's
  CR is a graded mark, not pass/fail credit);
- the term is read with the catalog's calendar (``read_term``); a session's dates, when
  given, place it in the term they fall in and win over its name, a disagreement noted
  (``agents.catalog.transcript_terms``); a course taken here needs one, transfer, AP and
  exam credit without one takes the start term (``term`` None);
- credits must be a number with at most two decimals, in the catalog's unit once converted
  from the transcript's (``agents.catalog.transcript_units``); credits that differ from
  the catalog's units become the attempt's ``units``, with a note (0 credits is accepted
  only with a grade that earns none, and then the catalog's units stand);
- the credit source must be one of ``SOURCE_WORDS``;
- with a transfer equivalency table (``agents.catalog.transcript_transfer``), a course of
  another school is the catalog course its row names (or elective credit, noted and kept
  out of the record: it is no catalog course); one with no row is reported and kept out.

A value that fails is a ``Problem`` at its cell and the course is kept out; a term that
cannot be read is reported once, naming every course of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Literal

from agents.catalog.codes import code_key
from agents.catalog.credits import format_credits, hundredths, is_credit_value
from agents.catalog.lookup import resolve_course
from agents.catalog.model import Catalog
from agents.catalog.student import AttemptSource
from agents.catalog.terms import Term
from agents.catalog.transcript import (
    IN_PROGRESS_GRADES,
    PASS_FAIL_GRADES,
    SOURCE_HELP,
    Cell,
    Problem,
    TranscriptCourse,
    read_term,
    source_of,
)
from agents.catalog.transcript_terms import read_by_dates
from agents.catalog.transcript_transfer import Equivalency, TransferTable
from agents.catalog.transcript_units import convert
from agents.errors import TermError, UnknownCourseError

_TermKey = tuple[tuple[Cell, ...], object]  # a course's term cells and session dates


@dataclass
class CheckedCourse:
    """A course line every value of which the catalog accepts."""

    course: str
    term: Term | None  # None: transfer/AP/exam credit given no term (takes the start term)
    source: AttemptSource
    grade: str | None  # None: in progress
    units: float | None  # None: the catalog's units
    at: Cell
    pass_fail: bool = False  # a pass/fail grade the catalog keeps out of the GPA
    origin: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # its session's names, dates

    def attempt(self) -> dict[str, Any]:
        """The ``CourseAttempt`` as record JSON (the term must be known by now)."""
        out: dict[str, Any] = {"course": self.course, "term": _code(self.term)}
        out["grade"] = self.grade
        if self.grade is None:
            out["status"] = "in_progress"
        if self.source != "institution":
            out["source"] = self.source
        if self.pass_fail:
            out["pass_fail"] = True
        if self.units is not None:
            out["units"] = self.units
        return out


@dataclass
class CourseChecker:
    """Checks course lines against ``catalog``, gathering problems and notes."""

    catalog: Catalog
    transfer: TransferTable | None = None
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # terms that disagree, credits that differ
    units_notes: list[str] = field(default_factory=list)  # credits that differ (for the record)
    ignored: list[str] = field(default_factory=list)  # values not checked, and why
    term_failures: dict[_TermKey, tuple[int, str, list[str]]] = field(default_factory=dict)
    term_memo: dict[_TermKey, Term] = field(default_factory=dict)
    seen_units: set[str] = field(default_factory=set)

    def check(self, courses: tuple[TranscriptCourse, ...]) -> list[CheckedCourse]:
        """The courses that pass every check, in transcript order."""
        rows = [row for c in courses if (row := self._course(c)) is not None]
        for index, message, labels in self.term_failures.values():
            at = self.problems[index]
            left = f"{labels[0]} is" if len(labels) == 1 else f"its courses {', '.join(labels)} are"
            self.problems[index] = Problem(at.line, at.where, f"{message}; {left} left out")
        return rows

    def drop_repeats(self, rows: list[CheckedCourse]) -> list[CheckedCourse]:
        """``rows`` without a course listed twice in one term (the later one reported). Two
        sessions that both fall in one term are not one listing: a course in each is a
        retake, kept, and the collision noted - a wrong term must not drop an attempt."""
        seen: dict[tuple[str, str], CheckedCourse] = {}
        kept = []
        for r in rows:
            key = (r.course, _code(r.term))
            first = seen.setdefault(key, r)
            if first is r:
                kept.append(r)
                continue
            if r.origin[0] and first.origin[0] and r.origin != first.origin:
                self.notes.append(
                    f"{r.course} is listed in two sessions that both fall in {key[1]} "
                    f"({first.at.where} and {r.at.where}): both attempts are kept; check the "
                    "sessions' names and dates"
                )
                kept.append(r)
                continue
            where = f"line {first.at.line}" if first.at.line else first.at.where
            self._problem(
                r.at, f"{r.course} in {key[1]} is listed twice (first at {where}); this one "
                "is left out"
            )  # fmt: skip
        return kept

    def _course(self, c: TranscriptCourse) -> CheckedCourse | None:
        label = c.code.value
        before = len(self.problems)
        equivalent: Equivalency | None = None
        if self.transfer is not None and c.institution is not None:
            equivalent = self._equivalent(c, label)
            if equivalent is None or equivalent.local is None:
                return None
            code: str | None = equivalent.local
        else:
            code = self._code(c.code, label)
        source: AttemptSource | None = "institution"
        if c.source is not None:
            source = source_of(c.source.value)
            if source is None:
                self._problem(
                    c.source, f"unknown credit source {c.source.value!r}; expected "
                    f"{SOURCE_HELP}; {label} is left out"
                )  # fmt: skip
        if equivalent is not None and source == "institution":
            source = "transfer"  # taken at another school, whatever its basis says
        term = self._term(c, label, source)
        grade = self._grade(c, label)
        units = self._units(c, code, grade, label, equivalent)
        if len(self.problems) > before or code is None or source is None or term is None:
            return None
        known = term if isinstance(term, Term) else None
        if units is not None:
            when = f" in {known.code}" if known is not None else ""
            note = (
                f"{code}{when}: {format_credits(units)} {self.catalog.institution.unit_name} on "
                f"the transcript, {format_credits(self.catalog.course(code).units)} in the "
                "catalog; the record keeps the transcript's."
            )
            self.notes.append(note)
            self.units_notes.append(note)
        # A symbol such as CR is pass/fail credit on some scales and a graded mark on others
        # (UNSW's Credit): only a grade the catalog keeps out of the GPA is pass/fail.
        scale = self.catalog.grade_by_symbol
        pass_fail = grade in PASS_FAIL_GRADES and grade in scale and not scale[grade].in_gpa
        dates = (c.dates.begin, c.dates.end) if c.dates else ()
        origin = (tuple(t.value for t in c.terms), tuple(d.value for d in dates if d))
        return CheckedCourse(code, known, source, grade, units, c.at, pass_fail, origin)

    def _equivalent(self, c: TranscriptCourse, label: str) -> Equivalency | None:
        """The table's row for another school's course (noted), or None (reported)."""
        assert self.transfer is not None and c.institution is not None
        school = c.institution.value
        row = self.transfer.find(school, c.code.value)
        table = Path(self.transfer.source).name
        if row is None:
            self._problem(
                c.code, f"transfer course {label!r} from {school!r} is not in the equivalency "
                f"table {table}; add a row (institution, course, local_course, units) for it; "
                f"{label} is left out"
            )  # fmt: skip
            return None
        if row.local is None:
            given = c.credits.value if c.credits else "its"
            units = format_credits(row.units) if row.units is not None else given
            name = self.catalog.institution.unit_name
            self.notes.append(
                f"{label} from {school}: elective credit, {units} {name} "
                f"({row.shown(table)}); no catalog course, so it is not in the record - an "
                "advisor exception can count it toward a requirement"
            )  # fmt: skip
            return row
        self.notes.append(f"{label} from {school} counts as {row.local} ({row.shown(table)})")
        return row

    def _problem(self, cell: Cell, message: str) -> None:
        self.problems.append(Problem.at(cell, message))

    def _code(self, cell: Cell, label: str) -> str | None:
        index: dict[str, list[str]] = self.catalog.derived.setdefault("transcript_codes", {})
        if not index:
            for course in self.catalog.courses:
                index.setdefault(code_key(course.code), []).append(course.code)
        hits = index.get(code_key(cell.value), [])
        if len(hits) == 1:
            return hits[0]
        if hits:
            self._problem(
                cell, f"course {cell.value!r} could be {', '.join(hits)}; write the catalog "
                f"code exactly; {label} is left out"
            )  # fmt: skip
            return None
        try:
            return resolve_course(self.catalog, cell.value)
        except UnknownCourseError as exc:
            self._problem(cell, f"{exc}; {label} is left out")
        return None

    def _term(
        self, c: TranscriptCourse, label: str, source: AttemptSource | None
    ) -> Term | Literal["start"] | None:
        """The course's term; 'start' when it has none but may take the start term; None
        when it cannot be read (reported once per session, naming every course)."""
        if not c.terms and c.dates is None:
            if source in (None, "institution"):
                self._problem(c.at, f"no term given; {label} is left out")
                return None
            return "start"
        key = (c.terms, c.dates)
        hit = self.term_memo.get(key)
        if hit is not None:
            return hit
        failure = self.term_failures.get(key)
        if failure is not None:
            failure[2].append(label)
            return None
        readings: list[tuple[Cell, Term]] = []
        error: tuple[Cell, TermError] | None = None
        for cell in c.terms:
            try:
                readings.append((cell, read_term(cell.value, self.catalog.calendar)))
            except TermError as exc:
                error = error or (cell, exc)
        by_dates = read_by_dates(c.dates, self.catalog.calendar) if c.dates else None
        if by_dates is not None and by_dates.term is not None:
            term = by_dates.term
            if readings and readings[0][1] != term:
                cell, named = readings[0]
                self.notes.append(
                    f"line {cell.line}: session {cell.where} {cell.value!r} reads as "
                    f"{named.code} but its dates {by_dates.shown} fall in {term.code} "
                    f"({by_dates.how}); used {term.code}, the dates"
                )
            self.term_memo[key] = term
            return term
        if not readings:
            if error is None:  # only dates, and they fit no term
                assert by_dates is not None and c.dates is not None
                at = by_dates.bad or c.dates.begin or c.dates.end
                assert at is not None
                error = (at, TermError(f"session dates {by_dates.shown}: {by_dates.how}"))
            self.problems.append(Problem.at(error[0], ""))
            self.term_failures[key] = (len(self.problems) - 1, str(error[1]), [label])
            return None
        (first, term), *others = readings
        if by_dates is not None:
            self.notes.append(
                f"line {first.line}: session {first.where} {first.value!r}: its dates "
                f"{by_dates.shown} place it in no term ({by_dates.how}); used {term.code}, "
                "the name"
            )
        for cell, other in others:
            if other != term:
                self.notes.append(
                    f"line {first.line}: {first.where} {first.value!r} is {term.code} but "
                    f"{cell.where} {cell.value!r} is {other.code}; used {term.code}"
                )
        self.term_memo[key] = term
        return term

    def _grade(self, c: TranscriptCourse, label: str) -> str | None:
        grade = c.grade.value.upper() if c.grade is not None else ""
        if c.in_progress:
            if grade not in IN_PROGRESS_GRADES and c.grade is not None:
                self._problem(
                    c.grade, f"graded {c.grade.value!r} but marked in progress; give a grade "
                    f"or the in-progress mark, not both; {label} is left out"
                )  # fmt: skip
            return None
        if c.grade is None:
            self._problem(
                c.at, f"no grade, and not marked in progress (CourseInProgressIndicator); "
                f"{label} is left out"
            )  # fmt: skip
        elif grade not in self.catalog.grade_by_symbol:
            scale = ", ".join(g.grade for g in self.catalog.grade_scale)
            self._problem(
                c.grade, f"unknown grade {c.grade.value!r}; the catalog's grades are {scale}; "
                f"{label} is left out"
            )  # fmt: skip
        return grade or None

    def _units(
        self,
        c: TranscriptCourse,
        code: str | None,
        grade: str | None,
        label: str,
        equivalent: Equivalency | None = None,
    ) -> float | None:
        cell = c.credits
        if equivalent is not None and equivalent.units is not None:
            return self._differs(Decimal(str(equivalent.units)), code)
        if cell is None:
            return None
        try:
            value = Decimal(cell.value)
        except InvalidOperation:
            value = Decimal("NaN")
        if not value.is_finite() or value < 0 or not is_credit_value(float(value)):
            self._problem(
                cell, f"bad credits {cell.value!r}: expected a number of "
                f"{self.catalog.institution.unit_name} such as 9 or 0.5; {label} is left out"
            )  # fmt: skip
            return None
        reading = convert(value, c.credit_unit, self.catalog, label)
        if reading.problem is not None:
            assert c.credit_unit is not None
            self._problem(c.credit_unit, reading.problem)
            return None
        if reading.note is not None:
            self.notes.append(reading.note)
        unit = c.credit_unit
        if reading.ignored is not None and unit is not None and unit.value not in self.seen_units:
            self.seen_units.add(unit.value)
            self.ignored.append(reading.ignored)
        assert reading.value is not None
        value = reading.value
        course = self.catalog.course_by_code.get(code or "")
        if course is None:
            return None
        known = self.catalog.grade_by_symbol.get(grade or "")
        if value == 0:
            if known is not None and not known.earns_credit:
                return None  # a grade that earns nothing: no credits on the transcript
            self._problem(
                cell, f"bad credits {cell.value!r}: 0 for a course that earns credit; give "
                f"its credits or leave them blank for the catalog's; {label} is left out"
            )  # fmt: skip
            return None
        return self._differs(value, code)

    def _differs(self, value: Decimal, code: str | None) -> float | None:
        """``value`` when it is not the catalog course's units, else None."""
        course = self.catalog.course_by_code.get(code or "")
        if course is None or hundredths(float(value)) == hundredths(course.units):
            return None
        return float(value)


def _code(term: Term | None) -> str:
    assert term is not None, "transfer credit without a term takes the start term first"
    return term.code

"""A transcript made into a student record: ``import_transcript`` and ``build_record``.

The transcript is read by its format's reader (``read_pesc``, ``read_csv``) and its course
lines checked against the catalog by ``agents.catalog.transcript_courses``; what a line
gets wrong is reported there and the course kept out. This module settles the student's
facts. Each given in ``StudentFacts`` (the command line) wins over the transcript; the
rest come from the transcript or are derived, every derivation said in
``ImportResult.derived``:

- start term: the earliest term of a course taken here (else of any course);
- current term: the latest term with courses in progress (else the latest term);
- catalog year: the academic year of the start term, written like the catalog's year
  (the catalog's own year when that cannot be read);
- programs: the transcript's, matched by code, name or alias (``resolve_program``; a
  program the transcript calls a minor is tried as '<name> minor' too);
- GPA: the transcript's cumulative GPA if any (else the record computes it).

A record that cannot be made (no id, name, program or start term) is a ``StudentRecordError``
naming each missing fact and its option. The record is validated as ``load_student``
validates a file and checked with ``check_student_against_catalog``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from agents.catalog.limits import LIMITS
from agents.catalog.lookup import resolve_program
from agents.catalog.model import Catalog
from agents.catalog.programs import ProgramKind
from agents.catalog.student import StudentRecord, check_student_against_catalog, parse_student
from agents.catalog.terms import Term
from agents.catalog.transcript import (
    Cell,
    Problem,
    Transcript,
    TranscriptFormat,
    TranscriptProgram,
    guess_format,
    read_bytes,
    read_term,
)
from agents.catalog.transcript_courses import CheckedCourse, CourseChecker
from agents.catalog.transcript_csv import read_csv_students
from agents.catalog.transcript_pesc import read_pesc
from agents.catalog.transcript_transfer import TransferTable
from agents.errors import StudentRecordError, TermError, UnknownProgramError

_YEAR_SPAN = re.compile(r"^([0-9]{4})(\s*[-/]\s*)([0-9]{2}|[0-9]{4})$")


@dataclass(frozen=True)
class StudentFacts:
    """What the command line says about the student; each given fact wins over the
    transcript's."""

    id: str | None = None
    name: str | None = None
    programs: tuple[str, ...] = ()  # codes, names or aliases
    catalog_year: str | None = None
    start_term: str | None = None
    current_term: str | None = None


@dataclass(frozen=True)
class ImportResult:
    """The record made from a transcript, what was left out and what was derived."""

    record: StudentRecord
    problems: tuple[Problem, ...]  # every value not used; its course (if any) is left out
    derived: tuple[str, ...]  # facts not given but derived, each saying how
    notes: tuple[str, ...]  # credits that differ or were converted, terms that disagree
    ignored: tuple[str, ...] = ()  # what the transcript says that was not used, and why

    @property
    def clean(self) -> bool:
        return not self.problems


def import_transcript(
    path: str | Path,
    catalog: Catalog,
    facts: StudentFacts | None = None,
    format: TranscriptFormat | None = None,
    transfer: TransferTable | None = None,
) -> ImportResult:
    """Read transcript ``path`` (``format``: from its suffix when None) and build the
    student record; a file that cannot be used at all raises ``StudentRecordError`` (a CSV
    file of several students too: ``import_transcripts`` reads those)."""
    results = import_transcripts(path, catalog, facts, format, transfer)
    if len(results) > 1:
        ids = ", ".join(t for t, _ in results)
        raise StudentRecordError(
            str(path), [f"the file holds {len(results)} students ({ids}); import it with "
                        "import_transcripts (`advise student import FILE -o DIR`)"]
        )  # fmt: skip
    outcome = results[0][1]
    if isinstance(outcome, StudentRecordError):
        raise outcome
    return outcome


def import_transcripts(
    path: str | Path,
    catalog: Catalog,
    facts: StudentFacts | None = None,
    format: TranscriptFormat | None = None,
    transfer: TransferTable | None = None,
) -> list[tuple[str, ImportResult | StudentRecordError]]:
    """Every student of transcript ``path`` (a CSV file with a ``student_id`` column may
    hold several; other files hold one), each with its record or the ``StudentRecordError``
    that says why none could be made - one student's problems never stop the others. A
    file that cannot be used at all raises ``StudentRecordError``."""
    fmt = format or guess_format(path)
    data = read_bytes(path)
    if fmt == "pesc":
        transcripts = [read_pesc(data, str(path))]
    else:
        transcripts = read_csv_students(data, str(path))
    if len(transcripts) > 1 and facts is not None and (facts.id or facts.name):
        raise StudentRecordError(
            str(path), [f"--id and --name name one student, but the file holds "
                        f"{len(transcripts)} (its student_id column names each); leave them out"]
        )  # fmt: skip
    out: list[tuple[str, ImportResult | StudentRecordError]] = []
    for t in transcripts:
        if t.student_id is None and len(transcripts) > 1:
            out.append(
                ("(no student_id)", StudentRecordError(t.source, list(map(str, t.problems))))
            )
            continue
        label = t.student_id.value if t.student_id else (facts.id if facts else None) or "-"
        try:
            out.append((label, build_record(t, catalog, facts or StudentFacts(), transfer)))
        except StudentRecordError as exc:
            out.append((label, exc))
    return out


def record_json(record: StudentRecord) -> str:
    """The record as the JSON ``load_student`` reads (fields at their defaults left out)."""
    data = record.model_dump(mode="json", exclude_defaults=True)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def build_record(
    transcript: Transcript,
    catalog: Catalog,
    facts: StudentFacts | None = None,
    transfer: TransferTable | None = None,
) -> ImportResult:
    """The student record ``transcript`` gives with ``catalog``, or a ``StudentRecordError``
    (naming every missing fact and its option) when no record can be made - at once for a
    transcript of more courses than a record may hold."""
    limit = LIMITS["record_courses"]
    if len(transcript.courses) > limit.value:
        problem = limit.problem(len(transcript.courses), "is this one student's transcript?")
        raise StudentRecordError(transcript.source, [problem])
    checker = CourseChecker(catalog, transfer)
    return _Builder(transcript, catalog, checker).build(facts or StudentFacts())


@dataclass
class _Builder:
    t: Transcript
    catalog: Catalog
    checker: CourseChecker
    derived: list[str] = field(default_factory=list)
    fatal: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[Problem]:
        return self.checker.problems

    def _problem(self, cell: Cell, message: str) -> None:
        self.problems.append(Problem.at(cell, message))

    def build(self, facts: StudentFacts) -> ImportResult:
        self.problems.extend(self.t.problems)
        start = self._option_term(facts.start_term, "--start-term")
        current = self._option_term(facts.current_term, "--current-term")
        rows = self.checker.check(self.t.courses)
        start = start or self._start(rows)
        if start is not None:
            pending = [r for r in rows if r.term is None]
            for r in pending:
                r.term = start
            if pending:
                self.derived.append(
                    f"{len(pending)} transfer/AP/exam course(s) without a term credited to the "
                    f"start term {start.code}"
                )
            rows = self.checker.drop_repeats(rows)
        current = current or self._current(rows, start)
        student_id = facts.id or (self.t.student_id.value if self.t.student_id else None)
        name = facts.name or (self.t.name.value if self.t.name else None)
        pesc = self.t.format == "pesc"
        if not student_id:
            where = "has no Person/SchoolAssignedPersonID" if pesc else "does not carry one"
            self.fatal.append(f"no student id: the transcript {where}; pass --id ID")
        if not name:
            where = "has no Person/Name" if pesc else "does not carry one"
            self.fatal.append(f"no student name: the transcript {where}; pass --name NAME")
        programs = self._programs(facts.programs)
        if start is not None and current is not None and current < start:
            self.fatal.append(
                f"the current term {current.code} is before the start term {start.code}; "
                "fix --current-term or --start-term"
            )
        if self.fatal or start is None or current is None:
            raise StudentRecordError(self.t.source, self.fatal)
        rows.sort(key=lambda r: r.term.index if r.term is not None else 0)
        raw: dict[str, Any] = {
            "id": student_id,
            "name": name,
            "programs": programs,
            "catalog_year": facts.catalog_year or self._catalog_year(start),
            "start_term": start.code,
            "current_term": current.code,
            "courses": [r.attempt() for r in rows],
        }
        gpa = self._gpa()
        if gpa is not None:
            raw["gpa"] = gpa
        raw["notes"] = self._record_notes()
        record = parse_student(raw, source=self.t.source, calendar=self.catalog.calendar)
        leftover = check_student_against_catalog(record, self.catalog)
        if leftover:  # pragma: no cover - every value was checked above
            raise StudentRecordError(self.t.source, leftover)
        problems = sorted(self.problems, key=lambda p: (p.line is None, p.line or 0))
        notes = (*self.checker.notes, *self.notes)
        ignored = (*self.t.ignored, *self.checker.ignored)
        return ImportResult(record, tuple(problems), tuple(self.derived), notes, ignored)

    # ------------------------------------------------------------------ student facts

    def _option_term(self, text: str | None, option: str) -> Term | None:
        if text is None:
            return None
        try:
            return read_term(text, self.catalog.calendar)
        except TermError as exc:
            self.fatal.append(f"{option}: {exc}")
            return None

    def _start(self, rows: list[CheckedCourse]) -> Term | None:
        own = [r.term for r in rows if r.term is not None and r.source == "institution"]
        pool = own or [r.term for r in rows if r.term is not None]
        if not pool:
            self.fatal.append("no start term: no course has a term to derive it from; pass "
                              "--start-term TERM")  # fmt: skip
            return None
        start = min(pool)
        how = "a course taken here" if own else "any course"
        self.derived.append(f"start term {start.code}: the earliest term of {how}")
        return start

    def _current(self, rows: list[CheckedCourse], start: Term | None) -> Term | None:
        taking = [r.term for r in rows if r.term is not None and r.grade is None]
        if taking:
            current = max(taking)
            self.derived.append(f"current term {current.code}: the latest term with courses "
                                "in progress")  # fmt: skip
            return current
        terms = [r.term for r in rows if r.term is not None]
        if not terms:
            return start
        current = max(terms)
        self.derived.append(f"current term {current.code}: the latest term on the transcript "
                            "(no course is in progress)")  # fmt: skip
        return current

    def _catalog_year(self, start: Term) -> str:
        year = self.catalog.catalog_year
        m = _YEAR_SPAN.match(year.strip())
        if m is None:
            self.derived.append(
                f"catalog year {year}: the catalog's (its year is not written like "
                "'2026-2027', so the start term's cannot be matched)"
            )
            return year
        first = self.catalog.calendar.academic_year_of(start)
        last = str(first + 1) if len(m.group(3)) == 4 else f"{(first + 1) % 100:02d}"
        derived = f"{first}{m.group(2)}{last}"
        also = "" if derived == year else f" (the catalog is {year}; pass --catalog-year to change)"
        self.derived.append(f"catalog year {derived}: the academic year of the start term "
                            f"{start.code}{also}")  # fmt: skip
        return derived

    def _programs(self, given: tuple[str, ...]) -> list[str]:
        codes: list[str] = []
        if given:
            for text in given:
                try:
                    codes.append(resolve_program(self.catalog, text))
                except UnknownProgramError as exc:
                    self.fatal.append(f"--program {text!r}: {exc}")
        else:
            for program in self.t.programs:
                code = self._program(program)
                if code is not None:
                    self.derived.append(
                        f"program {code} from {program.text.where} {program.text.value!r}"
                    )
                    codes.append(code)
        if not codes and not given:
            self.fatal.append("no program: the transcript names none the catalog has; pass "
                              "--program CODE (repeatable)")  # fmt: skip
        return list(dict.fromkeys(codes))

    def _program(self, program: TranscriptProgram) -> str | None:
        """The catalog program a transcript's program is: by its name, else by its code (a
        major renamed since, or a name written differently), each tried as the kind the
        transcript says; one that matches neither is reported, never dropped silently."""
        kind = (program.kind or "").casefold()
        cells = [c for c in (program.text, program.code) if c is not None]
        for cell in cells:
            text = cell.value
            for candidate in (text, f"{text} minor") if kind == "minor" else (text,):
                try:
                    code = resolve_program(self.catalog, candidate)
                except UnknownProgramError:
                    continue
                if kind not in get_args(ProgramKind) or self.catalog.program(code).kind == kind:
                    if cell is not cells[0]:
                        self.notes.append(
                            f"program {code}: the name {cells[0].value!r} at {cells[0].where} "
                            f"is not in the catalog; matched by the code {text!r} at {cell.where}"
                        )
                    return code
        shown = " or ".join(repr(c.value) for c in cells)
        if program.kind:
            shown += f" ({program.kind})"
        self._problem(
            program.text, f"program {shown} is not in the catalog by name or code; known: "
            f"{', '.join(sorted(self.catalog.program_by_code))}; pass --program CODE"
        )  # fmt: skip
        return None

    def _gpa(self) -> float | None:
        cell = self.t.gpa
        if cell is None:
            return None
        try:
            gpa = float(cell.value)
        except ValueError:
            gpa = -1.0
        if not 0 <= gpa <= 4.3:
            self._problem(
                cell, f"bad GPA {cell.value!r}: expected a number from 0 to 4.3; the record "
                "computes the GPA from its grades instead"
            )  # fmt: skip
            return None
        self.derived.append(f"GPA {cell.value} from {cell.where}")
        return round(gpa, 2)

    def _record_notes(self) -> str:
        kind = "PESC College Transcript" if self.t.format == "pesc" else "CSV transcript"
        text = f"Imported from {Path(self.t.source).name} ({kind})."
        if self.problems:
            text += (
                f" {len(self.problems)} problem(s) were reported and what they concern left "
                "out; see the import report."
            )
        return " ".join([text, *self.checker.units_notes])

"""The intake's programs: which programs the plan is for (declared + added - dropped), each
checked against the catalog, and the catalog year each follows.

Split from ``agents.intake`` to keep each module readable in one sitting; the intake stage
uses ``read_programs``, ``settle_intent`` and ``program_years`` and shares the ``Collector``
of notes and open questions.

Structured fields decide, the text fills what they leave open. A program the request's
``add_programs`` lists that the student already has is asked about (the request
contradicts the record). One the *text* names to add that the student already has is read
as that declared program ("finish my economics degree", "I'm double majoring in math and
statistics"): it is noted, never asked about, and when it was all the text named, an
add or switch intent read from the text becomes planning the degree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agents.artifacts import PlanRequest
from agents.catalog import Catalog, StudentRecord
from agents.catalog.lookup import resolve_program
from agents.catalog.years import choose, year_start
from agents.errors import UnknownProgramError
from agents.llm import IntakeExtraction
from agents.reading.goals import Collector

__all__ = ["Programs", "program_years", "read_programs", "settle_intent"]


@dataclass
class Programs:
    """The programs the plan is for, and how the request changes the record's."""

    target: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    # Programs the text named to add that the student already has.
    already: list[str] = field(default_factory=list)


def _program_code(catalog: Catalog, given: str, c: Collector) -> str:
    """A program as the request names it - code in any case, name or alias - as its code
    (unchanged when nothing in the catalog matches; the caller asks about it)."""
    try:
        code = resolve_program(catalog, given)
    except UnknownProgramError:
        return given
    if code != given:
        c.notes.append(f"{given!r} read as {code}")
    return code


def read_programs(
    request: PlanRequest, ext: IntakeExtraction, catalog: Catalog, c: Collector
) -> Programs:
    """Declared + added - dropped, each checked against the catalog."""
    known = catalog.program_by_code
    declared = [p for p in request.student.programs if p in known]
    majors = [p for p in declared if known[p].kind == "major"]
    adds = request.add_programs or ext.add_programs
    drops = request.drop_programs or ext.drop_programs
    if request.add_programs and ext.add_programs and set(ext.add_programs) != set(adds):
        c.notes.append(
            f"the request lists {', '.join(adds)} to add; the text named "
            f"{', '.join(ext.add_programs)} (the list wins)"
        )
    out = Programs()
    for given in adds:
        code = _program_code(catalog, given, c)
        if code not in known:
            c.ask(
                "add_programs",
                f"{code!r} is not a program in the catalog; programs: {', '.join(sorted(known))}",
                code,
            )
        elif code in declared and not request.add_programs:
            # The text names a program the student has: finishing it is not adding it.
            if code not in out.already:
                out.already.append(code)
                c.notes.append(
                    f"{code} is already one of the student's programs; read as that program"
                )
        elif code in declared:
            c.notes.append(f"{code} is already declared; nothing to add")
            c.ask(
                "add_programs",
                f"The student already has {code}; which program should be added instead?",
                code,
            )
        elif code not in out.added:
            out.added.append(code)
            _check_eligible(code, majors, catalog, c)
    for code in drops:
        if code in declared and code not in out.dropped:
            out.dropped.append(code)
        else:
            c.notes.append(f"{code!r} is not a declared program; nothing to drop")
            c.ask(
                "drop_programs",
                f"{code!r} is not one of the student's programs "
                f"({', '.join(declared)}); which program should be dropped?",
                code,
            )
    out.target = [p for p in declared if p not in out.dropped] + out.added
    return out


def settle_intent(intent: str, source: str, progs: Programs, c: Collector) -> str:
    """The intent once the programs are known: an add or switch read from the text whose
    every program the student already has is planning the degree."""
    change = intent in ("add_program", "switch_program")
    if source != "text" or not change or not progs.already or progs.added or progs.dropped:
        return intent
    if any(q.field == "add_programs" for q in c.questions):
        return intent  # the text also named something to add that is not a program
    c.notes.append(
        "the text names no program to add beyond those declared; planning the degree (plan_degree)"
    )
    return "plan_degree"


def _check_eligible(code: str, majors: list[str], catalog: Catalog, c: Collector) -> None:
    prog = catalog.program_by_code[code]
    barred = sorted(set(prog.excluded_majors) & set(majors))
    if barred:
        why = f"{code} is not open to students in {', '.join(barred)}"
    elif prog.eligible_majors and not set(prog.eligible_majors) & set(majors):
        why = f"{code} is open only to students in {', '.join(sorted(prog.eligible_majors))}"
    else:
        return
    c.notes.append(f"{why}; kept as a what-if so the audit can show it")
    c.ask(
        "add_programs",
        f"{why}. Choose another program, or ask the department about an exception?",
        code,
    )


def program_years(
    request: PlanRequest, student: StudentRecord, catalog: Catalog, c: Collector
) -> StudentRecord:
    """The record with the request's catalog years per program merged over its own; an
    unknown program or an unreadable year is asked about and not merged."""
    years: dict[str, str] = {}
    for code, year in request.program_years.items():
        if code not in catalog.program_by_code:
            c.ask("program_years", f"{code!r} in program_years is not a program in the catalog")
        elif year_start(year) is None:
            c.ask(
                "program_years",
                f"the catalog year {year!r} for {code} cannot be read; write it like "
                f"{catalog.catalog_year!r}",
            )
        else:
            years[code] = year
    if not years:
        return student
    for code, year in years.items():
        version, note = choose(catalog, code, year)
        c.notes.append(note or f"{code} follows the {version.catalog_year} catalog")
    return student.model_copy(update={"program_years": {**student.program_years, **years}})

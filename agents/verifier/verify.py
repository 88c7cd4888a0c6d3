"""The independent plan verifier: a plain simulation of a plan, term by term. No solver.

It shares nothing with the planner but the catalog models, so a planner bug cannot hide
itself. ``verify_plan`` walks the plan's terms in order, keeping the set of courses
completed so far (the record's passing and in-progress courses, then each planned term),
and checks every course against the catalog: offering (``agents.catalog.offered_in``: the
pattern, a retired status, a published schedule without its section), term away, standing
restrictions (``restricted_to``, by the standing at the start of the term), prerequisites
(courses complete in an earlier term, standing and units from the units completed before the
term), corequisites (same or earlier term), duplicates, anti-requisites, unit loads (a term's
own cap, else the general cap and the cap of the class standing at its start, from the units
completed before it) and course counts, the target term, and sessions within terms
(``sessions``). Requirements left unmet come from the degree audit run with the plan as
``planned`` (the institution's requirements included; a course set's caps, subject minimum
and minimums from sub-lists too: a plan whose courses break a cap, miss a subject or miss a
sub-list's minimum leaves it unmet; a course counts toward two requirements of a program
only where the program's ``overlaps`` allow).
When sections are given, they are checked for clashes and free-time wishes against the
catalog's meeting times.

This module runs the term-by-term simulation and the per-course checks; the checks over the
whole plan live beside it (``span``, ``exclusions``, ``wishes``, ``requirements``,
``sections``), the record and prerequisite evaluation in ``record``, and the inputs it
reads in ``protocols``.

Conventions shared with the planner (written down, not imported): an optional term
(summer, interim) is allowed only when named in ``optional_terms``, of a kind in
``optional_kinds``, or with ``include_summer`` (every optional term); the unit floor
applies to the regular terms up to graduation (optional ones only with an explicit
per-term floor); a course already passed may
be planned again only when repeatable or when its grade is below a minimum grade that a
prerequisite or a requirement of the target programs asks for.
"""

from __future__ import annotations

from collections.abc import Sequence

from agents.catalog import (
    Catalog,
    StudentRecord,
    Term,
    count_text,
    credit_sum,
    format_prereq,
    not_offered,
    with_institution,
)
from agents.catalog.milestones import milestone_words
from agents.verifier.defects import Defect, DefectKind
from agents.verifier.exclusions import check_antirequisites
from agents.verifier.protocols import ConstraintsLike, PlanLike, SectionsLike
from agents.verifier.record import RecordView, holds, min_grades
from agents.verifier.requirements import check_requirements
from agents.verifier.sections import check_sections
from agents.verifier.sessions import check_sessions
from agents.verifier.span import check_floors, check_target, first_allowed, optional_allowed
from agents.verifier.wishes import check_wishes


def verify_plan(
    catalog: Catalog,
    student: StudentRecord,
    programs: Sequence[str],
    constraints: ConstraintsLike,
    plan: PlanLike,
    sections: SectionsLike | None = None,
    next_term: str | None = None,
) -> list[Defect]:
    """Every defect of ``plan`` under ``constraints``, in plan order, then requirements.

    ``sections`` (a ``SectionChoice``) is checked against ``next_term`` (default: the
    sections' own term) for clashes, free-time wishes and planned courses left without a
    section.
    """
    c = constraints
    out: list[Defect] = []

    def add(kind: DefectKind, term: str | None, course: str | None, message: str) -> None:
        out.append(Defect(kind=kind, term=term, course=course, message=message))

    record = RecordView(catalog, student)
    programs = with_institution(catalog, programs)  # every student's requirements too
    target_programs = set(programs) | set(student.programs)
    away = {Term.parse(t).code for t in [*student.terms_away, *c.terms_away]}
    current = Term.parse(student.current_term)
    first = Term.parse(c.first_term) if c.first_term else first_allowed(c, current)
    done: set[str] = set()
    planned: dict[str, str] = {}
    units_before = record.units
    loads: dict[str, float] = {}
    previous: Term | None = None
    for pt in plan.terms:
        term = Term.parse(pt.term)
        code = term.code
        if previous is not None and term <= previous:
            add("target", code, None, f"{code} comes after {previous.code} in the plan")
        previous = term
        if pt.courses and term < first:
            add("offering", code, None, f"{code} is before the first plannable term {first.code}")
        if pt.courses and not (term.regular or optional_allowed(c, term)):
            add(
                "offering",
                code,
                None,
                f"{code} is an optional term ({term.label()}) the request does not allow",
            )
        if pt.courses and code in away:
            add(
                "term_away",
                code,
                None,
                f"the student is away in {code} but has {_count(len(pt.courses))} planned",
            )
        units = gained = 0.0
        this_term = set(pt.courses)
        for d in sorted({x for x in pt.courses if pt.courses.count(x) > 1}):
            add("duplicate", code, d, f"{d} is planned twice in {code}")
        for cc in sorted(this_term):
            course = catalog.course_by_code.get(cc)
            if course is None:
                add("offering", code, cc, f"{cc!r} is not in the catalog")
                continue
            units = credit_sum((units, *[course.units] * pt.courses.count(cc)))
            why = not_offered(catalog, course, term)  # pattern, status, published schedule
            if why is not None:
                add("offering", code, cc, why)
            if not holds(
                catalog, course.prerequisites, record, done, units_before, target_programs,
                this_term,
            ):  # fmt: skip
                text = format_prereq(course.prerequisites)  # type: ignore[arg-type]
                text += milestone_words(course.prerequisites, catalog.milestones)
                add("prerequisite", code, cc, f"{cc} in {code} needs {text} before the term")
            closed = course.closed_by_program(target_programs)
            if closed is not None:  # a program restriction: who may enrol, like standing
                add("prerequisite", code, cc, f"{cc} in {code} {closed}")
            standing = catalog.standing_for_units(units_before)
            if not course.open_to(standing):
                # A standing restriction is a condition on who may enrol, like standing().
                whom = ", ".join(s.replace("_", "-") for s in course.restricted_to)
                add(
                    "prerequisite",
                    code,
                    cc,
                    f"{cc} in {code} is restricted to {whom} students; the student is "
                    f"{standing.replace('_', '-')} then",
                )
            if not holds(
                catalog,
                course.corequisites,
                record,
                done | this_term,
                units_before,
                target_programs,
            ):
                text = format_prereq(course.corequisites)  # type: ignore[arg-type]
                text += milestone_words(course.corequisites, catalog.milestones)
                add(
                    "corequisite",
                    code,
                    cc,
                    f"{cc} in {code} needs {text} in the same or an earlier term",
                )
            if cc in planned and not course.repeatable:
                add("duplicate", code, cc, f"{cc} is planned in {planned[cc]} and again in {code}")
            elif (
                record.passes(cc, None)
                and not course.repeatable
                and cc not in c.include
                and cc not in c.fixed
                and all(record.passes(cc, g) for g in min_grades(catalog, programs, cc))
            ):
                add(
                    "duplicate",
                    code,
                    cc,
                    f"{cc} is already passed or in progress and is not repeatable",
                )
            if course.repeatable or (cc not in planned and not record.passes(cc, None)):
                gained = credit_sum((gained, course.units))
            planned.setdefault(cc, code)
        if abs(units - pt.units) > 1e-6:
            add(
                "units_max" if units > pt.units else "units_min",
                code,
                None,
                f"{code} reports {_amount(pt.units, catalog)} but its courses carry {units:g}",
            )
        cap, why = c.term_max_units.get(code, c.max_units_per_term), ""
        if code not in c.term_max_units:
            # A term without its own cap holds its standing's too (the standing at its start).
            standing = catalog.standing_for_units(units_before)
            if c.standing_max_units.get(standing, cap) < cap:
                cap, why = c.standing_max_units[standing], f" ({standing.replace('_', '-')})"
        if units > cap + 1e-9:
            add(
                "units_max",
                code,
                None,
                f"{_amount(units, catalog)} in {code} exceed the cap of {cap:g}{why}",
            )
        if c.max_courses_per_term is not None and len(pt.courses) > c.max_courses_per_term:
            add(
                "max_courses",
                code,
                None,
                f"{len(pt.courses)} courses in {code} exceed the limit of {c.max_courses_per_term}",
            )
        loads[code] = credit_sum((loads.get(code, 0.0), units))
        done |= this_term
        units_before = credit_sum((units_before, gained))
    last = max((Term.parse(t) for t, u in loads.items() if u > 0), default=None)
    if last is not None:
        check_floors(add, c, first, last, away, loads)
    check_target(add, c, plan, last)
    check_sessions(add, catalog, plan)
    check_antirequisites(add, catalog, record, planned)
    check_wishes(add, c, planned)
    check_requirements(add, catalog, student, programs, planned, plan)
    if sections is not None:
        check_sections(add, catalog, plan, sections, next_term)
    return out


def _count(n: int) -> str:
    return f"{n} course" if n == 1 else f"{n} courses"


def _amount(units: float, catalog: Catalog) -> str:
    """'54 units', '1 credit': an amount in the catalog's words."""
    return count_text(units, catalog.institution.unit_name)

"""The independent plan verifier: a plain simulation of a plan, term by term. No solver.

It shares nothing with the planner but the catalog models, so a planner bug cannot hide
itself. ``verify_plan`` walks the plan's terms in order, keeping the set of courses
completed so far (the record's passing and in-progress courses, then each planned term),
and checks every course against the catalog: offering, term away, prerequisites (courses
complete in an earlier term, standing and units from the units completed before the term),
corequisites (same or earlier term), duplicates, anti-requisites, unit loads and course
counts, and the target term. Requirements left unmet come from the degree audit run with
the plan as ``planned``. When sections are given, they are checked for clashes and
free-time wishes against the catalog's meeting times.

Conventions shared with the planner (written down, not imported): a summer term is
allowed only with ``include_summer``; the unit floor applies to fall and spring terms up
to graduation (summers only with an explicit per-term floor); a course already passed may
be planned again only when repeatable or when its grade is below a minimum grade that a
prerequisite or a requirement of the target programs asks for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from agents.catalog import (
    AllOf,
    AnyOf,
    Catalog,
    ConsentCond,
    CourseCond,
    CourseRequirement,
    CourseSetRequirement,
    PrereqNode,
    ProgramCond,
    Section,
    StandingCond,
    StudentRecord,
    Term,
    UnitsCond,
    format_prereq,
)

# The verifier reads plans, constraints and section choices through these protocols so that
# it imports neither the planner nor the solver (``PlanResult``, ``PlanConstraints`` and
# ``SectionChoice`` satisfy them).


class PlannedTermLike(Protocol):
    term: str
    courses: list[str]
    units: float


class PlanLike(Protocol):
    @property
    def terms(self) -> Sequence[PlannedTermLike]: ...

    graduation_term: str | None


class ConstraintsLike(Protocol):
    max_units_per_term: float
    min_units_per_term: float
    term_max_units: dict[str, float]
    term_min_units: dict[str, float]
    max_courses_per_term: int | None
    terms_away: list[str]
    first_term: str | None
    target_term: str | None
    latest_term: str | None
    avoid: list[str]
    fixed: dict[str, str]
    include_summer: bool


class SectionsLike(Protocol):
    term: str
    sections: dict[str, str]
    free_days: list[str]
    not_before: str | None
    not_after: str | None


DefectKind = Literal[
    "prerequisite",
    "corequisite",
    "offering",
    "units_max",
    "units_min",
    "max_courses",
    "term_away",
    "duplicate",
    "antirequisite",
    "target",
    "clash",
    "free_time",
    "requirement",
]


class Defect(BaseModel):
    """One thing wrong with a plan."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: DefectKind = Field(description="What kind of rule the plan breaks.")
    term: str | None = Field(description="Term code where it happens, if any.")
    course: str | None = Field(description="Course involved, if any.")
    message: str = Field(description="Readable statement of the defect.")


class _Record:
    """What the student's record already gives, computed directly from the attempts."""

    def __init__(self, catalog: Catalog, student: StudentRecord) -> None:
        self.catalog = catalog
        self.attempts: dict[str, list[tuple[str | None, bool, bool]]] = {}
        for a in student.courses:
            self.attempts.setdefault(a.course, []).append(
                (a.grade, a.status == "in_progress", a.pass_fail)
            )
        self.units = student.units_earned(catalog, include_in_progress=True)

    def passes(self, code: str, min_grade: str | None) -> bool:
        for grade, in_progress, pass_fail in self.attempts.get(code, []):
            if in_progress:
                return True
            if not self.catalog.grade_meets(grade, None):
                continue
            if min_grade is None:
                return True
            if not pass_fail and grade != "P" and self.catalog.grade_meets(grade, min_grade):
                return True
        return False


def _min_grades(catalog: Catalog, programs: Sequence[str], code: str) -> list[str]:
    """Minimum grades asked of ``code`` by any prerequisite or target-program leaf."""
    out: list[str] = []

    def walk_prereq(node: PrereqNode | None) -> None:
        if isinstance(node, CourseCond) and node.course == code and node.min_grade:
            out.append(node.min_grade)
        elif isinstance(node, AllOf):
            for c in node.all:
                walk_prereq(c)
        elif isinstance(node, AnyOf):
            for c in node.any:
                walk_prereq(c)

    for course in catalog.courses:
        walk_prereq(course.prerequisites)
        walk_prereq(course.corequisites)
    course = catalog.course_by_code[code]

    def walk_req(node: object) -> None:
        if isinstance(node, CourseRequirement):
            if node.course == code and node.min_grade:
                out.append(node.min_grade)
        elif isinstance(node, CourseSetRequirement):
            if node.min_grade and node.matches(course):
                out.append(node.min_grade)
        else:
            for child in getattr(node, "children", []):
                walk_req(child)

    for p in programs:
        if p in catalog.program_by_code:
            walk_req(catalog.program_by_code[p].requirement)
    return out


def _threshold(catalog: Catalog, node: StandingCond | UnitsCond) -> float:
    if isinstance(node, UnitsCond):
        return node.units_completed
    t = catalog.standing_thresholds
    return {"first_year": 0.0, "sophomore": t.sophomore, "junior": t.junior, "senior": t.senior}[
        node.standing
    ]


def _holds(
    catalog: Catalog,
    node: PrereqNode | None,
    record: _Record,
    done: set[str],
    units_before: float,
    programs: set[str],
) -> bool:
    """Evaluate a prerequisite tree; ``done`` are planned courses that count as complete."""
    if node is None:
        return True
    if isinstance(node, CourseCond):
        return node.course in done or record.passes(node.course, node.min_grade)
    if isinstance(node, AllOf):
        return all(_holds(catalog, c, record, done, units_before, programs) for c in node.all)
    if isinstance(node, AnyOf):
        return any(_holds(catalog, c, record, done, units_before, programs) for c in node.any)
    if isinstance(node, StandingCond | UnitsCond):
        return units_before >= _threshold(catalog, node) - 1e-9
    if isinstance(node, ProgramCond):
        return node.program in programs
    assert isinstance(node, ConsentCond)
    return True  # consent is an approval to obtain, not a plan defect


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

    record = _Record(catalog, student)
    target_programs = set(programs) | set(student.programs)
    away = {Term.parse(t).code for t in [*student.terms_away, *c.terms_away]}
    current = Term.parse(student.current_term)
    first = Term.parse(c.first_term) if c.first_term else current.next_regular(c.include_summer)
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
        if pt.courses and term.season == "summer" and not c.include_summer:
            add("offering", code, None, f"{code} is a summer term but summers are not allowed")
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
            units += course.units * pt.courses.count(cc)
            if not course.offered.offered_in(term):
                add(
                    "offering",
                    code,
                    cc,
                    f"{cc} is not offered in {code} (offered: {', '.join(course.offered.terms)}, "
                    f"{course.offered.years} year)",
                )
            if not _holds(
                catalog, course.prerequisites, record, done, units_before, target_programs
            ):
                text = format_prereq(course.prerequisites)  # type: ignore[arg-type]
                add("prerequisite", code, cc, f"{cc} in {code} needs {text} before the term")
            if not _holds(
                catalog,
                course.corequisites,
                record,
                done | this_term,
                units_before,
                target_programs,
            ):
                text = format_prereq(course.corequisites)  # type: ignore[arg-type]
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
                and all(record.passes(cc, g) for g in _min_grades(catalog, programs, cc))
            ):
                add(
                    "duplicate",
                    code,
                    cc,
                    f"{cc} is already passed or in progress and is not repeatable",
                )
            if course.repeatable or (cc not in planned and not record.passes(cc, None)):
                gained += course.units
            planned.setdefault(cc, code)
        if abs(units - pt.units) > 1e-6:
            add(
                "units_max" if units > pt.units else "units_min",
                code,
                None,
                f"{code} reports {pt.units:g} units but its courses carry {units:g}",
            )
        cap = c.term_max_units.get(code, c.max_units_per_term)
        if units > cap + 1e-9:
            add("units_max", code, None, f"{units:g} units in {code} exceed the cap of {cap:g}")
        if c.max_courses_per_term is not None and len(pt.courses) > c.max_courses_per_term:
            add(
                "max_courses",
                code,
                None,
                f"{len(pt.courses)} courses in {code} exceed the limit of {c.max_courses_per_term}",
            )
        loads[code] = loads.get(code, 0.0) + units
        done |= this_term
        units_before += gained
    last = max((Term.parse(t) for t, u in loads.items() if u > 0), default=None)
    if last is not None:
        _floors(add, c, first, last, away, loads)
    _target(add, c, plan, last)
    _antirequisites(add, catalog, record, planned)
    _wishes(add, c, planned)
    _requirements(add, catalog, student, programs, planned, plan)
    if sections is not None:
        _check_sections(add, catalog, plan, sections, next_term)
    return out


Add = Callable[[DefectKind, "str | None", "str | None", str], None]


def _floors(
    add: Add,
    c: ConstraintsLike,
    first: Term,
    last: Term,
    away: set[str],
    loads: dict[str, float],
) -> None:
    """Every term from the first through graduation carries at least its floor."""
    t = first
    while t <= last:
        if t.season != "summer" or c.include_summer:
            default = c.min_units_per_term if t.season != "summer" else 0.0
            floor = c.term_min_units.get(t.code, default)
            units = loads.get(t.code, 0.0)
            if t.code not in away and units < floor - 1e-9:
                add(
                    "units_min",
                    t.code,
                    None,
                    f"{units:g} units in {t.code} are below the floor of {floor:g}",
                )
        t = Term.from_index(t.index + 1)


def _target(add: Add, c: ConstraintsLike, plan: PlanLike, last: Term | None) -> None:
    if last is None:
        return
    if plan.graduation_term != last.code:
        add(
            "target",
            last.code,
            None,
            f"the plan reports graduation in "
            f"{plan.graduation_term} but its last course term is {last.code}",
        )
    if c.target_term and last > Term.parse(c.target_term):
        add(
            "target",
            last.code,
            None,
            f"graduation in {last.code} is after the target {Term.parse(c.target_term).code}",
        )
    if c.latest_term and last > Term.parse(c.latest_term):
        add(
            "target",
            last.code,
            None,
            f"graduation in {last.code} is after the latest term {Term.parse(c.latest_term).code}",
        )


def _antirequisites(add: Add, catalog: Catalog, record: _Record, planned: dict[str, str]) -> None:
    reported: set[frozenset[str]] = set()
    for cc, term in sorted(planned.items()):
        course = catalog.course_by_code.get(cc)
        if course is None:
            continue
        others = set(course.antirequisites) | {
            o.code for o in catalog.courses if cc in o.antirequisites
        }
        for other in sorted(others - {cc}):
            pair = frozenset((cc, other))
            if pair in reported:
                continue
            if other in planned:
                reported.add(pair)
                add(
                    "antirequisite",
                    term,
                    cc,
                    f"{cc} ({term}) and {other} ({planned[other]}) exclude each other",
                )
            elif record.passes(other, None):
                reported.add(pair)
                add(
                    "antirequisite",
                    term,
                    cc,
                    f"{cc} ({term}) is excluded by {other}, already on the record",
                )


def _wishes(add: Add, c: ConstraintsLike, planned: dict[str, str]) -> None:
    for cc in c.avoid:
        if cc in planned:
            add("requirement", planned[cc], cc, f"{cc} is planned although it is to be avoided")
    for cc, term in c.fixed.items():
        code = Term.parse(term).code
        if planned.get(cc) != code:
            add(
                "requirement",
                code,
                cc,
                f"{cc} is fixed in {code} but planned in {planned.get(cc, 'no term')}",
            )


def _requirements(
    add: Add,
    catalog: Catalog,
    student: StudentRecord,
    programs: Sequence[str],
    planned: dict[str, str],
    plan: PlanLike,
) -> None:
    from agents.audit import audit, unmet  # at call time: the audit is a peer module

    report = audit(catalog, student, list(programs), planned=planned)
    for program, req, why in unmet(report):
        add("requirement", None, None, f"{program}/{req}: {why}")


def _check_sections(
    add: Add,
    catalog: Catalog,
    plan: PlanLike,
    sections: SectionsLike,
    next_term: str | None,
) -> None:
    term = Term.parse(next_term or sections.term).code
    chosen: list[tuple[str, Section]] = []
    for cc, sid in sorted(sections.sections.items()):
        course = catalog.course_by_code.get(cc)
        found = [s for s in course.sections_in(term) if s.id == sid] if course else []
        if not found:
            add("clash", term, cc, f"{cc} has no section {sid!r} in {term}")
            continue
        chosen.append((cc, found[0]))
    planned_here = next((pt.courses for pt in plan.terms if Term.parse(pt.term).code == term), [])
    for cc in planned_here:
        if cc not in sections.sections:
            add("clash", term, cc, f"{cc} is planned in {term} but has no section chosen")
    for i, (a, sa) in enumerate(chosen):
        for b, sb in chosen[i + 1 :]:
            for ma in sa.meetings:
                for mb in sb.meetings:
                    if set(ma.days) & set(mb.days) and ma.start < mb.end and mb.start < ma.end:
                        add(
                            "clash",
                            term,
                            a,
                            f"{a} {sa.id} ({ma.days} {ma.start}-{ma.end}) "
                            f"clashes with {b} {sb.id} ({mb.days} {mb.start}-{mb.end})",
                        )
    for cc, s in chosen:
        for m in s.meetings:
            days = "".join(d for d in m.days if d in sections.free_days)
            if days:
                add(
                    "free_time",
                    term,
                    cc,
                    f"{cc} {s.id} meets on {days} ({m.start}-{m.end}), a day to keep free",
                )
            if sections.not_before and m.start < sections.not_before:
                add(
                    "free_time",
                    term,
                    cc,
                    f"{cc} {s.id} starts at {m.start}, before {sections.not_before}",
                )
            if sections.not_after and m.end > sections.not_after:
                add(
                    "free_time",
                    term,
                    cc,
                    f"{cc} {s.id} ends at {m.end}, after {sections.not_after}",
                )


def _count(n: int) -> str:
    return f"{n} course" if n == 1 else f"{n} courses"

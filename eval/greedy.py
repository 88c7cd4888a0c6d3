"""The benchmark's baseline: a simple greedy topological planner (``greedy``), written
here so the CP-SAT planner is compared with what a careful script would do: each term take
the offered courses whose prerequisites are met, requirement courses first (longest chain
of dependents first), up to the cap, then free electives until the degree total is
reached."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agents.catalog import (
    AllOf,
    AllOfRequirement,
    AnyOf,
    Catalog,
    CourseCond,
    CourseRequirement,
    CourseSetRequirement,
    NOfRequirement,
    PrereqNode,
    ProgramCond,
    RequirementNode,
    StandingCond,
    StudentRecord,
    Term,
    UnitsCond,
    offered_in,
)
from agents.planner import (
    PlanConstraints,
    PlannedTerm,
    PlanResult,
)


@dataclass
class Greedy:
    """The baseline's answer."""

    terms: list[PlannedTerm] = field(default_factory=list)
    graduation_term: str | None = None
    units: float = 0.0


def _passes(catalog: Catalog, student: StudentRecord, code: str, grade: str | None) -> bool:
    for a in student.attempts_of(code):
        if a.status == "in_progress":
            return True
        if catalog.grade_meets(a.grade, grade) and (grade is None or not a.pass_fail):
            return True
    return False


def _antireqs(catalog: Catalog, code: str) -> set[str]:
    out = set(catalog.course(code).antirequisites)
    out.update(c.code for c in catalog.courses if code in c.antirequisites)
    return out


def _limit(catalog: Catalog, a: str, b: str) -> int | None:
    pa, pb = catalog.program(a), catalog.program(b)
    found = [
        lim.max_courses
        for x, y in ((pa, pb), (pb, pa))
        for lim in x.sharing
        if lim.with_program in (None, y.code) and lim.with_kind in (None, y.kind)
    ]
    return min(found) if found else None


class _Allocation:
    """The baseline's naive requirement allocation, one program at a time."""

    def __init__(self, catalog: Catalog, student: StudentRecord) -> None:
        self.catalog, self.student = catalog, student
        self.chosen: list[str] = []
        self.used_by: dict[str, set[str]] = {}

    def have(self, code: str, grade: str | None) -> bool:
        return code in self.chosen or _passes(self.catalog, self.student, code, grade)

    def blocked(self, code: str) -> bool:
        return any(
            a in self.chosen or _passes(self.catalog, self.student, a, None)
            for a in _antireqs(self.catalog, code)
        )

    def program(self, prog: str) -> None:
        self.prog = prog
        self.used: set[str] = set()
        self.walk(self.catalog.program(prog).requirement)
        self.used_by[prog] = self.used

    def countable(self, code: str) -> bool:
        if code in self.used:
            return False
        for other, taken in self.used_by.items():
            lim = _limit(self.catalog, self.prog, other)
            if code in taken and lim is not None and len(self.used & taken) >= lim:
                return False
        return True

    def take(self, code: str) -> None:
        self.used.add(code)
        if not _passes(self.catalog, self.student, code, None) and code not in self.chosen:
            self.chosen.append(code)

    def met(self, node: RequirementNode) -> bool:
        if isinstance(node, CourseRequirement):
            return self.have(node.course, node.min_grade) and self.countable(node.course)
        return False

    def walk(self, node: RequirementNode) -> None:
        if isinstance(node, CourseRequirement):
            if self.countable(node.course):
                self.take(node.course)
        elif isinstance(node, AllOfRequirement):
            for child in node.children:
                self.walk(child)
        elif isinstance(node, NOfRequirement):
            done = [c for c in node.children if self.met(c)]
            rest = [c for c in node.children if c not in done]
            for child in [*done, *rest][: node.n]:
                self.walk(child)
        elif isinstance(node, CourseSetRequirement):
            match = sorted(
                (c for c in self.catalog.courses if node.matches(c)),
                key=lambda c: (c.level, c.code),
            )
            count = 0
            units = 0.0
            old = [c for c in match if self.have(c.code, node.min_grade) and self.countable(c.code)]
            new = [c for c in match if not self.have(c.code, None) and self.countable(c.code)]
            for c in old + new:
                if count >= (node.min_courses or 0) and units >= (node.min_units or 0):
                    break
                if c in new and self.blocked(c.code):
                    continue
                self.take(c.code)
                count += 1
                units += c.units


def _needed(catalog: Catalog, student: StudentRecord, programs: Sequence[str]) -> list[str]:
    """Courses that close every program's open requirements, chosen naively: majors first,
    a course counts once per program, sharing limits respected, lowest level first."""
    alloc = _Allocation(catalog, student)
    for prog in sorted(programs, key=lambda p: catalog.program(p).kind != "major"):
        alloc.program(prog)
    chosen = alloc.chosen
    # Prerequisites of the chosen courses (the shortest alternative of an OR), repeatedly.
    changed = True
    while changed:
        changed = False
        for code in list(chosen):
            for need in _prereq_courses(catalog, student, catalog.course(code).prerequisites):
                if need not in chosen:
                    chosen.append(need)
                    changed = True
    return chosen


def _prereq_courses(catalog: Catalog, student: StudentRecord, node: PrereqNode | None) -> list[str]:
    if node is None:
        return []
    if isinstance(node, CourseCond):
        return [] if _passes(catalog, student, node.course, node.min_grade) else [node.course]
    if isinstance(node, AllOf):
        return [c for ch in node.all for c in _prereq_courses(catalog, student, ch)]
    if isinstance(node, AnyOf):
        options = [_prereq_courses(catalog, student, ch) for ch in node.any]
        return min(options, key=len)
    return []


def _ok(
    catalog: Catalog,
    student: StudentRecord,
    node: PrereqNode | None,
    done: set[str],
    units: float,
    programs: set[str],
) -> bool:
    if node is None:
        return True
    if isinstance(node, CourseCond):
        return node.course in done or _passes(catalog, student, node.course, node.min_grade)
    if isinstance(node, AllOf):
        return all(_ok(catalog, student, c, done, units, programs) for c in node.all)
    if isinstance(node, AnyOf):
        return any(_ok(catalog, student, c, done, units, programs) for c in node.any)
    if isinstance(node, UnitsCond):
        return units >= node.units_completed
    if isinstance(node, StandingCond):
        order = ("first_year", "sophomore", "junior", "senior")
        return order.index(catalog.standing_for_units(units)) >= order.index(node.standing)
    if isinstance(node, ProgramCond):
        return node.program in programs
    return True


def greedy(
    catalog: Catalog, student: StudentRecord, programs: Sequence[str], c: PlanConstraints
) -> Greedy:
    """Term by term: requirement courses first, up to the cap, then electives to the total."""
    needed = _needed(catalog, student, programs)
    total = max((catalog.program(p).total_units or 0.0) for p in programs)
    units = student.units_earned(catalog, include_in_progress=True)
    done: set[str] = set()
    away = set(student.terms_away) | set(c.terms_away)
    term = Term.parse(student.current_term).next_regular()
    last = term
    for _ in range(11):
        last = last.next_regular()
    progs = set(programs) | set(student.programs)
    depth: dict[str, int] = {}

    def chain(code: str) -> int:
        if code not in depth:
            depth[code] = 0
            kids = [
                n
                for n in needed
                if code in _prereq_courses(catalog, student, catalog.course(n).prerequisites)
            ]
            depth[code] = 1 + max((chain(k) for k in kids), default=0)
        return depth[code]

    out = Greedy()
    while term <= last:
        if all(n in done for n in needed) and units >= total:
            break
        picks: list[str] = []
        load = 0.0
        if term.code not in away:
            todo = sorted((n for n in needed if n not in done), key=lambda n: (-chain(n), n))
            extra = sorted(
                (
                    x.code
                    for x in catalog.courses
                    if x.code not in done
                    and x.code not in needed
                    and not _passes(catalog, student, x.code, None)
                    and not any(
                        _passes(catalog, student, a, None) for a in _antireqs(catalog, x.code)
                    )
                ),
                key=lambda code: (catalog.course(code).level, code),
            )
            requirement_done = all(n in done for n in needed)
            for code in todo + (extra if requirement_done or not todo else []):
                course = catalog.course(code)
                if load + course.units > c.max_units_per_term:
                    continue
                if code in extra and units + load >= total:
                    break
                if not offered_in(catalog, course, term):
                    continue
                if not _ok(catalog, student, course.prerequisites, done, units, progs):
                    continue
                if not _ok(catalog, student, course.corequisites, done | set(picks), units, progs):
                    continue
                if any(a in done or a in picks for a in _antireqs(catalog, code)):
                    continue
                picks.append(code)
                load += course.units
        out.terms.append(PlannedTerm(term=term.code, courses=sorted(picks), units=load))
        done |= set(picks)
        units += sum(
            catalog.course(x).units for x in picks if not _passes(catalog, student, x, None)
        )
        out.units += load
        term = term.next_regular()
    finished = all(n in done for n in needed) and units >= total
    while out.terms and not out.terms[-1].courses:
        out.terms.pop()
    out.graduation_term = (out.terms[-1].term if out.terms else None) if finished else None
    return out


def as_result(g: Greedy) -> PlanResult:
    return PlanResult(
        status="feasible" if g.graduation_term else "infeasible",
        terms=g.terms,
        graduation_term=g.graduation_term,
        units_planned=g.units,
        extra_units=0.0,
        reasons=[],
        earliest_feasible_term=None,
        requirement_of={},
        solve_ms=0.0,
    )

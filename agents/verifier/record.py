"""What the student's record already gives, and the prerequisite evaluation built on it.

Computed directly from the record's attempts, not through the audit or the planner: a
course in progress counts as passed; a minimum grade is met only by a letter grade (not
pass/fail) at least that high. ``holds`` evaluates a prerequisite tree with the record plus
the planned courses that count as complete; standing and units conditions are read from the
units completed before the term.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from agents.catalog import (
    AllOf,
    AnyOf,
    Catalog,
    ConsentCond,
    CourseCond,
    CourseRequirement,
    CourseSetRequirement,
    FactCond,
    PrereqNode,
    StandingCond,
    StudentRecord,
    UnitsCond,
    fact_holds,
    iter_prereq,
)


class RecordView:
    """What the student's record already gives, computed directly from the attempts."""

    def __init__(self, catalog: Catalog, student: StudentRecord) -> None:
        self.catalog = catalog
        self.attempts: dict[str, list[tuple[str | None, bool, bool]]] = {}
        for a in student.courses:
            self.attempts.setdefault(a.course, []).append(
                (a.grade, a.status == "in_progress", a.pass_fail)
            )
        self.units = student.units_earned(catalog, include_in_progress=True)
        self.tests = list(student.tests)
        self.milestones_met = list(student.milestones_met)

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


def min_grades(catalog: Catalog, programs: Sequence[str], code: str) -> list[str]:
    """Minimum grades asked of ``code`` by any prerequisite or target-program leaf."""
    out: list[str] = []
    for course in catalog.courses:
        for tree in (course.prerequisites, course.corequisites):
            for n in iter_prereq(tree):
                if isinstance(n, CourseCond) and n.course == code and n.min_grade:
                    out.append(n.min_grade)
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


def holds(
    catalog: Catalog,
    node: PrereqNode | None,
    record: RecordView,
    done: set[str],
    units_before: float,
    programs: set[str],
    now: Collection[str] = (),
) -> bool:
    """Evaluate a prerequisite tree; ``done`` are planned courses that count as complete,
    ``now`` those planned in the same term (they meet a condition that may be taken
    concurrently)."""
    if node is None:
        return True
    if isinstance(node, CourseCond):
        if node.concurrent and node.course in now:
            return True
        return node.course in done or record.passes(node.course, node.min_grade)
    if isinstance(node, AllOf):
        return all(holds(catalog, c, record, done, units_before, programs, now) for c in node.all)
    if isinstance(node, AnyOf):
        return any(holds(catalog, c, record, done, units_before, programs, now) for c in node.any)
    if isinstance(node, StandingCond | UnitsCond):
        return units_before >= _threshold(catalog, node) - 1e-9
    if isinstance(node, FactCond):
        return fact_holds(node, programs, record)
    assert isinstance(node, ConsentCond)
    return True  # consent is an approval to obtain, not a plan defect

"""How well a free elective (a planned course that counts toward no requirement) suits the
student, as an advisor would judge it - shared by the planner's tie-breaks and the benchmark:

- its level is at or above the student's: ``100 * class year`` (a senior: 400);
- it matches a stated interest or a subject of the declared programs (the subjects of the
  courses the program's department offers - not every subject its requirements name: a
  gen-ed science set says nothing about an economics major's field);
- it is not an orphan: a course with a corequisite (a recitation or lab) goes with its
  partner planned, not years after the partner on the record;
- it is a course one fills a schedule with (``may_fill``): not a practicum, internship or
  independent study, not dormant or retired, not one the student already passed;
- it is full-size: a course smaller than the catalog's typical one (``undersized``) is one
  registration more for a fraction of the credit (quarter-credit fillers do not fill a term).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from agents.catalog import (
    STANDINGS,
    Catalog,
    ClassStanding,
    Course,
    CourseCond,
    StudentRecord,
    institution_programs,
    iter_prereq,
)
from agents.catalog.credits import typical_credits
from agents.planner.reqtree import compile_requirements

FREE_ELECTIVE = "free elective"  # as PlanResult.requirement_of marks one


def student_level(standing: ClassStanding) -> int:
    """The course level that suits a student of ``standing``: 100 per class year."""
    return 100 * (STANDINGS.index(standing) + 1)


def program_subjects(catalog: Catalog, programs: Iterable[str]) -> frozenset[str]:
    """The subjects of ``programs``: those of the courses their department offers or, for a
    program whose department offers none, the subject most of its requirement leaves name
    (a leaf of one subject: a core course or an elective set of the field)."""
    out: set[str] = set()
    for code in programs:
        out |= _subjects_of(catalog, code)
    return frozenset(out)


def _subjects_of(catalog: Catalog, code: str) -> frozenset[str]:
    """``program_subjects`` of one program, kept with the catalog (``Catalog.derived``)."""
    key = f"planner.subjects.{code}"
    hit = catalog.derived.get(key)
    if not isinstance(hit, frozenset):
        hit = catalog.derived[key] = _find_subjects(catalog, code)
    return hit


def _find_subjects(catalog: Catalog, code: str) -> frozenset[str]:
    program = catalog.program_by_code.get(code)
    if program is None:
        return frozenset()
    own = {c.subject_code for c in catalog.courses if c.department == program.department}
    if own:
        return frozenset(own)
    _, leaves = compile_requirements(catalog, program)
    named: Counter[str] = Counter()
    for leaf in leaves:
        subjects = {catalog.course_by_code[c].subject_code for c in leaf.matching}
        if len(subjects) == 1:
            named.update(subjects)
    top = max(named.values(), default=0)
    return frozenset(s for s, n in named.items() if n == top)


def orphan(course: Course, planned: Iterable[str]) -> bool:
    """A course with corequisite courses none of which is planned (its partner, if any, is
    on the record): a recitation or lab cut off from its lecture."""
    partners = {n.course for n in iter_prereq(course.corequisites) if isinstance(n, CourseCond)}
    return bool(partners) and not partners & set(planned)


def typical_units(catalog: Catalog) -> float:
    """How big a course is, as far as the catalog says (``credits.typical_credits``: the
    size the median unit is taught in; a dozen quarter-credit activities do not make a
    1-credit catalog's typical course small); computed once per catalog."""
    hit = catalog.derived.get("planner.typical_units")
    if not isinstance(hit, float):
        hit = typical_credits(c.units for c in catalog.courses)
        catalog.derived["planner.typical_units"] = hit
    return hit


def undersized(course: Course, typical: float) -> bool:
    """Smaller than the catalog's typical course: a free elective of this size is one more
    registration for a fraction of the credit (0.25 credits where courses carry 1)."""
    return course.units < typical


def may_fill(course: Course, passed: bool) -> bool:
    """Whether a planner may add ``course`` on its own to make up units: the catalog lets it
    (``Course.free_elective``: no practicum, internship or independent study), it runs as
    usual (``Course.status`` active: not dormant, not retired) and the student has not
    passed it already. A course a requirement counts, or the student asks for, is planned
    whatever this says."""
    return course.free_elective and course.status == "active" and not passed


def fits(course: Course, level: int, interested: bool, subjects: frozenset[str]) -> bool:
    """At or above the student's level, and of interest or in a program's subject."""
    return course.level >= level and (interested or course.subject_code in subjects)


def misfit(course: Course, level: int, interested: bool, subjects: frozenset[str]) -> int:
    """A penalty for choosing ``course`` as a free elective (0: an advisor's choice): below
    the student's level, unrelated to interests and programs, each count; the planner adds
    the orphan penalty separately (it depends on the rest of the plan)."""
    return int(course.level < level) + int(not (interested or course.subject_code in subjects))


def declared_subjects(catalog: Catalog, programs: Iterable[str]) -> frozenset[str]:
    """``program_subjects`` of ``programs`` without the institution-wide requirements."""
    institution = {p.code for p in institution_programs(catalog)}
    return program_subjects(catalog, [p for p in programs if p not in institution])


def free_elective_fit(
    catalog: Catalog,
    student: StudentRecord,
    programs: Iterable[str],
    requirement_of: Mapping[str, list[str]],
    interests: Mapping[str, float] | None = None,
) -> tuple[int, int]:
    """(free electives, those that ``fits``) of a plan whose ``requirement_of`` marks free
    electives ``['free elective']`` (``PlanResult.requirement_of``)."""
    level = student_level(student.class_standing(catalog, include_in_progress=True))
    subjects = declared_subjects(catalog, programs)
    free = [c for c, labels in requirement_of.items() if labels == [FREE_ELECTIVE]]
    liked = interests or {}
    good = sum(fits(catalog.course(c), level, liked.get(c, 0.0) > 0, subjects) for c in free)
    return len(free), good

"""Free electives the planner adds on its own to make up units (fillers), as an advisor
would choose them (issue #17):

- only courses one fills a schedule with (``fit.may_fill``): no practicum, internship or
  independent study (``Course.free_elective``), no dormant or retired course, none the
  student already passed, none the record is past (``behind_record``). The pool never
  offers another as a filler, and the models take one only where a requirement counts it
  (``counted_only``) - unless the student asks for it, it is required, or another
  candidate needs it as a prerequisite;
- full-size courses before small ones: with 1-credit courses, four quarter-credit courses
  are four registrations for the credit of one. A course smaller than the catalog's typical
  one (``fit.undersized``) weighs ``UNDERSIZED`` in the free-choice tie-break
  (``elective_misfit``), after the fewest units - so exact unit totals still use
  them, as few as they can - and the pool ranks full-size fillers first;
- a course not to add on one's own that a set may count (an internship among economics
  electives) weighs ``ARRANGED``: a regular course of the set is preferred.
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from agents.catalog import Catalog, CourseCond, iter_prereq
from agents.catalog.history import all_lapsed
from agents.planner.fit import may_fill, typical_units, undersized
from agents.planner.prep import Prep

UNDERSIZED = 1  # per course: four quarter-credit courses weigh more than any full-size one
ARRANGED = 3  # more than any miss of a regular course


def filler(prep: Prep, code: str) -> bool:
    """Whether the planner may add ``code`` on its own as a free elective: ``may_fill``, and
    not behind the record (``behind_record``: no introductory calculus after multivariable
    calculus)."""
    course = prep.course(code)
    if not may_fill(course, code in prep.history.passed) or all_lapsed(prep.catalog, course):
        return False
    return code not in behind_record(prep)


def behind_record(prep: Prep) -> frozenset[str]:
    """Courses the record is already past: those a passed course builds on (named in its
    prerequisites or corequisites, transitively), and the introductory courses (the
    subject's lowest level in the catalog) of a subject where a passed course is above
    that level. Kept per prep."""
    hit = prep.derived.get("fillers.behind")
    if isinstance(hit, frozenset):
        return hit
    named, courses = prep.index.named, prep.catalog.course_by_code
    behind: set[str] = set()
    todo = [c for c in sorted(prep.history.passed) if c in courses]
    while todo:
        for n, _ in named.get(todo.pop(), ()):
            if n not in behind:
                behind.add(n)
                todo.append(n)
    lowest = _lowest_levels(prep.catalog)
    past = {
        courses[c].subject_code
        for c in prep.history.passed
        if c in courses and courses[c].level > lowest[courses[c].subject_code][0]
    }
    for subject in sorted(past):
        behind.update(lowest[subject][1])
    out = prep.derived["fillers.behind"] = frozenset(behind)
    return out


def _lowest_levels(catalog: Catalog) -> dict[str, tuple[int, tuple[str, ...]]]:
    """Each subject's lowest course level and the courses at it; computed once per catalog."""
    hit = catalog.derived.get("fillers.lowest")
    if isinstance(hit, dict):
        return hit
    out: dict[str, tuple[int, tuple[str, ...]]] = {}
    for c in catalog.courses:
        level, codes = out.get(c.subject_code, (c.level, ()))
        if c.level < level:
            out[c.subject_code] = (c.level, (c.code,))
        elif c.level == level:
            out[c.subject_code] = (level, (*codes, c.code))
    catalog.derived["fillers.lowest"] = out
    return out


def filler_misfit(prep: Prep, code: str) -> int:
    """The weight of ``code``'s size and kind as an optional course (0: a full-size course
    one may fill a schedule with)."""
    small = undersized(prep.course(code), typical_units(prep.catalog))
    return UNDERSIZED * small + ARRANGED * (not filler(prep, code))


def counted_only(
    m: cp_model.CpModel,
    prep: Prep,
    taken: dict[str, cp_model.IntVar],
    counts: dict[tuple[str, str], list[cp_model.IntVar]],
) -> None:
    """Post: a course that is no filler is taken only where a requirement counts it
    (``counts``: (program, course) -> the literals counting it toward a leaf), unless it is
    required or forced, or a prerequisite or corequisite of another candidate."""
    needed = {
        n.course
        for c in taken
        for tree in (prep.course(c).prerequisites, prep.course(c).corequisites)
        for n in iter_prereq(tree)
        if isinstance(n, CourseCond)
    }
    counted: dict[str, list[cp_model.IntVar]] = {}
    for (_, c), lits in counts.items():
        counted.setdefault(c, []).extend(lits)
    for c, t in sorted(taken.items()):
        if c in prep.must or c in prep.forced or c in needed or filler(prep, c):
            continue
        m.add_bool_or([t.Not(), *counted.get(c, [])])


Lit = cp_model.IntVar
ORPHAN = 2  # misfit of a free elective taken apart from its corequisite partners


def interest_shortfall(p: Prep, taken: dict[str, Lit]) -> tuple[cp_model.LinearExpr | int, int]:
    """Interest points short of the most the taken courses could earn (>= 0), and its bound."""
    interest = {c: round(100 * p.interests.get(c, 0.0)) for c in taken}
    top = sum(v for v in interest.values() if v > 0)
    low = sum(-v for v in interest.values() if v < 0)
    return top - sum(w * taken[c] for c, w in interest.items() if w), top + low


def elective_misfit(
    m: cp_model.CpModel, p: Prep, taken: dict[str, Lit]
) -> tuple[cp_model.LinearExpr | int, int]:
    """How badly the courses a plan is free to choose suit the student
    (``agents.planner.fit``), with its bound: level and relevance misses, the size and kind
    of course (``filler_misfit``: a quarter-credit course, an internship), and
    ``ORPHAN`` for a course taken without any of its corequisite partners. Every optional
    course counts, not only those no requirement counts: a surplus course may count toward a
    set in the model and still be a free elective in the result (``trim_counts``)."""
    terms: list[tuple[Lit, int]] = []
    for c, t in sorted(taken.items()):
        if c in p.must:
            continue
        if weight := p.misfit(c) + filler_misfit(p, c):
            terms.append((t, weight))
        coreqs = [n for n in iter_prereq(p.course(c).corequisites) if isinstance(n, CourseCond)]
        if coreqs:
            orphan = m.new_bool_var(f"orphan[{c}]")
            partners = [taken[n.course] for n in coreqs if n.course in taken]
            m.add_bool_or([t.Not(), *partners, orphan])
            terms.append((orphan, ORPHAN))
    return sum(w * v for v, w in terms), sum(w for _, w in terms)

"""Which courses the planner's models may use: the candidate pool.

Pruning rules (they keep the models small; each can only lose options, never admit an
invalid plan, and an infeasible answer is re-checked with every usable course):

- a course-set requirement keeps the matching courses that are cheapest to reach (fewest
  missing prerequisites), then those that count toward more target programs, then low level,
  up to what the set needs plus ``SET_SLACK`` - skipping courses beyond the set's caps, and
  adding the best course of further subjects until ``SUBJECT_SLACK`` more subjects than the
  set's ``min_subjects`` are in, and the best courses of each minimum from a sub-list until
  it has what the minimum needs plus ``SET_SLACK``;
- of the courses of interest (``Prep.interests``) that count toward a target program, the
  ``INTEREST_SLACK`` the student is most interested in (beyond those a requirement keeps);
- for an OR prerequisite only the cheapest alternatives are added (ties kept, at most
  ``ANY_ALTERNATIVES``), unless an alternative is already covered; a consent branch covers
  nothing while another branch has a course route (``risky.route_exists``);
- in a course set, dormant (possibly discontinued) courses rank after the others;
- free electives are offered courses one may fill a schedule with (``agents.planner.fillers``:
  no practicum or internship, none dormant or already passed) with no prerequisites beyond
  the record, full-size ones first, then lowest level (a recitation or lab whose partner is
  on the record last), enough to cover the estimated unit deficit plus ``FILLER_SLACK``,
  ``FIT_SLACK`` more of those that suit the student (``agents.planner.fit``: level,
  interests, program subjects), plus a few of every other unit size so exact unit totals
  stay reachable; the deficit estimate sizes a course a set still needs as the catalog's
  typical course (``fit.typical_units``), in exact hundredths (no unit size is assumed: a
  catalog of 1-credit courses plans like one of 9-unit courses);
- with at most ``FULL_POOL_MAX`` usable courses nothing is pruned;
- every slack is multiplied by ``Prep.slack`` (1; more for a pool a proof widens).

Pruning can lose the best plan. A plan from a pruned pool is therefore called optimal only
when it meets the whole catalog's bounds (``agents.planner.proof``), which may widen the
pool with ``extra`` courses (those the bound's relaxation chose) and solve again.
"""

from __future__ import annotations

from collections.abc import Collection

from agents.catalog import (
    AllOf,
    AnyOf,
    CourseCond,
    FactCond,
    PrereqNode,
)
from agents.catalog.credits import hundredths
from agents.catalog.history import all_lapsed
from agents.planner.fillers import filler
from agents.planner.fit import typical_units as catalog_typical_units
from agents.planner.fit import undersized
from agents.planner.prep import INF, Analysis, Prep
from agents.planner.reach import reach_all
from agents.planner.reqtree import Leaf, LeafCap
from agents.planner.risky import route_exists

SET_SLACK = 4
ANY_ALTERNATIVES = 3
FILLER_SLACK = 4
FIT_SLACK = 8
INTEREST_SLACK = 40
SUBJECT_SLACK = 1
FULL_POOL_MAX = 40  # with this few usable courses, skip pruning: the model stays small


def cost(prep: Prep, code: str, memo: dict[str, int]) -> int:
    """Rough number of courses to plan to take ``code`` (itself plus missing prereqs)."""
    if code in memo:
        return memo[code]
    memo[code] = INF  # guards against corequisite cycles

    def need(node: PrereqNode | None) -> int:
        if node is None:
            return 0
        if isinstance(node, CourseCond):
            if prep.hist_ok(node.course, node.min_grade):
                return 0
            return cost(prep, node.course, memo) if prep.plannable(node.course) else INF
        if isinstance(node, AllOf):
            return min(INF, sum(need(c) for c in node.all))
        if isinstance(node, AnyOf):
            return min(need(c) for c in node.any)
        if isinstance(node, FactCond):
            return 0 if prep.fact(node) else INF
        return 0

    c = prep.course(code)
    memo[code] = min(INF, 1 + need(c.prerequisites) + need(c.corequisites))
    return memo[code]


def build_pool(prep: Prep, full: bool = False, extra: Collection[str] = ()) -> None:
    """Choose the candidate courses; ``full`` (or a small catalog) keeps every usable one,
    ``extra`` adds those of its courses that are usable (a pool widened by a proof,
    ``agents.planner.proof``)."""
    memo: dict[str, int] = {}
    reach = prep.reach
    if reach is None:
        reach = prep.reach = reach_all(prep)
    usable_all = sorted(c for c, e in reach.est.items() if e < INF)
    prep.full = full or len(usable_all) <= FULL_POOL_MAX
    programs_of: dict[str, set[str]] = {}
    code: str | None  # a single-course leaf below may have no matching course
    for leaf in prep.leaves:
        for code in leaf.matching:
            programs_of.setdefault(code, set()).add(leaf.program)

    def usable(code: str) -> bool:
        return prep.plannable(code) and reach.est.get(code, INF) < INF

    def rank(code: str) -> tuple[object, ...]:
        c = prep.course(code)
        return (
            code not in prep.include and code not in prep.fixed,
            # possibly discontinued (dormant, or every offering lapsed): other options first
            c.status == "dormant" or all_lapsed(prep.catalog, c),
            bool(c.consent_kinds),
            prep.interests.get(code, 0.0) <= 0,
            cost(prep, code, memo),
            -len(programs_of.get(code, ())),
            reach.est.get(code, INF),
            c.level,
            c.units,
            code,
        )

    pool = {c for c in [*prep.include, *prep.fixed] if prep.plannable(c)}
    must: set[str] = set(pool)
    if prep.full:
        pool.update(usable_all)
    liked = [c for c in prep.interests if c in programs_of and usable(c)]
    liked.sort(key=lambda c: (-prep.interests[c], *rank(c)))
    pool.update(liked[: INTEREST_SLACK * prep.slack])
    pool.update(c for c in extra if usable(c))
    for leaf in prep.leaves:
        if leaf.kind == "course":
            code = leaf.matching[0] if leaf.matching else None
            if code is None or prep.hist_ok(code, leaf.min_grade):
                continue
            if prep.plannable(code):
                pool.add(code)
                if leaf.mandatory:
                    must.add(code)
            continue
        options = sorted((c for c in leaf.matching if usable(c)), key=rank)
        if not options:
            continue
        smallest = min(hundredths(prep.course(c).units) for c in leaf.matching)
        count = max(leaf.min_courses, -(-hundredths(leaf.min_units) // smallest))
        pool.update(_set_options(prep, leaf, options, count + SET_SLACK * prep.slack))
    _close(prep, pool, memo)
    _add_fillers(prep, pool, must, reach)
    _close(prep, pool, memo)
    prep.pool = sorted(pool)
    prep.must = must
    # Every usable course in the pool: the earliest terms are those over every plannable one.
    final = reach if prep.full else prep.analyse(set(prep.pool))
    prep.analysis = final
    for code in prep.pool:
        e = final.est.get(code, INF)
        prep.allowed[code] = [i for i in prep.allowed_for(code) if i >= e] if e < INF else []
    for leaf in prep.leaves:
        leaf.options = [
            c for c in leaf.matching if prep.hist_ok(c, leaf.min_grade) or prep.allowed.get(c)
        ]


def _set_options(prep: Prep, leaf: Leaf, ranked: list[str], count: int) -> list[str]:
    """The first ``count`` of ``ranked`` that the leaf's caps let count together, plus the
    best course of each further subject a subject minimum may need, plus the best courses
    of each minimum from a sub-list (``_minimum_options``)."""
    if not (leaf.caps or leaf.min_subjects):
        first = ranked[:count]
        return _minimum_options(prep, leaf, ranked, first) if leaf.minimums else first
    used = [0] * len(leaf.caps)
    units = [0] * len(leaf.caps)  # hundredths
    kept: list[str] = []
    for code in ranked:
        if len(kept) >= count:
            break
        inside = [i for i, cap in enumerate(leaf.caps) if code in cap.courses]
        size = hundredths(prep.course(code).units)
        if any(_full(leaf.caps[i], used[i], units[i] + size) for i in inside):
            continue
        for i in inside:
            used[i] += 1
            units[i] += size
        kept.append(code)
    subjects = {prep.course(c).subject_code for c in kept}
    for code in ranked:
        if len(subjects) >= leaf.min_subjects + SUBJECT_SLACK * prep.slack:
            break
        if prep.course(code).subject_code not in subjects:
            subjects.add(prep.course(code).subject_code)
            kept.append(code)
    return _minimum_options(prep, leaf, ranked, kept) if leaf.minimums else kept


def _minimum_options(prep: Prep, leaf: Leaf, ranked: list[str], kept: list[str]) -> list[str]:
    """``kept`` plus, for each minimum of the leaf, its best-ranked courses until the kept
    ones could meet it with ``SET_SLACK`` courses to spare: a sub-list whose courses rank low
    (more prerequisites, a higher level) still gets into the pool."""
    out = list(kept)
    for low in leaf.minimums:
        inside = [c for c in ranked if c in low.courses]
        if not inside:
            continue
        smallest = min(hundredths(prep.course(c).units) for c in inside)
        need = max(low.min_courses, -(-hundredths(low.min_units) // smallest))
        need += SET_SLACK * prep.slack
        have = sum(c in low.courses for c in out)
        for code in inside:
            if have >= need:
                break
            if code not in out:
                out.append(code)
                have += 1
    return out


def _full(cap: LeafCap, used: int, units: int) -> bool:
    """Whether a cap that counts ``used`` courses is full, or ``units`` (hundredths) exceed
    it."""
    if cap.max_courses is not None and used >= cap.max_courses:
        return True
    return cap.max_units is not None and units > hundredths(cap.max_units)


def typical_units(prep: Prep) -> float:
    """How big a course is, as far as the catalog says (``fit.typical_units``).
    (The catalog's, not each set's: the estimate only sizes the free-elective pool, and a
    set-by-set size would reshuffle which electives the pool offers.)"""
    return catalog_typical_units(prep.catalog)


def _close(prep: Prep, pool: set[str], memo: dict[str, int]) -> None:
    """Add missing prerequisites and corequisites of pool courses (cheapest OR branches)."""
    work = sorted(pool)
    while work:
        code = work.pop()
        course = prep.course(code)
        for tree in (course.prerequisites, course.corequisites):
            for add in _needed(prep, tree, pool, memo):
                if add not in pool:
                    pool.add(add)
                    work.append(add)
        if course.consent_kinds:
            prep.consent.add(code)


def _needed(prep: Prep, node: PrereqNode | None, pool: set[str], memo: dict[str, int]) -> list[str]:
    if node is None:
        return []
    if isinstance(node, CourseCond):
        ok = prep.hist_ok(node.course, node.min_grade) or not prep.plannable(node.course)
        return [] if ok else [node.course]
    if isinstance(node, AllOf):
        return [c for ch in node.all for c in _needed(prep, ch, pool, memo)]
    if isinstance(node, AnyOf):
        # A branch only a signature or an unplannable course can meet covers nothing while
        # another branch has a course route: "X or consent" brings X in (consent is the
        # last resort, ``agents.planner.risky``).
        routes = [ch for ch in node.any if route_exists(prep, ch)] or list(node.any)
        branches = [_needed(prep, ch, pool, memo) for ch in routes]
        if any(not b or all(c in pool for c in b) for b in branches):
            return []  # an alternative is already covered; keep the others out
        scored = sorted((sum(cost(prep, c, memo) for c in b), i) for i, b in enumerate(branches))
        best = scored[0][0]
        keep = [i for s, i in scored if s <= best + 1][: ANY_ALTERNATIVES * prep.slack]
        return [c for i in keep for c in branches[i]]
    return []


def _add_fillers(prep: Prep, pool: set[str], must: set[str], reach: Analysis) -> None:
    # Exact arithmetic in hundredths of a credit: the same decisions whatever the unit size.
    h = hundredths
    typical = typical_units(prep)
    set_units = 0
    for leaf in prep.leaves:
        if leaf.kind == "set":
            have = [c for c in leaf.matching if prep.hist_ok(c, leaf.min_grade)]
            have_units = sum(h(prep.course(c).units) for c in have)
            left_courses = max(0, leaf.min_courses - len(have))
            left_units = max(0, h(leaf.min_units) - have_units)
            set_units += max(left_courses * h(typical), left_units)
    planned_units = sum(h(prep.course(c).units) for c in must) + set_units
    # Terms needed at the mean cap (no floor on the cap: a 0.8-credit cap is a real one).
    caps = sum(h(cap) for cap in prep.caps)
    need = max(h(prep.total_needed), planned_units)
    terms_needed = -(-need * len(prep.caps) // caps) if caps > 0 else len(prep.terms)
    active = [i for i in range(len(prep.terms)) if prep.active[i]][:terms_needed]
    floor_need = sum(h(prep.floors[i]) for i in active)
    deficit = max(h(prep.total_needed), floor_need) - planned_units
    named = prep.index.named
    candidates = [
        c.code
        for c in prep.catalog.courses
        if c.code not in pool
        # A free elective needs no one's signature: consent courses (independent study)
        # would turn a clean plan into one with an approval to chase.
        and not c.consent_kinds
        and reach.est.get(c.code, INF) < INF
        and filler(prep, c.code)
        and prep.plannable(c.code)
        and all(prep.hist_ok(n, g) for n, g in named[c.code])
    ]

    def rank(code: str) -> tuple[object, ...]:
        c = prep.course(code)
        return (
            c.prerequisites is not None,
            c.corequisites is not None,  # its partner is on the record: an orphan
            undersized(c, typical),  # full-size courses make up units in fewer seats
            -len(prep.offered_positions(code)),
            c.level,
            -prep.interests.get(code, 0.0),
            c.units,
            code,
        )

    candidates.sort(key=rank)
    smallest = min((h(prep.course(c).units) for c in candidates), default=0)
    count = (-(-max(0, deficit) // smallest) if smallest > 0 else 0) + FILLER_SLACK * prep.slack
    pool.update(candidates[:count])
    # A few more that suit the student (``agents.planner.fit``): the selection's tie-breaks
    # can then prefer them at no cost in units.
    suited = [c for c in candidates[count:] if not prep.misfit(c)]
    fit = FIT_SLACK * prep.slack
    pool.update(sorted(suited, key=lambda c: (-prep.interests.get(c, 0.0), *rank(c)))[:fit])
    # A few of every other unit size, so that exact unit totals stay reachable (a total
    # the pool cannot hit exactly is also one the solver struggles to prove optimal).
    by_units: dict[float, list[str]] = {}
    for code in candidates[count:]:
        by_units.setdefault(prep.course(code).units, []).append(code)
    for codes in by_units.values():
        pool.update(codes[: min(count, FILLER_SLACK * prep.slack)])

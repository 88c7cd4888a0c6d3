"""Why required courses that no term through the end can take are missing, for the
reasons of an infeasible plan (``agents.planner.reasons``): each is explained once, by what
binds it - an offering after the end, a standing restriction the student cannot meet in
time (``agents.planner.reasons_block``), a prerequisite the record has below the grade asked
for and a retake refused, a prerequisite chain longer than the terms left (with the
restriction that draws it out, if one does) or one that can never be completed. The chains
come from the earliest terms over a horizon eight years past the end (``wide_prep``).
"""

from __future__ import annotations

from agents.catalog import Term
from agents.planner.prep import INF, Prep
from agents.planner.reasons_block import (
    condition_block,
    head_block,
    prerequisite_block,
    standing_block,
    standing_delay,
)
from agents.planner.reasons_fact import fact_block
from agents.planner.reasons_load import remain
from agents.planner.setup import PlanSetup
from agents.planner.terms import describe_offering, horizon


def missing_reasons(
    setup: PlanSetup, prep: Prep, end: Term, end_word: str, missing: list[str]
) -> list[str]:
    """Why each required course that no term through the end can take is missing: what
    binds it (an offering, a standing restriction, a refused retake, a prerequisite chain),
    said once per cause."""
    out: list[str] = []
    wide = wide_prep(setup, end.shift(end.calendar.size * 8))
    analysis = wide.analyse({c.code for c in prep.catalog.courses if wide.plannable(c.code)})
    covered: set[str] = set()
    # Longest chains first; a course already inside a reported chain adds nothing.
    for code in sorted(missing, key=lambda c: (-analysis.est.get(c, INF), c)):
        if code in covered:
            continue
        chain = wide.chain(code, analysis)
        chain = [c for c in chain if not wide.hist_ok(c, None) or c == code]
        # The first course of the chain that can never be taken, if one is (said once).
        stuck = next((c for c in chain if analysis.est.get(c, INF) >= INF), code)
        said = stuck in covered and stuck != code
        covered.update(chain)
        pos = analysis.est.get(code, INF)
        course = prep.course(code)
        if not prep.offered_positions(code):
            nxt = wide.terms[pos].code if pos < INF else None
            when = f"its next offering is {nxt}, after {end_word}"
            if nxt is None:
                when = "it has no offering in the next terms"
            how = f"is offered {describe_offering(course)}"
            if course.status == "retired":
                how = "is retired (no longer offered)"
            out.append(f"{code} {how}; {when}")
            continue
        # A standing the student cannot have in time binds, whatever the chain's length.
        restricted = next(
            ((c, r) for c in chain if (r := standing_block(prep, c, end_word))), (None, None)
        )
        if restricted[1] is not None:
            out.append(restricted[1])
        if len(chain) <= 1:
            if restricted[1] is None:
                out.append(
                    prerequisite_block(prep, wide, analysis, code)
                    or fact_block(prep, wide, analysis, code)
                    or condition_block(prep, code, end_word)
                    or f"{code} is offered {describe_offering(course)}; it cannot be "
                    f"taken by {end_word}"
                )
        elif pos < INF:
            more = sum(1 for i in range(pos + 1) if wide.active[i])
            delay = standing_delay(wide, analysis, chain)
            out.append(
                f"the prerequisite chain {' -> '.join(chain)} needs {more} more terms "
                f"({code} no earlier than {wide.terms[pos].code}{delay}) but only "
                f"{remain(sum(prep.active))} through {end_word}"
            )
        elif not said and restricted[0] != stuck:
            why = head_block(prep, wide, analysis, stuck) or fact_block(prep, wide, analysis, stuck)
            out.append(
                f"the prerequisite chain {' -> '.join(chain)} cannot be completed: "
                + (why or f"{stuck} cannot be taken")
            )
    return out


def wide_prep(setup: PlanSetup, end: Term) -> Prep:
    terms = horizon(setup.first, end, setup.c.allows)
    caps = [setup.c.term_max_units.get(t.code, setup.c.max_units_per_term) for t in terms]
    prep = Prep(
        setup.catalog,
        setup.student,
        setup.programs,
        terms,
        setup.away,
        caps,
        [0.0] * len(terms),
        avoid=setup.c.avoid,
        fixed=setup.fixed,
    )
    prep.forced = set(setup.c.forced) & set(setup.catalog.course_by_code)
    prep.total_needed = max(prep.total_needed, setup.c.min_units_planned)
    return prep

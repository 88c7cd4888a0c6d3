"""The earliest-term analysis of a whole catalog, kept with it (issue #26, real scale).

Choosing a pool and bounding the proofs need the earliest term of every plannable course of
the catalog (``Prep.analyse``): on a catalog of thousands of courses that is most of the
Python a plan costs, and the plans of one request - and the requests of one student - ask
for it again and again under the same inputs. ``reach_all`` keeps it with the catalog, under
a key of everything the analysis reads, so a kept answer is only ever one a fresh analysis
would give (``tests/test_planner_reuse.py`` checks that for each kind of input).
"""

from __future__ import annotations

from agents.planner.prep import Analysis, Prep

REACH_KEEP = 32  # analyses kept per catalog; the oldest goes first


def reach_all(prep: Prep) -> Analysis:
    """``analyse`` over every plannable course of the catalog: what a pool is chosen
    from and the proofs bound over. Kept with the catalog (``REACH_KEEP`` entries) under
    everything the analysis reads - the record, the plannable courses, the terms with
    their caps, standings and terms away, the forced, fixed and barred courses and the
    programs a prerequisite may name - so the plans of a request, and requests of one
    student, share it."""
    universe = frozenset(c.code for c in prep.catalog.courses if prep.plannable(c.code))
    named = prep.index.programs_named
    key = (
        prep.student.model_dump_json(),
        universe,
        tuple(prep.term_codes),
        tuple(prep.active),
        tuple(prep._cap_before),
        tuple(prep.standings),
        frozenset(prep.forced),
        tuple(sorted(prep.fixed.items())),
        tuple(sorted((c, tuple(sorted(v))) for c, v in prep.not_in.items())),
        frozenset(prep.program_codes & named),
    )
    memo: dict[object, Analysis] = prep.catalog.derived.setdefault("planner.reach", {})
    hit = memo.get(key)
    if hit is None:
        hit = prep.analyse(set(universe))
        if len(memo) >= REACH_KEEP:
            del memo[next(iter(memo))]  # the oldest entry
        memo[key] = hit
    return hit

"""The order in which the degree audit asks the allocation ``search`` its questions.

``allocate`` runs the stages (completed courses, then in progress, then planned) and
``lexmax`` keeps target nodes in the fixed order that ``alloc``'s docstring states, so what
is met is the lexicographic maximum.
"""

from __future__ import annotations

from agents.audit.alloc import STAGES, Allocator, Target
from agents.audit.partial import fill_partial
from agents.audit.pool import Option
from agents.audit.search import Search, State
from agents.catalog import Catalog, Program


def lexmax(al: Allocator, carried: list[Target]) -> tuple[State, Search]:
    """The lexicographically greatest set of targets that can be met together, in the order
    of ``alloc``'s docstring, and a finished state meeting it."""
    search = Search(al)
    sol = search.empty()
    kept: list[Target] = []

    def attempt(targets: list[Target]) -> bool:
        nonlocal sol
        if all(search.met(sol, t) for t in targets):
            found: State | None = sol
        else:
            found = search.solve(targets, sol, sol) or search.solve([*kept, *targets], None, sol)
        if found is None:
            return False
        kept.extend(targets)
        sol = found
        return True

    roots = [(code, 0) for code in al.allocs]
    complete = all(search.alone[r] for r in roots) and attempt(roots)
    # Without a complete allocation the carried nodes fit together (they did with fewer
    # courses), unless a search gave up; with one, each is kept where it still fits.
    if complete or (carried and not attempt(carried)):
        for t in carried:
            attempt([t])
    for code, a in al.allocs.items():
        covered: set[int] = set()
        for node in a.nodes:  # pre-order: parents before children
            if node.parent in covered or (code, node.idx) in kept:
                covered.add(node.idx)
                continue
            if search.alone[(code, node.idx)] and attempt([(code, node.idx)]):
                covered.add(node.idx)
    return sol, search


def allocate(catalog: Catalog, pool: dict[str, list[Option]], programs: list[Program]) -> Allocator:
    """Allocate ``pool`` to ``programs`` stage by stage (see ``alloc``)."""
    al = Allocator(catalog, pool, programs)
    carried: list[Target] = []
    first: dict[str, set[int]] | None = None
    for i, stage in enumerate(STAGES):
        al.allowed = stage
        new = stage - STAGES[i - 1] if i else stage
        if i and not any(o.status in new for opts in pool.values() for o in opts):
            continue  # nothing new to count: the previous stage's allocation stands
        solution, search = lexmax(al, carried)
        al.gave_up = al.gave_up or search.gave_up
        picks = {t: search.keys_of(mask) for t, mask in solution.picks.items()}
        al.materialize(solution.required, picks, search.free)
        met = al.met_nodes()
        first = met if first is None else first
        carried = [(code, idx) for code in al.allocs for idx in sorted(met[code])]
    fill_partial(al)
    final = al.met_nodes()
    assert first is not None
    al.met_by_completed = {code: first[code] & final[code] for code in al.allocs}
    return al

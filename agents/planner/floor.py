"""The units floor: the fewest units any plan can carry, by a subset-sum table (used by the
course-set model, ``agents.planner.select``, and the whole catalog's bounds,
``agents.planner.bound``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from agents.planner.cpsat import Steps
from agents.planner.prep import Prep

FLOOR_TABLE_MAX = 20000  # subset-sum table size limit (credit steps)


def units_floor(p: Prep, codes: Iterable[str], scale: Steps) -> int | None:
    """Fewest units (credit steps) any plan taking its courses from ``codes`` can carry: the
    required ones plus the cheapest choice of the others whose new units reach the degree
    total (a subset-sum table, courses of equal new units and units counted together, so
    that a catalog ten times larger costs no more). Requirements and terms are ignored, so
    this is a lower bound; it captures what LP bounds miss, e.g. that 9- and 12-unit
    courses can only add multiples of 3. None: the total is out of reach. A total beyond
    ``FLOOR_TABLE_MAX`` steps gives the required courses' units only."""
    kinds: Counter[tuple[int, int]] = Counter()
    base = need = 0
    for c in codes:
        units, gain = scale.count(p.course(c).units), scale.count(p.gain(c))
        if c in p.must:
            base += units
            need -= gain
        elif gain > 0:
            kinds[(gain, units)] += 1
    need += scale.ceil(p.total_needed)
    if need <= 0 or need > FLOOR_TABLE_MAX:
        return base
    inf = 1 << 60
    best = [inf] * (need + 1)
    best[0] = 0
    for (g, u), count in sorted(kinds.items()):
        count = min(count, -(-need // g))  # more of one kind never helps
        chunk = 1
        while count > 0:  # binary splitting: chunks 1, 2, 4, ... cover every count
            k = min(chunk, count)
            count -= k
            chunk *= 2
            for have in range(need, -1, -1):
                if best[have] < inf:
                    to = min(need, have + k * g)
                    best[to] = min(best[to], best[have] + k * u)
    return None if best[need] >= inf else base + best[need]

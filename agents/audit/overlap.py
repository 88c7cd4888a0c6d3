"""Courses counted twice within one program, where the program's ``overlaps`` allow it
(``agents.catalog.programs.Overlap``: "a writing-intensive course may also count as a major
elective").

``ProgramOverlaps`` reads a program's overlaps onto its flattened tree: two leaves may count
the same course when one lies under one node of an overlap and the other under its other
node; an overlap with ``max_courses`` bounds the courses counted on both of its sides. The
search (``search``) and the allocator (``alloc``, ``partial``) ask it about sets of keys as
bit masks. A program without overlaps has none (``None``): one course, one leaf, and the
search and the allocation take their usual path.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from agents.audit.program import FlatNode
from agents.catalog import AllOfRequirement, NOfRequirement, Program
from agents.catalog.programs import Overlap, overlap_sides


class ProgramOverlaps:
    """The overlaps of one program, on the leaf indexes of its flattened tree."""

    def __init__(self, program: Program, nodes: list[FlatNode]) -> None:
        index: dict[str, int] = {}
        for n in nodes:
            if not isinstance(n.req, AllOfRequirement | NOfRequirement):
                index.setdefault(n.req.id, n.idx)
        self.rules: list[tuple[Overlap, frozenset[int], frozenset[int]]] = []
        self._pair: dict[frozenset[int], int] = {}  # two leaves -> the overlap letting them
        for overlap, a, b in overlap_sides(program):
            left = frozenset(index[x] for x in a)
            right = frozenset(index[x] for x in b)
            for i in left:
                for j in right:
                    self._pair.setdefault(frozenset({i, j}), len(self.rules))
            self.rules.append((overlap, left, right))

    def rule(self, i: int, j: int) -> int | None:
        """The overlap that lets leaves ``i`` and ``j`` count the same course, if any."""
        return self._pair.get(frozenset({i, j}))

    def unlimited(self, i: int, j: int) -> bool:
        """Whether leaves ``i`` and ``j`` may count any number of the same courses."""
        r = self.rule(i, j)
        return r is not None and self.rules[r][0].max_courses is None

    def fits(self, held: Mapping[int, int], i: int, mask: int) -> bool:
        """Whether leaf ``i`` may also count the keys ``mask`` while the program's leaves
        count ``held`` (leaf -> keys): no key of a leaf it may not share with, and no
        overlap's limit passed."""
        for j, keys in held.items():
            if j != i and keys & mask and self.rule(i, j) is None:
                return False
        for overlap, left, right in self.rules:
            if overlap.max_courses is None or not (i in left or i in right):
                continue
            a = _union(held, left) | (mask if i in left else 0)
            b = _union(held, right) | (mask if i in right else 0)
            if (a & b).bit_count() > overlap.max_courses:
                return False
        return True

    def shared(self, held: Mapping[int, int], r: int) -> int:
        """The keys counted on both sides of overlap ``r``."""
        _, left, right = self.rules[r]
        return _union(held, left) & _union(held, right)


def _union(held: Mapping[int, int], leaves: frozenset[int]) -> int:
    out = 0
    for j in leaves:
        out |= held.get(j, 0)
    return out


def held_in(picks: Mapping[tuple[str, int], int], program: str) -> dict[int, int]:
    """Leaf -> keys (bit mask) of one program, from the search's picks."""
    return {leaf: mask for (code, leaf), mask in picks.items() if code == program}


def picks_in(
    picks: Mapping[tuple[str, int], int], programs: Collection[str]
) -> list[tuple[tuple[str, int], int]]:
    """The search's picks of the leaves of ``programs``."""
    return [(t, mask) for t, mask in picks.items() if t[0] in programs]

"""Choosing keys from classes of interchangeable keys, for the allocation ``search``.

A leaf only ever takes the first few keys of each class (any others would do the same), so
its choices are how many to take from each class: ``selections`` lists them, best-ranked
classes first, and ``count_selections`` counts them without listing.
"""

from __future__ import annotations

from collections.abc import Iterator

from agents.audit.pool import Option


def selections(
    groups: list[list[tuple[int, Option]]], size: int, start: int = 0
) -> Iterator[list[tuple[int, Option]]]:
    """Every way to take ``size`` keys as the first few of each group, most from the
    earlier (better-ranked) groups first."""
    if size == 0:
        yield []
        return
    if start == len(groups) or sum(len(g) for g in groups[start:]) < size:
        return
    group = groups[start]
    for n in range(min(size, len(group)), -1, -1):
        for rest in selections(groups, size - n, start + 1):
            yield [*group[:n], *rest]


def count_selections(sizes: list[int], size: int) -> int:
    """How many ways ``selections`` has for groups of these sizes."""
    ways = [1] + [0] * size
    for s in sizes:
        ways = [sum(ways[j - n] for n in range(min(s, j) + 1)) for j in range(size + 1)]
    return ways[size]

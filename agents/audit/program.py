"""One program as the allocation sees it: its requirement tree flattened in pre-order, and
its allocation state (which leaf counts which keys of the ``pool``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agents.audit.pool import Option
from agents.catalog import (
    AllOfRequirement,
    CourseRequirement,
    CourseSetRequirement,
    NOfRequirement,
    Program,
    RequirementNode,
)

Leaf = CourseRequirement | CourseSetRequirement


@dataclass(frozen=True)
class FlatNode:
    idx: int
    req: RequirementNode
    parent: int | None
    children: tuple[int, ...]


def flatten(root: RequirementNode) -> list[FlatNode]:
    """The tree in pre-order; a node's index is its position."""
    out: list[FlatNode] = []

    def visit(node: RequirementNode, parent: int | None) -> int:
        idx = len(out)
        out.append(FlatNode(idx, node, parent, ()))
        kids: list[int] = []
        if isinstance(node, AllOfRequirement | NOfRequirement):
            kids = [visit(c, idx) for c in node.children]
        out[idx] = FlatNode(idx, node, parent, tuple(kids))
        return idx

    visit(root, None)
    return out


def required_count(req: CourseSetRequirement) -> int | None:
    if req.min_courses is not None:
        return req.min_courses
    if req.min_units is None:  # the loader rejects this; count it as "all listed, or one"
        return len(req.courses) or 1
    return None


@dataclass
class ProgramAlloc:
    """One program's allocation."""

    program: Program
    nodes: list[FlatNode]
    cands: dict[int, list[str]]  # leaf -> matching pool keys, sorted
    demand: dict[str, int]  # key -> leaves of this program it matches
    order: list[int]  # leaves, most specific first: course leaves, then sets by fewest keys
    taken: dict[int, list[Option]] = field(default_factory=dict)
    used: dict[str, int] = field(default_factory=dict)  # key -> leaf
    also: dict[str, list[int]] = field(default_factory=dict)  # key -> more leaves (overlaps)
    blocked: dict[int, dict[str, str]] = field(default_factory=dict)  # leaf -> key -> program

"""Named milestones a prerequisite can ask for (issue #28, item 6): "lower-division writing
requirement met" is ``met(ELWR)``, and the catalog declares ``ELWR`` once - its title, and
``met_by``, a prerequisite expression over courses, scores and placements that meets it.

A student meets a milestone when the record lists it (``StudentRecord.milestones_met``) or
when its ``met_by`` holds; so the planner can plan the course that meets it before the
course that asks for it. When the catalog loads, every ``met(X)`` in a course's trees
becomes an ``any`` group of the record flag and X's expanded ``met_by`` (``resolve``), which
every reader of prerequisite trees already understands."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agents.catalog.prereq import (
    AllOf,
    AnyOf,
    MetCond,
    MetFlag,
    PrereqNode,
    format_prereq,
    iter_prereq,
)
from agents.catalog.prereq_parse import coerce_prereq


class Milestone(BaseModel):
    """A requirement a prerequisite can ask for by id: met on the record or by ``met_by``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", description="Id, e.g. 'ELWR'.")
    title: str = Field(
        min_length=1, description="What it is called, e.g. 'Entry Level Writing Requirement'."
    )
    met_by: PrereqNode | None = Field(
        default=None,
        description="What meets it besides the record saying so, as a prerequisite "
        "expression, e.g. 'WRITING 39A or score(AP-ENG, 3)'; None: only the record.",
    )
    rule: str | None = Field(
        default=None, description="The policy rule or document section that states it."
    )

    @field_validator("met_by", mode="before")
    @classmethod
    def _parse_expression(cls, value: object) -> object:
        return coerce_prereq(value)


def named(node: PrereqNode | None) -> list[str]:
    return [n.met for n in iter_prereq(node) if isinstance(n, MetCond)]


def check(milestones: Sequence[Milestone], trees: Sequence[tuple[str, PrereqNode | None]]) -> None:
    """Raise ValueError when an id repeats, ``met(X)`` names no declared milestone (``trees``:
    (where, tree) pairs, e.g. ('course WRITING 60 prerequisites', tree)), or a milestone's
    met_by asks for itself, directly or through another milestone."""
    ids = [m.id for m in milestones]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError(f"milestones: id {dup[0]!r} is declared twice")
    known = ", ".join(ids) or "none declared"
    wheres = [*trees, *((f"milestone {m.id} met_by", m.met_by) for m in milestones)]
    for where, tree in wheres:
        for name in named(tree):
            if name not in ids:
                raise ValueError(f"{where}: met({name}) names no milestone; milestones: {known}")
    edges = {m.id: named(m.met_by) for m in milestones}

    def visit(mid: str, path: list[str]) -> None:
        if mid in path:
            cycle = " -> ".join([*path[path.index(mid) :], mid])
            raise ValueError(f"milestone {mid} met_by asks for itself: {cycle}")
        for nxt in edges[mid]:
            visit(nxt, [*path, mid])

    for mid in ids:
        visit(mid, [])


def expand(node: PrereqNode | None, milestones: Sequence[Milestone]) -> PrereqNode | None:
    """``node`` with every ``met(X)`` filled in: the record flag, then X's met_by (itself
    expanded). Assumes ``check`` passed; returns ``node`` itself when it names none."""
    if node is None or not named(node):
        return node
    by_id = {m.id: m for m in milestones}

    def fill(n: PrereqNode) -> PrereqNode:
        if isinstance(n, MetCond):
            met_by = by_id[n.met].met_by
            via = fill(met_by) if met_by is not None else None
            return MetCond(met=n.met, any=[MetFlag(milestone=n.met), *([via] if via else [])])
        if isinstance(n, AllOf):
            return AllOf(all=[fill(c) for c in n.all])
        if isinstance(n, AnyOf):
            return AnyOf(any=[fill(c) for c in n.any])
        return n

    return fill(node)


def milestone_words(node: PrereqNode | None, milestones: Sequence[Milestone]) -> str:
    """What the milestones ``node`` asks for are, for a message that prints the tree as an
    expression: " (met(ELWR): the Entry Level Writing Requirement, on the record or by WR 39A
    or score(AP-ENG, 3))"; '' when it names none."""
    by_id = {m.id: m for m in milestones}
    out: list[str] = []
    for mid in dict.fromkeys(named(node)):
        m = by_id.get(mid)
        if m is None:
            continue
        how = f" or by {format_prereq(m.met_by)}" if m.met_by is not None else " only"
        out.append(f"met({m.id}): the {m.title}, on the record{how}")
    return f" ({'; '.join(out)})" if out else ""

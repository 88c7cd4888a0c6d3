"""Why a required course can never be taken when what bounds it is a milestone its
prerequisites ask for (``met(ELWR)``, ``agents.catalog.milestones``) that the record does
not list as met and whose ``met_by`` no plan can satisfy: 'WR 60 needs the Entry Level
Writing Requirement met (ELWR): WR 39A or score(AP-ENG, 3), and the record does not list it
as met; WR 39A is retired (no longer offered)'. For the reasons of an infeasible plan
(``agents.planner.reasons_missing``)."""

from __future__ import annotations

from agents.catalog import MetCond, courses_in, format_prereq, iter_prereq
from agents.planner.prep import INF, Analysis, Prep
from agents.planner.reasons_block import ready, untakeable


def fact_block(prep: Prep, wide: Prep, analysis: Analysis, code: str) -> str | None:
    """The unmet milestones that keep ``code`` from ever being taken (within ``wide``), with
    what would meet each and why its courses cannot be taken; None when none binds."""
    course = prep.course(code)
    if code in prep.forced:
        return None
    by_id = {m.id: m for m in prep.catalog.milestones}
    parts: list[str] = []
    stuck: list[str] = []
    for node in iter_prereq(course.prerequisites):
        if not isinstance(node, MetCond) or node.met not in by_id:
            continue
        if ready(wide, analysis, node, True) < INF:
            continue
        m = by_id[node.met]
        how = f": {format_prereq(m.met_by)}" if m.met_by is not None else ""
        part = f"the {m.title} met ({m.id}){how}, and the record does not list it as met"
        if part not in parts:
            parts.append(part)
        for c in courses_in(m.met_by):
            why = _never(wide, c) if c in prep.catalog.course_by_code else None
            if why and f"{c} {why}" not in stuck:
                stuck.append(f"{c} {why}")
    if not parts:
        return None
    return f"{code} needs " + " and ".join(parts) + "".join(f"; {s}" for s in stuck)


def _never(wide: Prep, code: str) -> str | None:
    """Why ``code`` can never be taken in ``wide``'s terms, when it cannot; None otherwise."""
    if (why := untakeable(wide, code)) is not None:
        return why
    if wide.hist_ok(code, None) or wide.offered_positions(code):
        return None
    if wide.course(code).status == "retired":
        return "is retired (no longer offered)"
    return "has no offering in the next terms"

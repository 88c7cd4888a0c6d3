"""Checks over the plan's span: unit floors through graduation, and the graduation term.

An optional term (summer, interim) counts only when the constraints allow it
(``optional_allowed``); its floor is zero unless the constraints give that term an explicit
floor. Terms away carry no floor.
"""

from __future__ import annotations

from agents.catalog import Term, credits_text
from agents.verifier.defects import Add
from agents.verifier.protocols import ConstraintsLike, PlanLike


def optional_allowed(c: ConstraintsLike, term: Term) -> bool:
    """Whether an optional term may carry courses: every one with ``include_summer``,
    otherwise one named in ``optional_terms`` or of a kind in ``optional_kinds``."""
    return c.include_summer or term.code in c.optional_terms or term.kind in c.optional_kinds


def first_allowed(c: ConstraintsLike, current: Term) -> Term:
    """The first plannable term after ``current``: regular, or an allowed optional one."""
    t = current.shift(1)
    while not (t.regular or optional_allowed(c, t)):
        t = t.shift(1)
    return t


def check_floors(
    add: Add,
    c: ConstraintsLike,
    first: Term,
    last: Term,
    away: set[str],
    loads: dict[str, float],
) -> None:
    """Every term from the first through graduation carries at least its floor."""
    t = first
    while t <= last:
        if t.regular or optional_allowed(c, t):
            default = c.min_units_per_term if t.regular else 0.0
            floor = c.term_min_units.get(t.code, default)
            units = loads.get(t.code, 0.0)
            if t.code not in away and units < floor - 1e-9:
                add(
                    "units_min",
                    t.code,
                    None,
                    f"{credits_text(units)} in {t.code} {'is' if units == 1 else 'are'} below the "
                    f"floor of {floor:g}",
                )
        t = t.shift(1)


def check_target(add: Add, c: ConstraintsLike, plan: PlanLike, last: Term | None) -> None:
    """The reported graduation term is the last course term, by the target and latest terms."""
    if last is None:
        return
    if plan.graduation_term != last.code:
        add(
            "target",
            last.code,
            None,
            f"the plan reports graduation in "
            f"{plan.graduation_term} but its last course term is {last.code}",
        )
    if c.target_term and last > Term.parse(c.target_term):
        add(
            "target",
            last.code,
            None,
            f"graduation in {last.code} is after the target {Term.parse(c.target_term).code}",
        )
    if c.latest_term and last > Term.parse(c.latest_term):
        add(
            "target",
            last.code,
            None,
            f"graduation in {last.code} is after the latest term {Term.parse(c.latest_term).code}",
        )

"""Residence in the last units of the degree (issue #28, item 9): "36 of the final 45 units
must be earned in residence" is a ``residency`` rule with ``of_last`` (limit 36, of_last 45).

The last units are counted back from graduation: first the planned units (every planned
course is taken here), then the record's earned and in-progress courses by term, latest
first, each attempt here (``source: institution``) or not (transfer, AP, exam credit) - an
attempt that straddles the window counts in part. A plan with at least ``of_last`` planned
units meets the rule by itself; a transfer student close to graduation may not: the
violation says how many units here the window holds, and the fix asks for the units that
would push the outside credit out of the window (``plan_more_units``).
"""

from __future__ import annotations

from agents.artifacts import Modification
from agents.catalog import PolicyRule, Term, count_text, credit_sub, credit_sum
from agents.policy.conditions import because
from agents.policy.plancheck import Findings, PlanCheck
from agents.policy.rules import num


def final_window(ctx: PlanCheck, window: float) -> tuple[float, float]:
    """(units earned here, units counted) among the last ``window`` units: planned first,
    then the record's attempts by term, latest first."""
    assert ctx.record is not None
    rec, cat = ctx.record, ctx.catalog
    chunks: list[tuple[float, bool]] = [(ctx.schedule.units_planned, True)]
    attempts = []
    for code in rec.earned_courses(cat, include_in_progress=True):
        best = rec.best_attempt(code, cat)
        if best is not None:
            attempts.append(best)
    attempts.sort(key=lambda a: (Term.parse(a.term).index, a.course), reverse=True)
    chunks += [(rec.units_of(a, cat), a.source == "institution") for a in attempts]
    here = seen = 0.0
    for units, inside in chunks:
        take = min(units, credit_sub(window, seen))
        if take <= 0:
            break
        seen = credit_sum([seen, take])
        if inside:
            here = credit_sum([here, take])
    return here, seen


def check_final_residency(ctx: PlanCheck, rule: PolicyRule, f: Findings) -> None:
    grad = ctx.schedule.graduation_term
    limit, why = ctx.threshold(rule)
    window = rule.of_last
    if grad is None or limit is None or window is None:
        return
    here, seen = final_window(ctx, window)
    if here >= limit or seen < limit:
        return  # met, or a degree shorter than the limit (the total-units rule says so)
    unit = ctx.unit_name
    short = credit_sub(limit, here)
    msg = (
        f"{count_text(here, unit)} of the final {num(window)} are earned at "
        f"{ctx.catalog.institution.name}; at least {num(limit)} must be{because(why)}"
    )
    f.violations.append(ctx.violation(rule, msg, grad))
    f.suggest(
        Modification(
            action="plan_more_units",
            value=credit_sum([ctx.schedule.units_planned, short]),
            rule_id=rule.id,
            reason=f"earn {count_text(short, unit)} more at {ctx.catalog.institution.name} "
            f"before graduating, within the final {num(window)}",
        )
    )

"""Load checks: the per-term unit maximum (standard, overload, probation, by standing) and
minimum, with the caps or floors that would fix them. The limits come from
``agents.policy.rules.load_limit``; the fixes cover every term, since capping or flooring
only the offending term lets the solver move the problem next door."""

from __future__ import annotations

import structlog

from agents.artifacts import (
    Modification,
    Risk,
    ScheduledTerm,
)
from agents.catalog import PolicyRule, Term
from agents.policy.plancheck import Findings, PlanCheck
from agents.policy.rules import (
    LoadLimit,
    join,
    label,
    load_limit,
    num,
    standings_by_term,
)

log = structlog.get_logger(__name__)


def check_loads(ctx: PlanCheck, f: Findings) -> None:
    """Maximum load per term: standard limits, probation, overload and its approval."""
    standings = standings_by_term(ctx.catalog, ctx.profile, ctx.enrolled_terms)
    p = ctx.profile
    limits: dict[str, LoadLimit] = {}
    hard: list[str] = []
    for t in ctx.enrolled_terms:
        lim = load_limit(
            ctx.catalog, gpa=p.gpa, standing=standings[t.term], status=p.academic_status
        )
        if lim is None:
            continue
        limits[t.term] = lim
        for rule_id in lim.applied:
            f.mark(rule_id)
        if t.units > lim.allowed:
            hard.append(t.term)
            why = f"{lim.why} " if lim.why else ""
            msg = f"{label(t.term)} has {num(t.units)} units; {why}the limit is "
            msg += f"{num(lim.allowed)} units"
            v = ctx.violation(lim.binding_rule, msg, t.term)
            f.violations.append(v.model_copy(update={"severity": "hard"}))
        elif t.units > lim.standard and lim.overload_rule is not None:
            _overload(ctx, f, t, lim)
    if hard:
        _suggest_caps(ctx, f, limits, hard)


def _overload(ctx: PlanCheck, f: Findings, t: ScheduledTerm, lim: LoadLimit) -> None:
    rule = lim.overload_rule
    assert rule is not None
    who = rule.requires_approval or "advisor"
    base = f"{label(t.term)} has {num(t.units)} units, above the standard {num(lim.standard)}"
    if rule.id in ctx.approvals:
        msg = f"{base}; the plan assumes {who} approval for the overload"
    else:
        msg = f"{base}; an overload up to {num(lim.allowed)} units needs {who} approval"
        f.violations.append(
            ctx.violation(rule, msg, t.term).model_copy(update={"severity": "soft"})
        )
        f.suggest(
            Modification(
                action="needs_approval",
                rule_id=rule.id,
                reason=f"ask for {who} approval of the overload terms; the student qualifies",
            )
        )
        msg = f"{label(t.term)} needs {who} approval for {num(t.units)} units before registration"
    f.risks.append(
        Risk(
            kind="approval_needed",
            message=msg,
            term=t.term,
            rule_id=rule.id,
            citation=ctx.cite(rule.id),
        )
    )


def _suggest_caps(
    ctx: PlanCheck, f: Findings, limits: dict[str, LoadLimit], hard: list[str]
) -> None:
    """Cap every term, not just the ones over: capping one term alone lets the solver move
    the overload to its neighbour. A general cap also covers terms a later plan adds."""
    c = ctx.schedule.constraints
    general = c.max_units_per_term if c else max(t.units for t in ctx.enrolled_terms)
    last = limits[max(limits, key=lambda code: Term.parse(code).index)]
    if general > last.allowed:
        general = last.allowed
        f.suggest(
            Modification(
                action="cap_all_terms_units",
                value=last.allowed,
                rule_id=last.binding_rule.id,
                reason=f"{join([label(x) for x in hard])} {'is' if len(hard) == 1 else 'are'} "
                f"over the {num(last.allowed)}-unit limit; cap every term at it",
            )
        )
    for code, lim in limits.items():
        effective = c.term_max_units.get(code, general) if c else general
        if effective > lim.allowed:
            f.suggest(
                Modification(
                    action="cap_term_units",
                    term=code,
                    value=lim.allowed,
                    rule_id=lim.binding_rule.id,
                    reason=f"{label(code)} may carry at most {num(lim.allowed)} units",
                )
            )
    if c is not None and c.target_term is not None:
        f.suggest(
            Modification(
                action="relax_target",
                rule_id=last.binding_rule.id,
                reason=f"graduating by {label(c.target_term)} needed terms above the limit; "
                "find the earliest graduation within it",
            )
        )


def check_min_load(ctx: PlanCheck, rule: PolicyRule, f: Findings) -> None:
    """Fall and spring terms before the last one must be full-time (the final term may be
    light: it only finishes the degree)."""
    assert rule.limit is not None
    terms = [t for t in ctx.enrolled_terms if Term.parse(t.term).season != "summer"]
    final = ctx.schedule.graduation_term or (terms[-1].term if terms else None)
    standings = standings_by_term(ctx.catalog, ctx.profile, ctx.schedule.terms)

    def can_be_full_time(term: str) -> bool:
        # A student whose load limit is below the full-time minimum (e.g. while suspended)
        # cannot be full-time; the load rule, not this one, speaks for that term.
        lim = load_limit(
            ctx.catalog,
            gpa=ctx.profile.gpa,
            standing=standings.get(term, ctx.profile.class_standing),
            status=ctx.profile.academic_status,
        )
        return lim is None or lim.allowed >= (rule.limit or 0)

    middle = [t for t in terms if t.term != final and can_be_full_time(t.term)]
    light = [t for t in middle if t.units < rule.limit]
    for t in light:
        msg = (
            f"{label(t.term)} has {num(t.units)} units, below the {num(rule.limit)} "
            "needed for full-time status"
        )
        f.violations.append(ctx.violation(rule, msg, t.term))
        f.risks.append(
            Risk(
                kind="load",
                message=f"{label(t.term)} is part-time ({num(t.units)} units): financial aid, "
                "housing and visa status may require full-time enrollment",
                term=t.term,
                rule_id=rule.id,
                citation=ctx.cite(rule.id),
            )
        )
    c = ctx.schedule.constraints
    # Floor every middle term, not only the light ones: the solver would otherwise move the
    # light load to a neighbour. A floor above a term's own cap (the student's wish for a
    # lighter term) would make the next plan infeasible, so those terms stay as they are.
    if not light or c is None:
        return
    for t in middle:
        cap = c.term_max_units.get(t.term, c.max_units_per_term)
        floor = c.term_min_units.get(t.term, c.min_units_per_term)
        if floor < rule.limit <= cap:
            f.suggest(
                Modification(
                    action="floor_term_units",
                    term=t.term,
                    value=rule.limit,
                    rule_id=rule.id,
                    reason=f"keep {label(t.term)} full-time",
                )
            )

"""Load checks: the per-term unit maximum (standard, overload, probation, by standing, by
term kind) and minimum, with the caps or floors that would fix them. The limits come from
``agents.policy.rules.term_load_limit``; a rule's limit table is looked up per term with
the standing the student has at its start (``PlanCheck.standings``: the units earned before
it, the plan's earlier terms included, counted as the planner counts them). The fixes cover
every term, since capping or flooring only the offending term lets the solver move the
problem next door.

The minimum (``min_units_per_term``) covers the regular terms before the last one; a
minimum rule with ``term_kinds`` covers the terms of those kinds instead (optional terms
never have a minimum otherwise)."""

from __future__ import annotations

import math

import structlog

from agents.artifacts import (
    ApprovalUse,
    Modification,
    Risk,
    ScheduledTerm,
)
from agents.catalog import ClassStanding, PolicyRule, Term, count_text, credit_sum, offered_in
from agents.catalog.policies import RuleCondition
from agents.policy.conditions import (
    STANDING_WORDS,
    STATUS_WORDS,
    because,
    governs,
    named_kinds,
)
from agents.policy.plancheck import Findings, PlanCheck
from agents.policy.rules import (
    LOAD_KINDS,
    LoadLimit,
    failure,
    join,
    label,
    num,
    term_load_limit,
)

log = structlog.get_logger(__name__)


def check_loads(ctx: PlanCheck, f: Findings) -> None:
    """Maximum load per term: standard limits, probation, overload and its approval."""
    standings = ctx.standings
    unit = ctx.unit_name
    limits: dict[str, LoadLimit] = {}
    hard: list[str] = []
    for t in ctx.enrolled_terms:
        lim = term_load_limit(ctx.catalog, ctx.term_facts(t.term, standings[t.term]))
        if lim is None:
            continue
        limits[t.term] = lim
        for rule_id in lim.applied:
            f.mark(rule_id)
        if t.units > lim.allowed:
            hard.append(t.term)
            why = f"{lim.why} " if lim.why else ""
            msg = f"{label(t.term)} has {count_text(t.units, unit)}; {why}the limit is "
            msg += f"{count_text(lim.allowed, unit)}"
            v = ctx.violation(lim.binding_rule, msg, t.term)
            f.violations.append(v.model_copy(update={"severity": "hard"}))
            closed = _closed_overload(ctx, t.term, standings[t.term], lim, t.units)
            # Said once per rule: the first term over the limit that the overload would hold.
            if closed is not None and not any(r.rule_id == closed[0].id for r in f.risks):
                # An overload would allow the load, but not to this student: why, citing it.
                f.mark(closed[0].id)
                f.risks.append(
                    Risk(
                        kind="load",
                        message=f"{label(t.term)} cannot carry {count_text(t.units, unit)}: not "
                        f"eligible for an overload {closed[1]} - {closed[2]}",
                        term=t.term,
                        rule_id=closed[0].id,
                        citation=ctx.cite(closed[0].id),
                    )
                )
        elif t.units > lim.standard and lim.overload_rule is not None:
            _overload(ctx, f, t, lim)
    if hard:
        _suggest_caps(ctx, f, limits, hard)


def _closed_overload(
    ctx: PlanCheck, term: str, standing: ClassStanding, lim: LoadLimit, units: float
) -> tuple[PolicyRule, str, str] | None:
    """The overload rule that would allow ``units`` in ``term`` (more than ``lim``) but
    does not apply to this student, the student's fact it fails ('with a GPA of 2.00') and
    what it allows to whom, in words; None when no such rule exists (or an overload already
    applies)."""
    std = lim.standard_rule
    if lim.overload_rule is not None or std.kind == "probation_max_units":
        return None  # an overload applies, or no overload lifts a probation cap
    if std.applies_when.status_in:
        return None  # a cap for a status (suspended) is not one an overload lifts
    facts = ctx.term_facts(term, standing)
    named = named_kinds(r for r in ctx.catalog.policies if r.kind in LOAD_KINDS)
    for rule in ctx.catalog.policies:
        tops = [x for x in [rule.limit, *(w.limit for w in rule.limit_table)] if x is not None]
        if rule.kind != "overload" or not tops or max(tops) < units:
            continue
        if not governs(rule, Term.parse(term), named, optional_terms=True):
            continue
        gap = failure(rule, facts)
        if gap is None:
            continue
        who = rule.requires_approval or "advisor"
        needs = _needs(rule.applies_when)
        allows = f"{rule.id} allows up to {count_text(max(tops), ctx.unit_name)}"
        return rule, gap, f"{allows} with {who} approval" + (f" only {needs}" if needs else "")
    return None


def _needs(when: RuleCondition) -> str:
    """What a rule's condition asks of a student, in words: 'with a GPA of at least 3.00,
    as a sophomore, a junior or a senior, in good academic standing'."""
    parts: list[str] = []
    if when.gpa_min is not None:
        parts.append(f"with a GPA of at least {when.gpa_min:.2f}")
    if when.recent_gpa_min is not None:
        n = when.recent_terms
        span = "regular term" if n == 1 else f"{n} regular terms"
        parts.append(f"with a GPA of at least {when.recent_gpa_min:.2f} over the last {span}")
    if when.standing_in:
        words = [STANDING_WORDS[s] for s in when.standing_in]
        parts.append(
            "as " + (words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}")
        )
    if when.status_in:
        parts.append(" or ".join(STATUS_WORDS[s] for s in when.status_in))
    return ", ".join(parts)


def _overload(ctx: PlanCheck, f: Findings, t: ScheduledTerm, lim: LoadLimit) -> None:
    rule = lim.overload_rule
    assert rule is not None
    who = rule.requires_approval or "advisor"
    unit = ctx.unit_name
    base = (
        f"{label(t.term)} has {count_text(t.units, unit)}, above the standard {num(lim.standard)}"
    )
    decided = ctx.decision(rule.id, t.term)
    if decided is not None:
        if decided not in f.approvals:
            f.approvals.append(decided)
        if decided.decision == "approved":
            return  # a person approved this term's overload: nothing left to ask
        _denied(ctx, f, t, lim, decided)
        return
    if rule.id in ctx.approvals:
        msg = f"{base}; the plan assumes {who} approval for the overload"
    else:
        more = (
            f"an overload up to {count_text(lim.allowed, unit)}"
            if math.isfinite(lim.allowed)
            else f"more than {count_text(lim.standard, unit)}"
        )
        msg = f"{base}; {more} needs {who} approval"
        f.violations.append(
            ctx.violation(rule, msg, t.term).model_copy(update={"severity": "soft"})
        )
        f.suggest(
            Modification(
                action="needs_approval",
                rule_id=rule.id,
                reason=f"ask for {who} approval of the overload terms; the student qualifies",
                approver=who,
            )
        )
        msg = (
            f"{label(t.term)} needs {who} approval for {count_text(t.units, unit)} "
            "before registration"
        )
    f.risks.append(
        Risk(
            kind="approval_needed",
            message=msg,
            term=t.term,
            rule_id=rule.id,
            citation=ctx.cite(rule.id),
        )
    )


def _denied(
    ctx: PlanCheck, f: Findings, t: ScheduledTerm, lim: LoadLimit, decided: ApprovalUse
) -> None:
    """A denied overload is a hard limit at the standard load: cap every term there (the
    denial is of the overload, and a cap on this term alone moves it next door)."""
    rule = lim.overload_rule
    assert rule is not None
    unit = ctx.unit_name
    msg = (
        f"{label(t.term)} has {count_text(t.units, unit)}, above the standard {num(lim.standard)}; "
        f"the overload was denied by {decided.by} on {decided.date} ({decided.reason})"
    )
    f.violations.append(ctx.violation(rule, msg, t.term).model_copy(update={"severity": "hard"}))
    f.suggest(
        Modification(
            action="cap_all_terms_units",
            value=lim.standard,
            rule_id=rule.id,
            reason=f"the overload was denied; keep every term within the standard "
            f"{count_text(lim.standard, unit)}",
        )
    )
    c = ctx.schedule.constraints
    if c is not None and c.target_term is not None:
        f.suggest(
            Modification(
                action="relax_target",
                rule_id=rule.id,
                reason=f"graduating by {label(c.target_term)} needed the denied overload; find "
                "the earliest graduation within the standard load",
            )
        )


def _suggest_caps(
    ctx: PlanCheck, f: Findings, limits: dict[str, LoadLimit], hard: list[str]
) -> None:
    """Cap every term, not just the ones over: capping one term alone lets the solver move
    the overload to its neighbour. A general cap also covers terms a later plan adds; it
    comes from the last term the plain rules cover (a term-kind limit, e.g. summer's, caps
    only its own terms)."""
    c = ctx.schedule.constraints
    unit = ctx.unit_name
    general = c.max_units_per_term if c else max(t.units for t in ctx.enrolled_terms)
    plain = {code: lim for code, lim in limits.items() if not lim.kind_specific} or limits
    last = plain[max(plain, key=lambda code: Term.parse(code).index)]
    if general > last.allowed:
        general = last.allowed
        over = [x for x in hard if not limits[x].kind_specific]
        limit = f"the {num(last.allowed)}-{_singular(unit)} limit"
        reason = (
            f"{join([label(x) for x in over])} {'is' if len(over) == 1 else 'are'} over {limit}; "
            "cap every term at it"
            if over
            else f"keep every term within {limit}"
        )
        f.suggest(
            Modification(
                action="cap_all_terms_units",
                value=last.allowed,
                rule_id=last.binding_rule.id,
                reason=reason,
            )
        )
    for code, lim in limits.items():
        effective = general
        if c is not None and code in c.term_max_units:
            effective = c.term_max_units[code]
        elif c is not None:
            # The planner already held the term to its standing's cap.
            effective = min(general, c.standing_max_units.get(ctx.standings[code], general))
        if effective > lim.allowed:
            f.suggest(
                Modification(
                    action="cap_term_units",
                    term=code,
                    value=lim.allowed,
                    rule_id=lim.binding_rule.id,
                    reason=f"{label(code)} may carry at most {count_text(lim.allowed, unit)}",
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


def _singular(unit: str) -> str:
    """'units' -> 'unit' (for '54-unit limit')."""
    return unit[:-1] if unit.endswith("s") else unit


def check_min_load(ctx: PlanCheck, rule: PolicyRule, f: Findings) -> None:
    """The terms the rule covers before the last one must be full-time (the final term may
    be light: it only finishes the degree). The minimum is looked up per term (a limit
    table by class standing uses the standing the student has then)."""
    family = [r for r in ctx.catalog.policies if r.kind == "min_units_per_term"]
    named = named_kinds(family)
    regular = [t for t in ctx.enrolled_terms if Term.parse(t.term).regular]
    final = ctx.schedule.graduation_term or (regular[-1].term if regular else None)
    standings = ctx.standings
    unit = ctx.unit_name
    need: dict[str, tuple[float, str]] = {}
    for t in ctx.enrolled_terms:
        if t.term == final or not governs(rule, Term.parse(t.term), named, optional_terms=False):
            continue
        facts = ctx.term_facts(t.term, standings.get(t.term, ctx.profile.class_standing))
        minimum, why = ctx.threshold(rule, facts)
        # A student whose load limit is below the full-time minimum (e.g. while suspended)
        # cannot be full-time; the load rule, not this one, speaks for that term.
        lim = term_load_limit(ctx.catalog, facts)
        if minimum is not None and (lim is None or lim.allowed >= minimum):
            need[t.term] = (minimum, why)
    middle = [t for t in ctx.enrolled_terms if t.term in need]
    light = [t for t in middle if t.units < need[t.term][0]]
    for t in light:
        minimum, why = need[t.term]
        msg = (
            f"{label(t.term)} has {count_text(t.units, unit)}, below the {num(minimum)} "
            f"needed for full-time status{because(why)}"
        )
        f.violations.append(ctx.violation(rule, msg, t.term))
        f.risks.append(
            Risk(
                kind="load",
                message=f"{label(t.term)} is part-time ({count_text(t.units, unit)}): "
                "financial aid, housing and visa status may require full-time enrollment",
                term=t.term,
                rule_id=rule.id,
                citation=ctx.cite(rule.id),
            )
        )
    c = ctx.schedule.constraints
    # Floor every middle term, not only the light ones: the solver would otherwise move the
    # light load to a neighbour. A floor above a term's own cap (the student's wish for a
    # lighter term) would make the next plan infeasible, so those terms stay as they are;
    # so do the terms of a lighter load the student asked for: a floor of their own below
    # the minimum ('8 units next quarter'), or a number of courses that cannot reach it
    # ('two courses next term').
    if not light or c is None:
        return
    for t in middle:
        minimum = need[t.term][0]
        cap = c.term_max_units.get(t.term, c.max_units_per_term)
        floor = c.term_min_units.get(t.term, c.min_units_per_term)
        if (t.term in c.term_min_units and floor < minimum) or _short(ctx, t.term, minimum):
            continue
        if floor < minimum <= cap:
            f.suggest(
                Modification(
                    action="floor_term_units",
                    term=t.term,
                    value=minimum,
                    rule_id=rule.id,
                    reason=f"keep {label(t.term)} full-time",
                )
            )


def _short(ctx: PlanCheck, term: str, minimum: float) -> bool:
    """Whether the most courses the constraint set allows in ``term`` (a number the student
    asked for there) cannot carry ``minimum`` units, even the largest courses offered then."""
    c = ctx.schedule.constraints
    most = c.term_max_courses.get(term) if c is not None else None
    if most is None:
        return False
    when = Term.parse(term)
    sizes = sorted(x.units for x in ctx.catalog.courses if offered_in(ctx.catalog, x, when))
    return credit_sum(sizes[-most:] if most else []) < minimum

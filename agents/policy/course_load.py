"""Courses per term (``max_courses_per_term``), in the terms each rule covers (plain: every
regular term and the optional terms no course-count rule names; ``conditions.governs``),
the limit looked up per term.

A limit that names who may approve more (``requires_approval``: "a sixth course needs the
dean's approval", ``rules.approvable``) is an overload in courses for a term the student
wanted that many courses in (a number wanted next term, courses pinned or registered
there): the critique asks that approval (a soft violation, ``needs_approval`` and an
``approval_needed`` risk) - unless a limit that names no one stops the count anyway (that
rule says so) - and honours a decision on it: approved, nothing is left to ask; denied,
the term is capped at the limit. A term over such a limit that nobody asked for is capped,
as over any other: term by term while a wished term stands above the limit (a cap on
every term would hold that one too).
"""

from __future__ import annotations

import structlog

from agents.artifacts import Modification, Risk, ScheduledTerm
from agents.catalog import PolicyRule, Term, count_text
from agents.policy.conditions import because, governs, named_kinds
from agents.policy.plancheck import Findings, PlanCheck
from agents.policy.rules import approvable, failure, label, num

log = structlog.get_logger(__name__)


def check_courses_per_term(ctx: PlanCheck, rule: PolicyRule, f: Findings) -> None:
    """Courses per term against ``rule``, as the module docstring says."""
    family = [r for r in ctx.catalog.policies if r.kind == rule.kind]
    named = named_kinds(family)
    standings = ctx.standings
    scoped = bool(rule.term_kinds_named)  # a rule for kinds of term: fixed in those terms
    asked = approvable(rule)
    over: list[tuple[ScheduledTerm, float, str]] = []
    wished = False
    for t in ctx.enrolled_terms:
        if not governs(rule, Term.parse(t.term), named, optional_terms=True):
            continue
        facts = ctx.term_facts(t.term, standings[t.term])
        limit, why = ctx.threshold(rule, facts)
        if limit is None or len(t.courses) <= limit:
            continue
        if asked and _wanted(ctx, t.term) > limit:
            wished = True
            ceilings = [
                lim
                for r in family
                if r is not rule and not approvable(r) and failure(r, facts) is None
                if governs(r, Term.parse(t.term), named, optional_terms=True)
                and (lim := ctx.threshold(r, facts)[0]) is not None
                and lim > limit
            ]
            if not ceilings or len(t.courses) <= min(ceilings):
                _approval(ctx, f, rule, t, limit)
            continue  # above a limit no one may lift: that rule says so
        over.append((t, limit, why))
    for t, limit, why in over:
        has = count_text(len(t.courses), "courses")
        msg = f"{label(t.term)} has {has}; the limit is {num(limit)}"
        f.violations.append(ctx.violation(rule, msg + because(why), t.term))
        if scoped or wished:
            f.suggest(_cap_term(rule, t.term, limit))
    if over and not (scoped or wished):
        lowest = min(limit for _, limit, _ in over)
        f.suggest(
            Modification(
                action="cap_courses_per_term",
                value=lowest,
                rule_id=rule.id,
                reason=f"no term may have more than {count_text(lowest, 'courses')}",
            )
        )


def _wanted(ctx: PlanCheck, term: str) -> int:
    """How many courses the student wanted in ``term``: a number asked for there, or the
    courses pinned or registered there (the constraint set's)."""
    c = ctx.schedule.constraints
    if c is None:
        return 0
    return max(c.term_min_courses.get(term, 0), sum(1 for x in c.fixed.values() if x == term))


def _cap_term(rule: PolicyRule, term: str, limit: float) -> Modification:
    return Modification(
        action="cap_term_courses",
        term=term,
        value=limit,
        rule_id=rule.id,
        reason=f"{label(term)} may have at most {count_text(limit, 'courses')}",
    )


def _approval(
    ctx: PlanCheck, f: Findings, rule: PolicyRule, t: ScheduledTerm, limit: float
) -> None:
    """Courses wanted in ``t`` above ``limit``, which ``rule`` lets its approver raise."""
    who = rule.requires_approval or "advisor"
    has = count_text(len(t.courses), "courses")
    base = f"{label(t.term)} has {has}, above the limit of {num(limit)}"
    decided = ctx.decision(rule.id, t.term)
    if decided is not None:
        if decided not in f.approvals:
            f.approvals.append(decided)
        if decided.decision == "approved":
            return  # a person approved this term's course load: nothing left to ask
        msg = f"{base}; more was denied by {decided.by} on {decided.date} ({decided.reason})"
        f.violations.append(
            ctx.violation(rule, msg, t.term).model_copy(update={"severity": "hard"})
        )
        f.suggest(_cap_term(rule, t.term, limit))
        return
    msg = f"{base}; more than {count_text(limit, 'courses')} needs {who} approval"
    f.violations.append(ctx.violation(rule, msg, t.term).model_copy(update={"severity": "soft"}))
    f.suggest(
        Modification(
            action="needs_approval",
            rule_id=rule.id,
            reason=f"ask for {who} approval of the courses wanted above the limit",
            approver=who,
        )
    )
    f.risks.append(
        Risk(
            kind="approval_needed",
            message=f"{label(t.term)} needs {who} approval for {has} before registration",
            term=t.term,
            rule_id=rule.id,
            citation=ctx.cite(rule.id),
        )
    )
    log.debug("policy.course_approval", rule=rule.id, term=t.term, courses=len(t.courses))

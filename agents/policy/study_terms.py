"""Terms of study (issue #28, item 12): "eight terms of study; graduation in fewer needs
the dean's approval". A ``min_terms`` rule sets the fewest regular terms a student is
enrolled in through graduation, counted as ``max_terms`` counts them: regular terms
completed, the current term when it is regular, and the planned regular terms with
courses through graduation (terms away do not count: the student is not enrolled here).

- ``terms_to_stay``: the regular terms a student still has to enrol in, and the rule. The
  round-1 constraint set (``agents.planning.initial_constraints``) asks for a course in
  each of them, so the normal plan graduates no earlier than the rule allows - unless the
  student's own target graduation is earlier and the rule names who may approve that: the
  plan then meets the target and the critique asks for the approval.
- ``check_min_terms``: the critique. A plan graduating after fewer terms is a soft
  violation with the approval asked (``needs_approval``, an ``approval_needed`` risk) when
  the rule names an approver and no one has decided; a hard one when it names no one or
  the approval was denied, with the fix: a course in each regular term the rule still asks
  for (``floor_term_courses``), and ``relax_target`` when the student's target is earlier.
"""

from __future__ import annotations

from agents.artifacts import Modification, Risk, StudentProfile
from agents.catalog import Catalog, PolicyRule, Term
from agents.policy.conditions import because, threshold
from agents.policy.plancheck import Findings, PlanCheck
from agents.policy.rules import applicable_rules, label, num
from agents.policy.standing import student_facts

STAY_SEARCH = 60  # terms looked through for the regular ones a rule still asks for


def enrolled_before_plan(profile: StudentProfile) -> int:
    """Regular terms completed, and the current one when it is regular."""
    return profile.terms_completed + int(Term.parse(profile.current_term).regular)


def terms_to_stay(catalog: Catalog, profile: StudentProfile) -> tuple[PolicyRule, int] | None:
    """The ``min_terms`` rule that asks for the most regular terms of this student, and how
    many more regular terms it asks for (None: no such rule, or it is met already)."""
    facts = student_facts(catalog, profile, None)
    best: tuple[PolicyRule, int] | None = None
    for rule in applicable_rules(catalog, profile, facts=facts):
        if rule.kind != "min_terms":
            continue
        limit, _ = threshold(rule, facts)
        if limit is None:
            continue
        left = int(limit) - enrolled_before_plan(profile)
        if left > 0 and (best is None or left > best[1]):
            best = (rule, left)
    return best


def stay_floors(first: str, left: int, away: list[str]) -> dict[str, int]:
    """One course in each of the first ``left`` regular terms from ``first`` on that the
    student is not away in (term code -> 1)."""
    out: dict[str, int] = {}
    term = Term.parse(first)
    for _ in range(STAY_SEARCH):
        if len(out) >= left:
            break
        if term.regular and term.code not in away:
            out[term.code] = 1
        term = term.shift(1)
    return out


def check_min_terms(ctx: PlanCheck, rule: PolicyRule, f: Findings) -> None:
    grad = ctx.schedule.graduation_term
    limit, why = ctx.threshold(rule)
    if grad is None or limit is None:
        return
    before = enrolled_before_plan(ctx.profile)
    planned = [t for t in ctx.enrolled_terms if Term.parse(t.term).regular]
    total = before + len(planned)
    if total >= limit:
        return
    base = (
        f"the plan graduates in {label(grad)} after {total} regular terms "
        f"({before} before the plan, {len(planned)} planned); "
        f"the rule asks for at least {num(limit)}{because(why)}"
    )
    who = rule.requires_approval
    decided = ctx.decision(rule.id, grad) if who else None
    if decided is not None:
        if decided not in f.approvals:
            f.approvals.append(decided)
        if decided.decision == "approved":
            return  # a person approved graduating early: nothing left to ask
        base += f"; graduating early was denied by {decided.by} on {decided.date}"
    if who and decided is None:
        msg = f"{base}; graduating earlier needs {who} approval"
        f.violations.append(ctx.violation(rule, msg, grad).model_copy(update={"severity": "soft"}))
        f.suggest(
            Modification(
                action="needs_approval",
                rule_id=rule.id,
                reason=f"ask for {who} approval to graduate after {total} terms",
                approver=who,
            )
        )
        f.risks.append(
            Risk(
                kind="approval_needed",
                message=f"graduating in {label(grad)} needs {who} approval before then",
                term=grad,
                rule_id=rule.id,
                citation=ctx.cite(rule.id),
            )
        )
        return
    f.violations.append(ctx.violation(rule, base, grad))
    away = list(ctx.schedule.constraints.terms_away) if ctx.schedule.constraints else []
    first = Term.parse(ctx.profile.current_term).shift(1).code
    left = int(limit) - before
    for term in stay_floors(first, left, away):
        f.suggest(
            Modification(
                action="floor_term_courses",
                term=term,
                value=1.0,
                rule_id=rule.id,
                reason=f"the rule asks for {num(limit)} regular terms of study{because(why)}",
            )
        )
    constraints = ctx.schedule.constraints
    if constraints is not None and constraints.target_term is not None:
        f.suggest(
            Modification(
                action="relax_target",
                rule_id=rule.id,
                reason=f"a graduation by {label(constraints.target_term)} is earlier than "
                "the terms of study allow",
            )
        )

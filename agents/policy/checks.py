"""The rule engine behind the policy critique: one check per rule kind, run over a
schedule. Which rules apply and the load limits are in ``agents.policy.rules``.

Every limit is the rule's effective one (the first ``limit_table`` row whose condition
holds, else ``limit``), and a message about a limit from a row says why it applied.

Other per-term rules: ``min_units_per_term`` applies to the regular terms before the last
one (the final term only finishes the degree; terms away have no courses);
``max_courses_per_term`` to every term the rule covers (``agents.policy.course_load``:
an approval asked for courses wanted above a limit that names an approver); the fixes
suggested for load problems cover every term, since capping or flooring only the offending
term lets the solver move the problem next door. The rules that read the record
(``repeat_limit``, ``pass_fail_limit``, ``academic_standing``) are in
``agents.policy.records``. ``program_sharing`` re-audits the finished plan and counts
shared courses per pair.

Degree-completion rules are checked against the finished plan only (a graduation term):

- ``max_terms``: regular (fall/spring) terms enrolled = terms completed + the current term
  + planned terms with courses through graduation. Terms away do not count: the student
  is not enrolled here then (leave, study abroad), and the policy text says so.
- ``residency``: units earned here (institution attempts, in progress and planned) must
  reach the limit; transfer, AP and exam credit do not count.
- ``min_gpa_graduation``: a GPA below the limit is a risk (grades are future); it is a
  violation only when straight A's in every planned unit could not lift it to the limit.

Rules that are not about load are taken at the student's current standing. A rule whose
kind has no check here, or that needs the record when the intake carries none, is reported
as a risk saying it was not checked - never skipped in silence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import structlog

from agents.artifacts import (
    Modification,
    Risk,
)
from agents.audit import sharing_limit
from agents.catalog import Catalog, PolicyRule, Term, count_text, credit_sub, credit_sum, singular
from agents.policy.conditions import because
from agents.policy.course_load import check_courses_per_term
from agents.policy.loads import check_loads, check_min_load
from agents.policy.plancheck import Findings, PlanCheck, add_violation
from agents.policy.records import check_pass_fail, check_repeats, check_standing
from agents.policy.residence import check_final_residency
from agents.policy.rules import (
    LOAD_KINDS,
    applicable_rules,
    label,
    num,
)
from agents.policy.sessions import check_session_units
from agents.policy.study_terms import check_min_terms

log = structlog.get_logger(__name__)


def check_sharing(ctx: PlanCheck, rule: PolicyRule, f: Findings) -> None:
    """Double-checks the audit of the finished plan: the audit already respects sharing
    limits, so a finding here means the plan and the audit disagree."""
    report = ctx.plan_audit
    if report is None:
        return
    seen: set[frozenset[str]] = set()
    for pa in report.programs:
        by_other: dict[str, set[str]] = {}
        for sc in pa.shared_courses:
            by_other.setdefault(sc.with_program, set()).add(sc.course)
        for other, codes in sorted(by_other.items()):
            pair = frozenset((pa.code, other))
            lim = sharing_limit(ctx.catalog.program(pa.code), ctx.catalog.program(other))
            if pair in seen or lim is None or len(codes) <= lim.max_courses:
                continue
            seen.add(pair)
            cited = ctx.catalog.rule_by_id.get(lim.rule or "", rule)
            msg = (
                f"{len(codes)} courses count toward both {pa.code} and {other} "
                f"({', '.join(sorted(codes))}); at most {lim.max_courses} may"
            )
            add_violation(f, ctx.violation(cited, msg))


def eligibility_problem(catalog: Catalog, code: str, majors: Sequence[str]) -> str | None:
    """Why a minor or concentration is closed to students in ``majors``; None if open."""
    prog = catalog.program_by_code.get(code)
    if prog is None or prog.kind == "major":
        return None
    bad = sorted(set(prog.excluded_majors) & set(majors))
    if bad:
        return (
            f"{code} ({prog.name}) is not open to students in {', '.join(bad)}; "
            "choose a different minor"
        )
    if prog.eligible_majors and not set(prog.eligible_majors) & set(majors):
        return (
            f"{code} ({prog.name}) is open only to students in "
            f"{', '.join(sorted(prog.eligible_majors))}; the student's majors: "
            f"{', '.join(majors) or 'none'}"
        )
    return None


def check_eligibility(ctx: PlanCheck, rule: PolicyRule, f: Findings) -> None:
    by_code = ctx.catalog.program_by_code
    majors = [c for c in ctx.programs if c in by_code and by_code[c].kind == "major"]
    for code in ctx.programs:
        problem = eligibility_problem(ctx.catalog, code, majors)
        if problem:
            add_violation(f, ctx.violation(rule, problem))


def check_max_terms(ctx: PlanCheck, rule: PolicyRule, f: Findings) -> None:
    grad = ctx.schedule.graduation_term
    limit, why = ctx.threshold(rule)
    if grad is None or limit is None:
        return
    p = ctx.profile
    now = int(Term.parse(p.current_term).regular)
    planned = [t for t in ctx.enrolled_terms if Term.parse(t.term).regular]
    total = p.terms_completed + now + len(planned)
    if total > limit:
        msg = (
            f"the plan graduates in {label(grad)} after {total} regular terms "
            f"({p.terms_completed} completed, {now} in progress, {len(planned)} planned); "
            f"the limit is {num(limit)}{because(why)}"
        )
        f.violations.append(ctx.violation(rule, msg, grad))


def check_residency(ctx: PlanCheck, rule: PolicyRule, f: Findings) -> None:
    grad = ctx.schedule.graduation_term
    limit, why = ctx.threshold(rule)
    assert ctx.record is not None and limit is not None
    if grad is None:
        return
    cat, rec, p = ctx.catalog, ctx.record, ctx.profile
    unit = ctx.unit_name
    if rule.of_last is not None:
        check_final_residency(ctx, rule, f)
        return
    brought: list[float] = []
    for code in rec.earned_courses(cat):
        best = rec.best_attempt(code, cat)
        if best is not None and best.source != "institution":
            brought.append(rec.units_of(best, cat))
    outside = credit_sum(brought)
    enrolled = credit_sum([p.units_earned, p.units_in_progress, ctx.schedule.units_planned])
    here = credit_sub(enrolled, outside)
    if here < limit:
        msg = (
            f"only {count_text(here, unit)} {'is' if here == 1 else 'are'} earned at "
            f"{cat.institution.name} "
            f"({num(outside)} come from transfer, AP or exam credit); at least "
            f"{num(limit)} must be{because(why)}"
        )
        f.violations.append(ctx.violation(rule, msg, grad))
        f.suggest(
            Modification(
                action="plan_more_units",
                value=credit_sum([ctx.schedule.units_planned, credit_sub(limit, here)]),
                rule_id=rule.id,
                reason=f"earn {_more(credit_sub(limit, here), unit)} at {cat.institution.name}",
            )
        )


def check_graduation_gpa(ctx: PlanCheck, rule: PolicyRule, f: Findings) -> None:
    gpa, (limit, why) = ctx.profile.gpa, ctx.threshold(rule)
    if gpa is None or limit is None or gpa >= limit:
        return
    unit = ctx.unit_name
    graded = _graded_units(ctx)
    planned = ctx.schedule.units_planned
    top = max(g.points for g in ctx.catalog.grade_scale if g.in_gpa)
    best = (gpa * graded + top * planned) / (graded + planned) if graded + planned else gpa
    grad = ctx.schedule.graduation_term
    if grad is not None and best < limit:
        msg = (
            f"the GPA is {gpa:.2f}; even with top grades in all {num(planned)} planned {unit} "
            f"it would reach at most {best:.2f}, below the {limit:.2f} needed to graduate"
            f"{because(why)}"
        )
        f.violations.append(ctx.violation(rule, msg, grad))
        return
    need = (limit * (graded + planned) - gpa * graded) / planned if planned else limit
    f.risks.append(
        Risk(
            kind="gpa",
            message=f"the GPA of {gpa:.2f} is below the {limit:.2f} needed to graduate"
            f"{because(why)}; the {num(planned)} planned {unit} must average at least "
            f"{need:.2f}",
            rule_id=rule.id,
            citation=ctx.cite(rule.id),
        )
    )


def _graded_units(ctx: PlanCheck) -> float:
    """Units behind the GPA: institution attempts with a grade that counts in it."""
    if ctx.record is None:
        return ctx.profile.units_earned
    graded: list[float] = []
    for a in ctx.record.courses:
        g = ctx.catalog.grade_by_symbol.get(a.grade or "")
        if a.status == "completed" and a.source == "institution" and g and g.in_gpa:
            graded.append(ctx.record.units_of(a, ctx.catalog))
    return credit_sum(graded)


def check_total_units(ctx: PlanCheck, rule: PolicyRule, f: Findings) -> None:
    grad, p = ctx.schedule.graduation_term, ctx.profile
    limit, why = ctx.threshold(rule)
    assert limit is not None
    total = credit_sum([p.units_earned, p.units_in_progress, ctx.schedule.units_planned])
    if grad is not None and total < limit:
        msg = f"the plan reaches {count_text(total, ctx.unit_name)} by {label(grad)}; "
        msg += f"a degree needs {num(limit)}{because(why)}"
        f.violations.append(ctx.violation(rule, msg, grad))


RuleCheck = Callable[[PlanCheck, PolicyRule, Findings], None]
CHECKS: dict[str, RuleCheck] = {
    "min_units_per_term": check_min_load,
    "max_courses_per_term": check_courses_per_term,
    "max_units_per_session": check_session_units,
    "repeat_limit": check_repeats,
    "pass_fail_limit": check_pass_fail,
    "program_sharing": check_sharing,
    "minor_eligibility": check_eligibility,
    "max_terms": check_max_terms,
    "min_terms": check_min_terms,
    "residency": check_residency,
    "min_gpa_graduation": check_graduation_gpa,
    "total_units": check_total_units,
    "academic_standing": check_standing,
}
NEEDS_RECORD = frozenset({"repeat_limit", "pass_fail_limit", "program_sharing", "residency"})
NEEDS_LIMIT = frozenset(CHECKS) - {"program_sharing", "minor_eligibility"}


def _has_limit(ctx: PlanCheck, rule: PolicyRule) -> bool:
    """Whether the rule has a limit for this student (a repeat rule with a grade ceiling
    needs none: without one, any number of repeats after a low grade is allowed)."""
    if rule.kind == "repeat_limit" and rule.grade_ceiling is not None:
        return True
    return ctx.threshold(rule)[0] is not None


def check_plan(ctx: PlanCheck, kinds: Sequence[str] | None = None) -> Findings:
    """Run every check that applies to the student (only ``kinds`` when given). A rule no
    check can handle is reported as a risk that says so, never skipped in silence."""
    f = Findings()
    if kinds is None or LOAD_KINDS & set(kinds):
        check_loads(ctx, f)
    for rule in applicable_rules(ctx.catalog, ctx.profile, facts=ctx.facts):
        if rule.kind in LOAD_KINDS or (kinds is not None and rule.kind not in kinds):
            continue
        check = CHECKS.get(rule.kind)
        if check is None:
            _not_checked(ctx, f, rule, f"no check exists for rule kind {rule.kind!r}")
        elif rule.kind in NEEDS_RECORD and ctx.record is None:
            _not_checked(ctx, f, rule, "the intake carries no student record")
        elif rule.kind in NEEDS_LIMIT and not _has_limit(ctx, rule):
            _not_checked(ctx, f, rule, "the catalog gives the rule no limit")
        else:
            check(ctx, rule, f)
            f.mark(rule.id)
    log.debug("policy.checked", rules=f.checked, violations=len(f.violations))
    return f


def _not_checked(ctx: PlanCheck, f: Findings, rule: PolicyRule, why: str) -> None:
    f.risks.append(
        Risk(
            kind="other",
            message=f"{rule.id} ({rule.title}) was not checked: {why}; check it by hand",
            rule_id=rule.id,
            citation=ctx.cite(rule.id),
        )
    )


def _more(amount: float, unit: str) -> str:
    """'12 more units', '1 more credit'."""
    return f"{num(amount)} more {singular(unit) if amount == 1 else unit}"

"""The critique's review of one schedule (``review``): every rule that applies checked by
``agents.policy``, the risks no rule states (consent, alternate-year offerings and possibly
discontinued courses from ``course_risks``, a missed target, next-term clashes, verifier
defects, courses earlier rounds refused, moved or lightened) and the verdict in words
(``critique_text``). The critique stage (``agents.critique``) reviews the case's schedule;
the alternative plans (``agents.advice.alternatives``) review each alternative the same way.
"""

from __future__ import annotations

import re

import structlog

from agents.artifacts import (
    ApprovalItem,
    CitationRef,
    Critique,
    IntakeResult,
    Risk,
    Schedule,
    Violation,
)
from agents.catalog import Term, count_text, is_published
from agents.checking.critique_text import Verdict, approvals_text, explain
from agents.checking.risks import course_risks
from agents.policy import Cite, PlanCheck, check_plan, label, num
from agents.toolbox import Toolbox

log = structlog.get_logger(__name__)


def review(
    intake: IntakeResult,
    schedule: Schedule,
    tools: Toolbox,
    dropped: dict[str, tuple[str | None, str]] | None = None,
    decisions: tuple[ApprovalItem, ...] = (),
    refused: dict[str, tuple[str | None, str]] | None = None,
    moved: dict[str, tuple[str, str | None, str]] | None = None,
    lighter: dict[str, tuple[float, str | None, str]] | None = None,
) -> Critique:
    """Critique ``schedule``: every fact checked comes from the schedule, the record and
    the catalog; ``decisions`` are the approvals and denials recorded on this run;
    ``refused``: courses earlier rounds took out (rule id, reason), asked for or not;
    ``moved``: courses wanted in a term (course -> term) and numbers of courses wanted in a
    term (term -> count) that earlier rounds let go of, each with the rule and reason;
    ``lighter``: units wanted in a term (term -> units) that earlier rounds capped."""
    ctx = PlanCheck(
        catalog=tools.catalog,
        profile=intake.profile,
        record=intake.student,
        programs=list(intake.target_programs),
        schedule=schedule,
        cite=citer(tools),
        decisions=decisions,
    )
    bound = log.bind(request_id=intake.request_id, round=schedule.round)
    if schedule.status == "not_needed" or schedule.solver_status == "infeasible":
        critique = _not_needed(ctx, refused or {})
    else:
        found = check_plan(ctx)
        risks = found.risks + plan_risks(ctx, intake) + _dropped(ctx, dropped or {})
        risks += _moved(ctx, moved or {}) + _lighter(ctx, lighter or {})
        approval = verdict(found.violations)
        critique = Critique(
            status="done",
            round=schedule.round,
            approval=approval,
            violations=found.violations,
            risks=risks,
            suggestions=found.suggestions,
            rules_checked=found.checked,
            approvals=found.approvals,
            explanation=explain(approval, found.violations, risks, found.suggestions)
            + approvals_text(found.approvals),
        )
    bound.info(
        "critique.done",
        approval=critique.approval,
        violations=[v.rule_id for v in critique.violations],
        risks=len(critique.risks),
    )
    return critique


def citer(tools: Toolbox) -> Cite:
    """Citations quote the catalog's section text exactly (through the retriever, which
    reads the catalog, not its index); memoized because the same rule is cited per term."""
    cache: dict[str, CitationRef] = {}

    def cite(rule_id: str) -> CitationRef:
        if rule_id not in cache:
            cache[rule_id] = tools.retriever.citation_for_rule(rule_id)
        return cache[rule_id]

    return cite


def verdict(violations: list[Violation]) -> Verdict:
    if any(v.severity == "hard" for v in violations):
        return "rejected"
    return "conditional" if violations else "approved"


def _not_needed(ctx: PlanCheck, refused: dict[str, tuple[str | None, str]]) -> Critique:
    s = ctx.schedule
    if s.status == "not_needed":
        reason = s.not_needed_reason or "no plan was made, so there is nothing to check"
    else:
        why = "; ".join(s.reasons) or "no reason given"
        reason = f"no plan to check: the planner proved that no plan exists ({why})"
        if s.infeasible_kind == "timed_out":
            # A time limit ran out: nothing was proved, and nothing is claimed.
            reason = f"no plan to check: the planner found none in time ({why})"
    found = check_plan(ctx, kinds=["minor_eligibility"])
    text = f"Nothing to approve: {reason}."
    if found.violations:
        text += " " + " ".join(f"{v.message[0].upper()}{v.message[1:]}." for v in found.violations)
    return Critique(
        status="not_needed",
        not_needed_reason=reason,
        round=s.round,
        approval="not_needed",
        violations=found.violations,
        risks=found.risks + _refused(ctx, refused),
        rules_checked=found.checked,
        explanation=text,
    )


def _refused(ctx: PlanCheck, refused: dict[str, tuple[str | None, str]]) -> list[Risk]:
    """Courses an earlier round took out under a rule (a retake the repeat rule forbids)
    that the planner's proof of infeasibility names: the rule is why no plan exists."""
    s = ctx.schedule
    if s.solver_status != "infeasible" or s.infeasible_kind == "timed_out":
        return []  # a time limit proves nothing
    said = " ".join(s.reasons)
    out: list[Risk] = []
    for code, (rule_id, reason) in sorted(refused.items()):
        rule = ctx.catalog.rule_by_id.get(rule_id or "")
        if rule is None or not re.search(rf"(?<![\w-]){re.escape(code)}(?![\w-])", said):
            continue
        out.append(
            Risk(
                kind="repeat" if rule.kind == "repeat_limit" else "other",
                message=f'no plan exists without {code}, which the policy "{rule.title}" '
                f"rules out: {reason}",
                rule_id=rule.id,
                citation=ctx.cite(rule.id),
            )
        )
    return out


# --------------------------------------------------------------------------- risks


def _dropped(ctx: PlanCheck, dropped: dict[str, tuple[str | None, str]]) -> list[Risk]:
    """Courses the student asked for that an earlier round took out of the plan."""
    planned = {c.course for t in ctx.schedule.terms for c in t.courses}
    return [
        Risk(
            kind="other",
            message=f"{code} was asked for but is not in the plan: {reason}",
            rule_id=rule_id,
            citation=ctx.cite(rule_id) if rule_id else None,
        )
        for code, (rule_id, reason) in sorted(dropped.items())
        if code not in planned
    ]


def _moved(ctx: PlanCheck, moved: dict[str, tuple[str, str | None, str]]) -> list[Risk]:
    """Courses wanted in a term (a registration to change, a course asked for next term)
    that the plan now takes in another one, and terms with fewer courses than were wanted
    there, with the rule that changed them."""
    where = {c.course: t.term for t in ctx.schedule.terms for c in t.courses}
    count = {t.term: len(t.courses) for t in ctx.schedule.terms}
    out: list[Risk] = []
    for key, (was, rule_id, reason) in sorted(moved.items()):
        cite = ctx.cite(rule_id) if rule_id else None
        if was.isdigit():
            if count.get(key, 0) < int(was):
                message = f"{was} courses were wanted in {label(key)} but the plan takes "
                message += f"{count.get(key, 0)}: {reason}"
                out.append(
                    Risk(kind="load", message=message, term=key, rule_id=rule_id, citation=cite)
                )
        elif where.get(key) != was:
            then = f"takes it in {label(where[key])}" if key in where else "leaves it out"
            message = f"{key} was wanted in {label(was)} but the plan {then}: {reason}"
            out.append(Risk(kind="load", message=message, term=was, rule_id=rule_id, citation=cite))
    return out


def _lighter(ctx: PlanCheck, lighter: dict[str, tuple[float, str | None, str]]) -> list[Risk]:
    """Terms planned with fewer units than were wanted there, with the rule that capped
    them."""
    load = {t.term: t.units for t in ctx.schedule.terms}
    out: list[Risk] = []
    for term, (was, rule_id, reason) in sorted(lighter.items()):
        if load.get(term, 0) < was:
            has = count_text(load.get(term, 0), ctx.unit_name)
            message = f"{count_text(was, ctx.unit_name)} were wanted in {label(term)} but the "
            message += f"plan takes {has}: {reason}"
            cite = ctx.cite(rule_id) if rule_id else None
            risk = Risk(kind="load", message=message, term=term, rule_id=rule_id, citation=cite)
            out.append(risk)
    return out


def plan_risks(ctx: PlanCheck, intake: IntakeResult) -> list[Risk]:
    """Risks no policy rule states, in plan order."""
    risks = course_risks(ctx)  # consent, offerings, possibly discontinued
    s = ctx.schedule
    target = intake.goals.target_graduation
    if target and s.graduation_term and Term.parse(s.graduation_term) > Term.parse(target):
        risks.append(
            Risk(
                kind="target_missed",
                message=f"the plan graduates in {label(s.graduation_term)}, after the "
                f"{label(target)} target",
                term=s.graduation_term,
            )
        )
    nt = s.next_term
    if nt is not None and nt.status == "clash":
        alt = f"; a clash-free set: {', '.join(nt.alternative)}" if nt.alternative else ""
        alt += _below_full_time(ctx, nt.term, nt.alternative or [])
        risks.append(
            Risk(
                kind="sections",
                message=f"{label(nt.term)} sections clash: {'; '.join(nt.clashes)}{alt}",
                term=nt.term,
            )
        )
    elif nt is not None and nt.status == "no_sections":
        what = ", ".join(nt.unscheduled) or "some planned courses"
        message = f"{label(nt.term)} has no sections yet for {what}"
        if is_published(ctx.catalog, Term.parse(nt.term)):
            # Only a course forced in lands here: the published schedule leaves it out.
            message = f"the published {label(nt.term)} schedule has no section of {what}"
        risks.append(Risk(kind="sections", message=message, term=nt.term))
    if nt is not None and nt.wish_conflicts:
        # No plan as good (same graduation, no more units) kept the wish: say which course,
        # meeting and wish, so the outcome is not a plain approval.
        risks.append(
            Risk(
                kind="sections",
                message=f"{label(nt.term)} sections break your time wishes: "
                f"{'; '.join(nt.wish_conflicts)} - no equally good plan keeps them",
                term=nt.term,
            )
        )
    risks += [_forced(finding) for finding in s.forced]
    risks += [Risk(kind="other", message=f"plan verifier: {d}") for d in s.verification]
    # What a time limit left undecided (e.g. whether a clash is avoidable) is not known.
    for x in s.time_limits:
        sections = x.stage in ("section_selection", "clash_replan")
        risks.append(Risk(kind="sections" if sections else "other", message=x.message))
    return risks


def _forced(finding: str) -> Risk:
    """A check the student chose to override by forcing a course in: it stands as a risk
    with what must happen before registration, never as a silent pass."""
    kind, _, what = finding.partition(": ")
    if kind == "offering":
        then = (
            "you asked for it anyway, so it stands only if the department runs it then; "
            "confirm before registration, or the course moves to a term it is offered"
        )
    else:
        then = (
            "you asked to take it anyway, so register only with the instructor's or the "
            "department's permission (a prerequisite override)"
        )
    return Risk(kind="forced", message=f"{what}; {then}")


def _below_full_time(ctx: PlanCheck, term: str, courses: list[str]) -> str:
    """A note when a suggested course set for ``term`` is below the full-time minimum."""
    if not courses:
        return ""
    units = sum(ctx.catalog.course(c).units for c in courses if c in ctx.catalog.course_by_code)
    facts = ctx.term_facts(term, ctx.standings.get(term, ctx.profile.class_standing))
    for rule in ctx.catalog.policies:
        if rule.kind != "min_units_per_term":
            continue
        minimum, _why = ctx.threshold(rule, facts)
        if minimum is not None and units < minimum:
            return (
                f" (that set carries {count_text(units, ctx.unit_name)}, below the {num(minimum)} "
                f"needed for full-time status under {rule.id})"
            )
    return ""


# --------------------------------------------------------------------------- explanation

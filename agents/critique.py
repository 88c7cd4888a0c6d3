"""The policy critique agent: checks a schedule against every rule that applies to the
student and says approved, conditional or rejected, with citations and structured fixes.

Verdict:

- ``rejected``: at least one hard violation (a term above the allowed load, a retake past
  the repeat limit, a minor the student may not add, ...);
- ``conditional``: only soft violations - an overload whose approval the plan does not yet
  assume, a part-time term in the middle of the plan;
- ``approved``: no violations. Risks may remain, among them overloads whose approval the
  constraint set assumes (``approvals_assumed``): those are risks, not violations.

A schedule with nothing to check (policy question, progress check) or no plan (the solver
proved infeasibility) gets ``not_needed`` with the reason; the eligibility rules are still
checked, since an ineligible what-if minor is worth saying whatever the plan.

Rule checks live in ``agents.policy.checks`` (every rule evaluated with ``PlanCheck.facts``:
the status an academic_standing rule gives, GPAs over recent terms from the record; every
limit the first matching row of the rule's limit table, else its limit; every violation
citing the rule's document section and saying which threshold applied and why); this
module adds the risks no rule states (consent, alternate-year offerings, a missed target,
next-term clashes, verifier defects) and writes the verdict in plain words (template;
``explanation_source`` says so).
"""

from __future__ import annotations

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
from agents.case import Case
from agents.catalog import (
    AllOf,
    AnyOf,
    ConsentCond,
    CourseCond,
    CourseRequirement,
    PrereqNode,
    RequirementNode,
    Term,
)
from agents.critique_text import Verdict, approvals_text, explain
from agents.policy import Cite, PlanCheck, check_plan, label, num
from agents.toolbox import Toolbox

log = structlog.get_logger(__name__)


def run(case: Case, tools: Toolbox) -> Critique:
    """The stage: critique the case's current schedule."""
    intake = case.need_intake()
    asked = set(intake.constraints.include_courses)
    dropped: dict[str, tuple[str | None, str]] = {}
    for refinement in case.refinements:
        for change in refinement.changes:
            if change.field == "avoid":
                for code in sorted(set(change.after) - set(change.before)):
                    if code in asked:
                        dropped.setdefault(code, (change.rule_id, change.reason))
    return review(intake, case.schedule, tools, dropped=dropped, decisions=case.approvals)


def review(
    intake: IntakeResult,
    schedule: Schedule,
    tools: Toolbox,
    dropped: dict[str, tuple[str | None, str]] | None = None,
    decisions: tuple[ApprovalItem, ...] = (),
) -> Critique:
    """Critique ``schedule``: every fact checked comes from the schedule, the record and
    the catalog; ``decisions`` are the approvals and denials recorded on this run."""
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
        critique = _not_needed(ctx)
    else:
        found = check_plan(ctx)
        risks = found.risks + plan_risks(ctx, intake) + _dropped(ctx, dropped or {})
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


def _not_needed(ctx: PlanCheck) -> Critique:
    s = ctx.schedule
    if s.status == "not_needed":
        reason = s.not_needed_reason or "no plan was made, so there is nothing to check"
    else:
        why = "; ".join(s.reasons) or "no reason given"
        reason = f"no plan to check: the planner proved that no plan exists ({why})"
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
        risks=found.risks,
        rules_checked=found.checked,
        explanation=text,
    )


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


def plan_risks(ctx: PlanCheck, intake: IntakeResult) -> list[Risk]:
    """Risks no policy rule states, in plan order."""
    risks = _consent(ctx) + _offerings(ctx)
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
        risks.append(
            Risk(
                kind="sections",
                message=f"{label(nt.term)} has no sections yet for "
                f"{', '.join(nt.unscheduled) or 'some planned courses'}",
                term=nt.term,
            )
        )
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
                f" (that set carries {num(units)} {ctx.unit_name}, below the {num(minimum)} "
                f"needed for full-time status under {rule.id})"
            )
    return ""


def _consent(ctx: PlanCheck) -> list[Risk]:
    """Courses whose prerequisites can only be met with someone's consent."""
    have: set[str] = set()
    if ctx.record is not None:
        have = ctx.record.earned_courses(ctx.catalog, include_in_progress=True)
    risks: list[Risk] = []
    for t in ctx.enrolled_terms:
        for sc in t.courses:
            course = ctx.catalog.course_by_code.get(sc.course)
            tree = course.prerequisites if course else None
            who = _consenters(tree)
            if tree is not None and who and not _holds(tree, have):
                risks.append(
                    Risk(
                        kind="consent_needed",
                        message=f"{sc.course} in {label(t.term)} needs {' or '.join(who)} "
                        "consent before registration",
                        term=t.term,
                    )
                )
        have |= {sc.course for sc in t.courses}
    return risks


def _holds(node: PrereqNode, have: set[str]) -> bool:
    """Whether the tree holds without consent. Standing, units and program conditions
    count as met: the verifier checks them; this is only about who must sign."""
    if isinstance(node, CourseCond):
        return node.course in have
    if isinstance(node, ConsentCond):
        return False
    if isinstance(node, AllOf):
        return all(_holds(c, have) for c in node.all)
    if isinstance(node, AnyOf):
        return any(_holds(c, have) for c in node.any)
    return True


def _consenters(node: PrereqNode | None) -> list[str]:
    if isinstance(node, ConsentCond):
        return [node.consent]
    children = node.all if isinstance(node, AllOf) else node.any if isinstance(node, AnyOf) else []
    return sorted({w for c in children for w in _consenters(c)})


def _offerings(ctx: PlanCheck) -> list[Risk]:
    """Alternate-year courses whose next offering after the planned one is past graduation:
    a failed or dropped attempt would delay the degree by a year or more."""
    grad = ctx.schedule.graduation_term
    if grad is None:
        return []
    end = Term.parse(grad)
    risks: list[Risk] = []
    for t in ctx.enrolled_terms:
        for sc in t.courses:
            course = ctx.catalog.course_by_code.get(sc.course)
            if course is None or course.offered.years == "every":
                continue
            if not _named_requirement(ctx, sc.satisfies, sc.course):
                continue  # an elective slipping has every-year substitutes
            start = Term.parse(t.term)
            nxt = next(
                (x for i in range(1, 13) if course.offered.offered_in(x := start.shift(i))),
                None,
            )
            if nxt is not None and nxt <= end:
                continue
            when = f"next offered {nxt.label()}" if nxt else "not offered again soon"
            risks.append(
                Risk(
                    kind="offering",
                    message=f"{sc.course} runs only in {course.offered.years} years; if it "
                    f"slips from {label(t.term)} it is {when}, after graduation in {end.label()}",
                    term=t.term,
                )
            )
    return risks


def _named_requirement(ctx: PlanCheck, satisfies: list[str], code: str) -> bool:
    """Whether the course fills a requirement that names it alone (no substitute)."""
    for key in satisfies:
        program, _, req_id = key.partition("/")
        prog = ctx.catalog.program_by_code.get(program)
        if prog is None:
            continue
        stack: list[RequirementNode] = [prog.requirement]
        while stack:
            node = stack.pop()
            if node.id == req_id and isinstance(node, CourseRequirement):
                return node.course == code
            stack.extend(getattr(node, "children", []))
    return False


# --------------------------------------------------------------------------- explanation

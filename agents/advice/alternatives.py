"""Alternative plans beside the recommended one (``PlanRequest.alternatives``, 0-5).

They are computed once, by the synthesis stage, for the plan actually recommended: the
refinement loop re-plans in every round and only the last round's plan is shown, so
alternatives found during scheduling would mostly be thrown away with their round; and a
run that ends unresolved, infeasible or with open questions recommends no plan, so it gets
none (``alternatives_note`` says why). The planner finds them (``agents.planner.kbest``:
distinct course sets, or the same courses in other terms when no other set exists, each as
good or the next best under the same objective) under the constraint set the recommended
plan was made with.

No alternative is shown unchecked. Each must pass, or it is dropped and logged:

- the independent verifier (``agents.verifier.verify_plan``) under the same constraints,
  with the next term's sections when a clean choice exists;
- the next term's sections: no more clashes, courses without sections or broken time
  wishes than the recommended plan has;
- the policy critique (``agents.checking.review``): no violation (rule, term) that the
  recommended plan's final critique did not report - e.g. an overload in a term nobody
  approved.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, cast

import structlog

from agents.artifacts import (
    AlternativePlan,
    ApprovalItem,
    Critique,
    IntakeResult,
    Outcome,
    RequirementsProposal,
    Schedule,
)
from agents.checking import review
from agents.planner import (
    PlanAlternative,
    PlanConstraints,
    PlanResult,
    alternatives,
)
from agents.planning import first_term_sections, plannable_programs, to_plan_constraints
from agents.planning.counter import scheduled_terms
from agents.toolbox import Toolbox
from agents.verifier import verify_plan

log = structlog.get_logger(__name__)

RECOMMENDED = ("approved", "approved_with_risks")


def alternative_plans(
    intake: IntakeResult,
    proposal: RequirementsProposal,
    schedule: Schedule,
    critique: Critique,
    outcome: Outcome,
    k: int,
    tools: Toolbox,
    decisions: Sequence[ApprovalItem] = (),
) -> tuple[list[AlternativePlan], str]:
    """Up to ``k`` checked alternatives to ``schedule``'s plan, and a note when fewer are
    shown than asked for (empty when ``k`` is 0 or all were found)."""
    if k <= 0:
        return [], ""
    if outcome not in RECOMMENDED:
        return [], f"No alternatives: the request ended {outcome.replace('_', ' ')}, so no " \
            "plan is recommended to compare them with."  # fmt: skip
    student = intake.student
    if (
        schedule.status != "done"
        or schedule.solver_status not in ("optimal", "feasible")
        or schedule.constraints is None
        or student is None
        or not any(t.courses for t in schedule.terms)
    ):
        return [], "No alternatives: the recommendation has no planned courses to vary."
    pc = to_plan_constraints(schedule.constraints, intake, tools)
    programs = plannable_programs(intake, proposal.audit)
    bound = log.bind(request_id=intake.request_id)
    dropped: list[str] = []

    def check(result: PlanResult) -> list[str]:
        problems = _problems(result, intake, schedule, critique, pc, programs, tools, decisions)
        if problems:
            dropped.append(result.graduation_term or "")
            bound.warning("alternatives.dropped", graduation=result.graduation_term,
                          problems=problems)  # fmt: skip
        return problems

    best = as_result(schedule)
    found = alternatives(tools.catalog, student, programs, pc, best, k, check=check)
    away = set(schedule.constraints.terms_away) | set(student.terms_away)
    plans = [_artifact(i, a, tools, away) for i, a in enumerate(found, 1)]
    bound.info("alternatives.done", asked=k, shown=len(plans), dropped=len(dropped),
               kinds=[p.kind for p in plans])  # fmt: skip
    note = ""
    if len(plans) < k:
        note = (
            f"{len(plans)} of the {k} alternatives asked for: no further plan meets every "
            "requirement and constraint"
            + (", or none was found within the time limit" if not dropped else "")
            + (f"; {len(dropped)} found failed a check and are not shown" if dropped else "")
            + "."
        )
    return plans, note


def as_result(schedule: Schedule) -> PlanResult:
    """The schedule's plan as the planner's answer (what alternatives are compared with)."""
    return PlanResult(
        status=cast(Literal["optimal", "feasible"], schedule.solver_status),
        terms=[t.planned() for t in schedule.terms],
        graduation_term=schedule.graduation_term,
        units_planned=schedule.units_planned,
        extra_units=schedule.extra_units,
        reasons=[],
        earliest_feasible_term=None,
        requirement_of={c.course: list(c.satisfies) for t in schedule.terms for c in t.courses},
        solve_ms=0.0,
    )


def _problems(
    result: PlanResult,
    intake: IntakeResult,
    schedule: Schedule,
    critique: Critique,
    pc: PlanConstraints,
    programs: list[str],
    tools: Toolbox,
    decisions: Sequence[ApprovalItem],
) -> list[str]:
    """Why ``result`` may not be shown (empty: it may)."""
    assert intake.student is not None and schedule.constraints is not None
    choice = first_term_sections(result, intake, tools)
    problems: list[str] = []
    nt = schedule.next_term
    chosen = (len(nt.clashes), len(nt.unscheduled), len(nt.wish_conflicts)) if nt else (0, 0, 0)
    if choice is not None:
        alt = (len(choice.clashes), len(choice.unscheduled), len(choice.free_time_conflicts))
        worse = ("section clashes", "courses without sections", "broken time wishes")
        problems += [
            f"{choice.term}: more {what} ({b}) than the recommended plan ({a})"
            for what, a, b in zip(worse, chosen, alt, strict=True)
            if b > a
        ]
    clean = choice is not None and choice.status == "ok" and not choice.free_time_conflicts
    defects = verify_plan(
        tools.catalog,
        intake.student,
        programs,
        pc,
        result,
        sections=choice if clean else None,
        next_term=choice.term if choice is not None else None,
    )
    problems += [f"verifier {d.kind}: {d.message}" for d in defects]
    if problems:
        return problems
    as_schedule = Schedule(
        status="done",
        round=schedule.round,
        constraints=schedule.constraints,
        solver_status=result.status,
        terms=scheduled_terms(result, tools.catalog, set(schedule.constraints.terms_away)),
        graduation_term=result.graduation_term,
        units_planned=result.units_planned,
        extra_units=result.extra_units,
        reasons=list(result.notes),
    )
    known = {(v.rule_id, v.term) for v in critique.violations}
    policy = review(intake, as_schedule, tools, decisions=tuple(decisions))
    return [
        f"policy {v.rule_id}{f' ({v.term})' if v.term else ''}: {v.message}"
        for v in policy.violations
        if (v.rule_id, v.term) not in known
    ]


def _artifact(rank: int, a: PlanAlternative, tools: Toolbox, away: set[str]) -> AlternativePlan:
    r = a.result
    assert r.graduation_term is not None and r.status != "infeasible"
    return AlternativePlan(
        rank=rank,
        kind=a.kind,
        distinct_by=a.distinct_by,
        label=a.label,
        differences=list(a.differences),
        terms=scheduled_terms(r, tools.catalog, away),
        graduation_term=r.graduation_term,
        units_planned=r.units_planned,
        requirement_of=dict(r.requirement_of),
        consent_courses=list(a.consent_courses),
        solver_status=r.status,
        notes=list(r.notes),
    )

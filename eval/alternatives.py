"""The eval's own check of a recommendation's alternative plans (``--alternatives K``).

Every alternative shown is re-verified here with the independent verifier
(``agents.verifier.verify_plan``) under the final constraint set rebuilt with
``agents.planning.to_plan_constraints``, as the final plan is in ``eval.metrics``; and it
must differ from the recommended plan and from every other alternative (by course set, or
for a placement alternative by where its courses sit). A scenario's ``expect.alternatives``
labels the alternatives' labels in order, decided from the catalog.
"""

from __future__ import annotations

from agents.artifacts import AlternativePlan, Recommendation, ScheduledTerm
from agents.planner import PlanResult
from agents.planning import plannable_programs, to_plan_constraints
from agents.toolbox import Toolbox
from agents.verifier import verify_plan
from pipeline.context import WorkflowContext


def _placement(terms: list[ScheduledTerm]) -> frozenset[tuple[str, str]]:
    return frozenset((c.course, t.term) for t in terms for c in t.courses)


def _as_result(a: AlternativePlan) -> PlanResult:
    return PlanResult(
        status=a.solver_status,
        terms=[t.planned() for t in a.terms],
        graduation_term=a.graduation_term,
        units_planned=a.units_planned,
        extra_units=0.0,
        reasons=[],
        earliest_feasible_term=None,
        requirement_of=dict(a.requirement_of),
        solve_ms=0.0,
    )


def alternative_defects(rec: Recommendation, ctx: WorkflowContext, tools: Toolbox) -> list[str]:
    """What is wrong with the alternatives shown: verifier defects, or an alternative that
    repeats the recommended plan or an earlier alternative (empty: all valid)."""
    if not rec.alternatives:
        return []
    intake, proposal = ctx.intake, ctx.proposal
    final = ctx.schedules[-1] if ctx.schedules else None
    if intake is None or proposal is None or intake.student is None or final is None:
        return ["alternatives without a final schedule to compare them with"]
    if final.constraints is None:
        return ["alternatives without the final constraint set"]
    pc = to_plan_constraints(final.constraints, intake, tools)
    programs = plannable_programs(intake, proposal.audit)
    out: list[str] = []
    seen = [_placement(rec.plan)]
    sets = [frozenset(c for c, _ in seen[0])]
    for a in rec.alternatives:
        where = f"alternative {a.rank}"
        defects = verify_plan(tools.catalog, intake.student, programs, pc, _as_result(a))
        out += [f"{where}: {d.kind} ({d.term or '-'}): {d.message}" for d in defects]
        placed = _placement(a.terms)
        courses = frozenset(c for c, _ in placed)
        if a.distinct_by == "course_set" and courses in sets:
            out.append(f"{where}: repeats an earlier course set")
        if placed in seen:
            out.append(f"{where}: repeats an earlier plan")
        seen.append(placed)
        sets.append(courses)
    return out

"""What an infeasible request gets instead of a bare "no": the verified plan for the
earliest feasible term (the counter-proposal), and which program makes the target
impossible.

The planner already proves the earliest feasible graduation when a target cannot be met
(``PlanResult.earliest_feasible_term``); here the same programs and wishes are planned
again with only the target moved there, and the independent verifier checks the result.
Each program is then planned alone against the original target: a program that misses it
even alone is the obstacle and is named with its own earliest term; when every program
fits alone, it is the combination that does not.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import structlog

from agents.artifacts import CounterProposal, ScheduledCourse, ScheduledTerm
from agents.catalog import Catalog, StudentRecord, Term
from agents.planner import PlanConstraints, PlanResult, TimeLimit, plan
from agents.planner.memo import PlanMemo
from agents.verifier import verify_plan

log = structlog.get_logger(__name__)


def scheduled_terms(
    result: PlanResult, catalog: Catalog, away: Collection[str]
) -> list[ScheduledTerm]:
    """The planner's terms as the artifacts show them (titles, units, what each counts
    toward; a term away with no courses marked as such)."""
    return [
        ScheduledTerm(
            term=t.term,
            label=Term.parse(t.term).label(),
            courses=[
                ScheduledCourse(
                    course=code,
                    title=catalog.course(code).title,
                    units=catalog.course(code).units,
                    satisfies=result.requirement_of.get(code, ["free elective"]),
                    session=t.sessions.get(code),
                )
                for code in t.courses
            ],
            units=t.units,
            away=t.term in away and not t.courses,
        )
        for t in result.terms
    ]


def counter_proposal(
    catalog: Catalog,
    student: StudentRecord,
    programs: Sequence[str],
    pc: PlanConstraints,
    result: PlanResult,
    away: Collection[str],
    limits: list[TimeLimit] | None = None,
    *,
    plans: PlanMemo | None = None,
) -> CounterProposal | None:
    """The verified plan for ``result.earliest_feasible_term`` (None when the target was
    not the obstacle or no plan exists even then; a re-plan whose time ran out is added
    to ``limits``). ``plans``: the request's solved plans (default: solve afresh)."""
    earliest, target = result.earliest_feasible_term, pc.target_term
    if result.status != "infeasible" or earliest is None or target is None:
        return None
    relaxed = pc.model_copy(update={"target_term": earliest})
    alt = (plans or PlanMemo()).plan(plan, catalog, student, programs, relaxed)
    if alt.infeasible_kind == "timed_out" and limits is not None:
        limits.append(
            TimeLimit(
                stage="counter_proposal",
                seconds=pc.time_limit_s,
                message=f"the plan for the earliest feasible graduation, {earliest}, was not "
                f"found again within the {pc.time_limit_s:g} s limit; it exists but is not "
                "shown",
            )
        )
    if alt.status == "infeasible" or alt.graduation_term is None:
        log.warning("counter_proposal.none", student=student.id, earliest=earliest)
        return None
    defects = verify_plan(catalog, student, programs, relaxed, alt)
    return CounterProposal(
        target_term=target,
        graduation_term=alt.graduation_term,
        terms=scheduled_terms(alt, catalog, away),
        units_planned=alt.units_planned,
        solver_status=alt.status,
        verification=[f"{d.kind}: {d.message}" for d in defects],
    )


def target_blockers(
    catalog: Catalog,
    student: StudentRecord,
    programs: Sequence[str],
    pc: PlanConstraints,
    *,
    plans: PlanMemo | None = None,
) -> list[str]:
    """Each program that cannot finish by the target even alone, with its own earliest
    term; or, when each fits alone, one line naming the combination. ``plans``: the
    request's solved plans (a single program alone is the request's own plan)."""
    target = pc.target_term
    if target is None or not programs:
        return []
    memo = plans or PlanMemo()
    out: list[str] = []
    for code in programs:
        alone = memo.plan(plan, catalog, student, [code], pc)
        if alone.status != "infeasible":
            continue
        if alone.infeasible_kind == "timed_out":
            # Not found in time is not "cannot": said as such, never as a blocker.
            out.append(
                f"{code} alone: no plan finishing by {target} was found within the "
                f"{pc.time_limit_s:g} s limit; this does not prove that it cannot"
            )
            continue
        earliest = alone.earliest_feasible_term
        out.append(
            f"{code} alone cannot finish by {target}"
            + (f"; earliest {earliest}" if earliest else "; no feasible term was found")
        )
    if not out and len(programs) > 1:
        out.append(
            f"each of {_and(list(programs))} can finish by {target} alone, "
            "but not all of them together"
        )
    return out


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]

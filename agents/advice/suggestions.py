"""Programs a student is close to, for a request that asks (``PlanRequest.close_programs``
or "which minors am I close to?" in its text): ``agents.advice.nearby.close_programs`` run once,
at synthesis, against the plan that is recommended.

The baseline is the request's target programs (declared, plus added, minus dropped) under
the constraint set of the final round - the student's own caps, terms away, pins and the
policy limits the negotiation settled on - so "without delaying graduation" means: not
later than the plan in this recommendation. A request with no final constraint set (a
progress check, a policy question) uses the catalog's standard loads
(``agents.advice.nearby.default_constraints``).
"""

from __future__ import annotations

import structlog

from agents.advice.nearby import close_programs
from agents.artifacts import CloseReport, IntakeResult, Schedule
from agents.planning import to_plan_constraints
from agents.toolbox import Toolbox

log = structlog.get_logger(__name__)


def close_report(
    intake: IntakeResult, schedule: Schedule, limit: int, tools: Toolbox
) -> CloseReport | None:
    """Up to ``limit`` programs the student could add, or None when not asked (0) or the
    record is missing."""
    if limit <= 0 or intake.student is None:
        return None
    pc = (
        to_plan_constraints(schedule.constraints, intake, tools)
        if schedule.constraints is not None
        else None
    )
    report = close_programs(
        tools.catalog,
        intake.student,
        pc,
        programs=list(intake.target_programs),
        limit=limit,
        plans=tools.plans,  # the baseline is often the plan scheduling made
    )
    log.info(
        "synthesis.close_programs",
        request=intake.request_id,
        close=len(report.close),
        ms=report.elapsed_ms,
    )
    # Wall times stay in the log: the same request must give the same recommendation.
    untimed = [p.model_copy(update={"solve_ms": None}) for p in [*report.close, *report.delayed]]
    return report.model_copy(
        update={
            "elapsed_ms": None,
            "close": untimed[: len(report.close)],
            "delayed": untimed[len(report.close) :],
        }
    )

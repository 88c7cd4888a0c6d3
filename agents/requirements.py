"""Requirements proposal: the audit of every target program (what-if for added ones) and the
course set proposed for what remains, each course with the requirement it satisfies and why.

The course set is the one an unconstrained optimal plan would use (standard load, no
target), so the proposal and the schedule speak about the same courses; the scheduling
stage then places them under the negotiated constraints.
"""

from __future__ import annotations

import re

import structlog

from agents.artifacts import IntakeResult, ProposedCourse, RequirementsProposal
from agents.audit import AuditReport, RequirementAudit, audit
from agents.planner import PlanConstraints, plan
from agents.toolbox import Toolbox

log = structlog.get_logger(__name__)

NO_PLAN_INTENTS = {"policy_question": "a policy question needs no course set"}


def _leaves(node: RequirementAudit, prefix: str) -> dict[str, RequirementAudit]:
    out = {f"{prefix}/{node.id}": node}
    for child in node.children:
        out.update(_leaves(child, prefix))
    return out


def _reason(satisfies: list[str], nodes: dict[str, RequirementAudit], title: str) -> str:
    if satisfies == ["free elective"]:
        return f"{title} is a free elective toward the degree's unit total."
    parts = []
    for key in satisfies:
        node = nodes.get(key)
        if node is None:
            parts.append(key)
        else:
            parts.append(f"{key} ({node.title or node.id}: {node.explanation.rstrip('.')})")
    return "Counts toward " + "; ".join(parts) + "."


def run(intake: IntakeResult, tools: Toolbox) -> RequirementsProposal:
    if intake.intent in NO_PLAN_INTENTS:
        return RequirementsProposal(
            status="not_needed", not_needed_reason=NO_PLAN_INTENTS[intake.intent]
        )
    catalog = tools.catalog
    student = intake.student
    assert student is not None  # the intake stage always records it
    declared = [p for p in intake.target_programs if p not in intake.added_programs]
    report = audit(catalog, student, declared, add_programs=intake.added_programs)
    sharing = _unique_notes([n for p in report.programs for n in p.sharing_notes])
    eligibility = [f"{p.code}: {p.eligibility_note}" for p in report.programs if not p.eligible]
    assumptions = [
        f"Courses in progress in {student.current_term} are assumed passed.",
        "Planned courses are assumed passed with any minimum grade they need.",
        f"Requirements follow the {catalog.catalog_year} catalog.",
    ]
    remaining = _remaining_units(report)
    if intake.intent == "check_progress":
        return RequirementsProposal(
            status="done",
            audit=report,
            remaining_units=remaining,
            sharing_effects=sharing,
            eligibility_issues=eligibility,
            assumptions=[*assumptions, "A progress check proposes no new courses."],
        )
    eligible_targets = [
        code
        for code in intake.target_programs
        if all(p.eligible for p in report.programs if p.code == code)
    ]
    result = plan(
        catalog,
        student,
        eligible_targets,
        PlanConstraints(
            max_units_per_term=_standard_cap(tools),
            terms_away=intake.constraints.terms_away,
            avoid=intake.constraints.avoid_courses,
            include=intake.constraints.include_courses,
            time_limit_s=tools.settings.planner_time_limit_s,
        ),
    )
    nodes: dict[str, RequirementAudit] = {}
    for p in report.programs:
        nodes.update(_leaves(p.root, p.code))
    proposed = []
    for t in result.terms:
        for code in t.courses:
            course = catalog.course(code)
            satisfies = result.requirement_of.get(code, ["free elective"])
            proposed.append(
                ProposedCourse(
                    course=code,
                    title=course.title,
                    units=course.units,
                    satisfies=satisfies,
                    reason=_reason(satisfies, nodes, course.title),
                )
            )
    if result.status == "infeasible":
        assumptions.append(
            "No course set completes the programs within the planning horizon: "
            + "; ".join(result.reasons)
        )
    log.info("requirements.proposed", request=intake.request_id, courses=len(proposed))
    return RequirementsProposal(
        status="done",
        audit=report,
        proposed_courses=proposed,
        remaining_units=remaining,
        sharing_effects=sharing,
        eligibility_issues=eligibility,
        assumptions=assumptions,
    )


def _unique_notes(notes: list[str]) -> list[str]:
    """Each program pair reports its sharing limit from both sides; say it once."""
    seen: set[tuple[frozenset[str], str]] = set()
    out = []
    for note in notes:
        codes = frozenset(re.findall(r"\b[A-Z]+-[A-Z]+\b", note))
        key = (codes, re.sub(r"\b[A-Z]+-[A-Z]+\b", "", note))
        if key not in seen:
            seen.add(key)
            out.append(note)
    return out


def _remaining_units(report: AuditReport) -> float:
    for p in report.programs:
        if p.total_units_required is not None and p.units_toward_total is not None:
            return max(0.0, p.total_units_required - p.units_toward_total)
    return 0.0


def _standard_cap(tools: Toolbox) -> float:
    caps = [r.limit for r in tools.catalog.policies if r.kind == "max_units_per_term" and r.limit]
    return max(caps) if caps else 54.0

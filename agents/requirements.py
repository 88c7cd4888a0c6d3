"""Requirements proposal: the audit of every target program (what-if for added ones) and the
round-1 plan for what remains - each course with the requirement it satisfies and why.

The plan is solved once, here, under the round-1 constraint set (the student's own wishes,
``agents.planning.initial_constraints``) and kept in the proposal (``plan``,
``constraints``). The scheduling stage places exactly that plan in round 1 (it picks the
next term's sections and checks it with the verifier) and re-solves only when refinement
has changed the constraints or the next term's sections clash. A policy question or a
progress check plans nothing; neither does a zero load cap (e.g. a suspended student).
"""

from __future__ import annotations

import re

import structlog

from agents.artifacts import IntakeResult, ProposedCourse, RequirementsProposal
from agents.audit import AuditReport, RequirementAudit, audit
from agents.case import Case
from agents.catalog import credit_sub, credits_text, unit_word
from agents.planner import PlanResult, plan
from agents.planning import initial_constraints, plannable_programs, to_plan_constraints
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
        return f"{title} is a free elective toward the degree's {unit_word()} total."
    parts = []
    for key in satisfies:
        node = nodes.get(key)
        if node is None:
            parts.append(key)
        else:
            parts.append(f"{key} ({node.title or node.id}: {node.explanation.rstrip('.')})")
    return "Counts toward " + "; ".join(parts) + "."


def run(case: Case, tools: Toolbox) -> RequirementsProposal:
    """The stage: propose for the case's intake result."""
    return propose(case.need_intake(), tools)


def propose(intake: IntakeResult, tools: Toolbox) -> RequirementsProposal:
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
        _years_assumption(report),
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
    cs = initial_constraints(intake, tools)
    result: PlanResult | None = None
    if cs.max_units_per_term > 0:
        programs = plannable_programs(intake, report)
        pc = to_plan_constraints(cs, intake, tools)
        result = tools.plans.plan(plan, catalog, student, programs, pc)
    nodes: dict[str, RequirementAudit] = {}
    for p in report.programs:
        nodes.update(_leaves(p.root, p.code))
    proposed = []
    requirement_of = result.requirement_of if result is not None else {}
    for code in [c for t in (result.terms if result is not None else []) for c in t.courses]:
        course = catalog.course(code)
        satisfies = requirement_of.get(code, ["free elective"])
        proposed.append(
            ProposedCourse(
                course=code,
                title=course.title,
                units=course.units,
                satisfies=satisfies,
                reason=_reason(satisfies, nodes, course.title),
            )
        )
    if result is None:
        assumptions.append(
            f"Every term is capped at {credits_text(cs.max_units_per_term)}, so nothing is planned."
        )
    elif result.status == "infeasible":
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
        constraints=cs,
        plan=result,
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
            return max(0.0, credit_sub(p.total_units_required, p.units_toward_total))
    return 0.0


def _years_assumption(report: AuditReport) -> str:
    """Which catalog year the requirements follow: one, or each program's own."""
    years = {p.code: p.catalog_year or report.catalog_year for p in report.programs}
    if len(set(years.values())) == 1:
        return f"Requirements follow the {next(iter(years.values()))} catalog."
    each = ", ".join(f"{code} the {year} catalog" for code, year in years.items())
    return f"Each program follows its own catalog year: {each}."

"""Agreement with the degree audit: a solved plan is re-solved until the audit, the
office's source of truth, counts its courses as the model did (see ``agree_with_audit``)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from agents.planner.cpsat import expired
from agents.planner.prep import Prep
from agents.planner.setup import PlanSetup
from agents.planner.solution import Solution

if TYPE_CHECKING:
    from agents.audit import AuditReport, RequirementAudit

REPAIR_ROUNDS = 3


def agree_with_audit(
    setup: PlanSetup, prep: Prep, sol: Solution, deadline: float
) -> tuple[Solution, list[str]]:
    """Re-solve until the degree audit agrees that every requirement is met.

    The model assigns courses to requirements its own way; the audit is the office's
    source of truth and may allocate differently (its preferences, its unit counting). Each
    round pins the audit's allocation of the courses the model had counted toward an unmet
    requirement; when another program took a planned course, that program's own courses
    are ordered first instead (the audit fills by term, then code); any unit shortfall is
    added. Returns the last plan that solved, with a note when the audit still disagrees.
    """
    from agents.audit import audit, unmet  # peer tool: imported when first needed

    codes = [p.code for p in setup.programs]
    problems: list[tuple[str, str, str]] = []
    for _ in range(REPAIR_ROUNDS + 1):
        planned = {c: prep.terms[i].code for c, i in sol.placement.items()}
        report = audit(setup.catalog, setup.student, codes, planned=planned)
        problems = [p for p in unmet(report) if p[1] != "program-gpa"]
        if not problems or expired(deadline, "agreement with the degree audit"):
            break
        pins, orders, short = audit_pins(report, sol, problems)
        if not pins - prep.pins and not orders - prep.orders and short <= 0:
            break
        prep.pins |= pins
        prep.orders |= orders
        prep.total_needed += short
        again = setup.solve(prep, deadline - time.perf_counter(), False)
        if again.status not in ("optimal", "feasible"):
            break
        sol = again
    notes = [
        f"the degree audit's own allocation leaves {prog}/{req} unmet ({why}); ask the "
        "registrar to count the courses as planned"
        for prog, req, why in problems
    ]
    return sol, notes


def audit_pins(
    report: AuditReport, sol: Solution, problems: list[tuple[str, str, str]]
) -> tuple[set[tuple[str, str, str]], set[tuple[str, str]], float]:
    """Where the audit put the courses the plan meant for each unmet requirement."""
    audit_leaf: dict[tuple[str, str], str] = {}
    short = 0.0

    def walk(program: str, node: RequirementAudit) -> None:
        for counted in node.counted:
            audit_leaf[(program, counted.course)] = node.id
        for child in node.children:
            walk(program, child)

    for p in report.programs:
        walk(p.code, p.root)
    pins: set[tuple[str, str, str]] = set()
    orders: set[tuple[str, str]] = set()
    for prog, req, _ in problems:
        if req == "total-units":
            check = next(
                c
                for p in report.programs
                if p.code == prog
                for c in p.checks
                if c.id == "total-units"
            )
            short = max(short, check.units_needed)
            continue
        mine = [c for c, labels in sol.counts.items() if f"{prog}/{req}" in labels]
        for course in mine:
            for (program, code), leaf in audit_leaf.items():
                if (
                    code == course
                    and (program, leaf) != (prog, req)
                    and (f"{program}/{leaf}" not in sol.counts.get(course, []))
                ):
                    if program != prog and course in sol.placement:
                        # Another program's greedy fill took a planned course: plan that
                        # program's own courses earlier instead of giving this one up.
                        orders.add((program, leaf))
                    else:
                        pins.add((program, leaf, course))
    return pins, orders, short

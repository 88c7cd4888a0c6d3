"""What the planning stages (requirements, scheduling) share: the planner's input from an
intake result and a constraint set (``inputs``), the next term's sections and the re-plans
around a clash (``sections``), and what an infeasible request gets instead of a bare "no"
(``counter``: the counter-proposal and what blocks the target)."""

from agents.planning.counter import counter_proposal, scheduled_terms, target_blockers
from agents.planning.inputs import initial_constraints, plannable_programs, to_plan_constraints
from agents.planning.sections import (
    avoid_clash,
    first_term_sections,
    next_term_sections,
    section_limit,
)

__all__ = [
    "avoid_clash",
    "counter_proposal",
    "first_term_sections",
    "initial_constraints",
    "next_term_sections",
    "plannable_programs",
    "scheduled_terms",
    "section_limit",
    "target_blockers",
    "to_plan_constraints",
]

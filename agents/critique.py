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
proved infeasibility, or found none before a time limit ran out - said as such, never as a
proof) gets ``not_needed`` with the reason; the eligibility rules are still checked, since
an ineligible what-if minor is worth saying whatever the plan. A step of a planned schedule
whose time ran out (the next term's sections, a re-plan around a clash) is a risk.

Rule checks live in ``agents.policy.checks`` (every rule evaluated with ``PlanCheck.facts``:
the status an academic_standing rule gives, GPAs over recent terms from the record; every
limit the first matching row of the rule's limit table, else its limit; every violation
citing the rule's document section and saying which threshold applied and why); this
module adds the risks no rule states (consent, alternate-year offerings and possibly
discontinued courses from ``agents.checking.risks``, a missed target, next-term clashes,
verifier defects) and writes the verdict in plain words (template;
``explanation_source`` says so).
"""

from __future__ import annotations

from agents.artifacts import Critique
from agents.case import Case
from agents.checking import review
from agents.toolbox import Toolbox

__all__ = ["review", "run"]


def run(case: Case, tools: Toolbox) -> Critique:
    """The stage: critique the case's current schedule."""
    intake = case.need_intake()
    asked = set(intake.constraints.include_courses)
    refused: dict[str, tuple[str | None, str]] = {}
    for refinement in case.refinements:
        for change in refinement.changes:
            if change.field == "avoid":
                for code in sorted(set(change.after) - set(change.before)):
                    refused.setdefault(code, (change.rule_id, change.reason))
    dropped = {code: why for code, why in refused.items() if code in asked}
    # Courses wanted in a term (asked for, pinned, registered) that a round released from it.
    # Keyed by course, or by term for a number of courses wanted there ('5 courses').
    moved: dict[str, tuple[str, str | None, str]] = {}
    for refinement in case.refinements:
        for change in refinement.changes:
            if change.field in ("fixed", "term_min_courses"):
                for key, was in change.before.items():
                    # A course refused outright (avoided) is said once, as such.
                    if change.after.get(key) != was and key not in refused:
                        moved.setdefault(key, (str(was), change.rule_id, change.reason))
    # Units wanted next term ('24 units next quarter') that a round's cap took down.
    lighter: dict[str, tuple[float, str | None, str]] = {}
    nxt, wish = intake.profile.next_term, intake.goals.next_term_units
    for refinement in case.refinements if wish is not None else []:
        for change in refinement.changes:
            if change.field != "term_min_units" or wish is None:
                continue
            if change.after.get(nxt, 0) < change.before.get(nxt, 0):
                lighter.setdefault(nxt, (wish, change.rule_id, change.reason))
    return review(
        intake,
        case.schedule,
        tools,
        dropped=dropped,
        decisions=case.approvals,
        refused=refused,
        moved=moved,
        lighter=lighter,
    )

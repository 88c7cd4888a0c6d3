"""What the stages work out for the student beside the plan itself: alternative plans
(``alternatives``), the programs the student is close to (``nearby``, run for a request by
``suggestions``), and the citations, load rules and direct answers synthesis quotes
(``answers``)."""

from agents.advice.alternatives import alternative_plans
from agents.advice.answers import policy_answer, progress_answer
from agents.advice.nearby import close_programs, default_constraints
from agents.advice.suggestions import close_report

__all__ = [
    "alternative_plans",
    "close_programs",
    "close_report",
    "default_constraints",
    "policy_answer",
    "progress_answer",
]

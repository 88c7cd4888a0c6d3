"""The critique's review of a schedule (``review``, in ``plan_review``): the policy rules
checked, the risks no rule states (``risks``) and the verdict in words (``critique_text``).
The critique stage reviews the case's schedule with it; the alternative plans review theirs
the same way."""

from agents.checking.critique_text import Verdict, approvals_text, describe, explain
from agents.checking.plan_review import citer, plan_risks, review, verdict
from agents.checking.risks import arranged_risks, course_risks

__all__ = [
    "Verdict",
    "approvals_text",
    "arranged_risks",
    "citer",
    "course_risks",
    "describe",
    "explain",
    "plan_risks",
    "review",
    "verdict",
]

from __future__ import annotations

from agents.policy.checks import Cite, Findings, PlanCheck, check_plan
from agents.policy.rules import applicable_rules, join, label, load_limit, num, standings_by_term

__all__ = [
    "Cite",
    "Findings",
    "PlanCheck",
    "applicable_rules",
    "check_plan",
    "join",
    "label",
    "load_limit",
    "num",
    "standings_by_term",
]

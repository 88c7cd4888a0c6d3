"""The policy rule engine: which of the catalog's rules apply to a student (``rules``:
applicability, load limits and caps) and what a planned schedule breaks (``checks``)."""

from __future__ import annotations

from agents.policy.checks import check_plan
from agents.policy.plancheck import Findings, PlanCheck
from agents.policy.rules import (
    Cite,
    LoadCaps,
    LoadLimit,
    applicable_rules,
    catalog_load_caps,
    join,
    label,
    load_limit,
    num,
    standings_by_term,
)

__all__ = [
    "Cite",
    "Findings",
    "LoadCaps",
    "LoadLimit",
    "PlanCheck",
    "applicable_rules",
    "catalog_load_caps",
    "check_plan",
    "join",
    "label",
    "load_limit",
    "num",
    "standings_by_term",
]

"""The policy rule engine: which of the catalog's rules apply to a student (``rules``:
applicability and load limits; ``caps``: the catalog's load caps before any student is
known; ``conditions``: rule conditions, limit tables and term kinds; ``standing``: the
status academic_standing rules give), what a planned
schedule breaks (``checks``, ``loads``, ``records``) and what the rules a policy question is
about conclude for the student (``applied``, ``applied_records``)."""

from __future__ import annotations

from agents.policy.applied import Applied, apply_rules
from agents.policy.caps import (
    LoadCaps,
    catalog_load_caps,
    kind_course_caps,
    kind_terms,
    plain_course_cap,
    term_kind_caps,
)
from agents.policy.checks import check_plan
from agents.policy.conditions import Facts, effective_limit, threshold
from agents.policy.plancheck import Findings, PlanCheck
from agents.policy.rules import (
    Cite,
    LoadLimit,
    applicable_rules,
    join,
    label,
    load_limit,
    num,
    standings_by_term,
    term_load_limit,
)
from agents.policy.standing import student_facts

__all__ = [
    "Applied",
    "Cite",
    "Facts",
    "Findings",
    "LoadCaps",
    "LoadLimit",
    "PlanCheck",
    "applicable_rules",
    "apply_rules",
    "catalog_load_caps",
    "check_plan",
    "effective_limit",
    "join",
    "kind_course_caps",
    "kind_terms",
    "label",
    "load_limit",
    "num",
    "plain_course_cap",
    "standings_by_term",
    "student_facts",
    "term_kind_caps",
    "term_load_limit",
    "threshold",
]

"""The planner: CP-SAT plans to graduation (``plan``), distinct plans beside a chosen one
(``alternatives``) and next-term section selection (``select_sections``). The independent
checker lives in ``agents.verifier``.

The models (``ConstraintSet``, ``PlanConstraints``, ``PlanResult`` with its
``CatalogBound``, ``PlannedTerm``) load with the package; the solver-backed names load
OR-Tools on first use, so code that only reads or writes artifacts (the batch driver,
``advise status``) never pays for it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from agents.planner.schema import (
    CatalogBound,
    ConstraintSet,
    PlanConstraints,
    PlannedTerm,
    PlanResult,
    StandardLoads,
    TimeLimit,
)

if TYPE_CHECKING:
    from agents.catalog.clashes import always_clashing
    from agents.planner.api import plan
    from agents.planner.fit import free_elective_fit
    from agents.planner.kbest import PlanAlternative, alternatives
    from agents.planner.sections import (
        SectionChoice,
        describe,
        meetings_overlap,
        never_free,
        normalize_days,
        select_sections,
    )

_SOLVER_BACKED = {
    "PlanAlternative": "agents.planner.kbest",
    "alternatives": "agents.planner.kbest",
    "plan": "agents.planner.api",
    "free_elective_fit": "agents.planner.fit",
    "SectionChoice": "agents.planner.sections",
    "always_clashing": "agents.catalog.clashes",
    "describe": "agents.planner.sections",
    "meetings_overlap": "agents.planner.sections",
    "never_free": "agents.planner.sections",
    "normalize_days": "agents.planner.sections",
    "select_sections": "agents.planner.sections",
}


def __getattr__(name: str) -> Any:
    module = _SOLVER_BACKED.get(name)
    if module is None:
        raise AttributeError(f"module 'agents.planner' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "CatalogBound",
    "ConstraintSet",
    "PlanAlternative",
    "PlanConstraints",
    "PlanResult",
    "PlannedTerm",
    "SectionChoice",
    "StandardLoads",
    "TimeLimit",
    "alternatives",
    "always_clashing",
    "describe",
    "free_elective_fit",
    "meetings_overlap",
    "never_free",
    "normalize_days",
    "plan",
    "select_sections",
]

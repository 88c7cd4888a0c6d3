"""Requirements left unmet: the degree audit, run with the plan's courses as ``planned``."""

from __future__ import annotations

from collections.abc import Sequence

from agents.catalog import Catalog, StudentRecord
from agents.verifier.defects import Add
from agents.verifier.protocols import PlanLike


def check_requirements(
    add: Add,
    catalog: Catalog,
    student: StudentRecord,
    programs: Sequence[str],
    planned: dict[str, str],
    plan: PlanLike,
) -> None:
    from agents.audit import audit, unmet  # at call time: the audit is a peer module

    report = audit(catalog, student, list(programs), planned=planned)
    for program, req, why in unmet(report):
        add("requirement", None, None, f"{program}/{req}: {why}")

"""The building blocks of the audit's explanations: how numbers, plurals, course lists and
sharing limits are worded, and the ``RequirementAudit`` that a node's explanation goes into.
``leaves`` and ``build`` write the explanations with them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agents.audit.report import RequirementAudit, RequirementKind, Status
from agents.catalog import RequirementNode, SharingLimit, credits_text
from agents.catalog.requirements import CourseMinimum


def rounded(x: float) -> float:
    """``x`` to two decimals, never ``-0.0``."""
    return round(x + 0.0, 2)


def num(x: float) -> str:
    return f"{x:g}"


def plural(n: float, word: str) -> str:
    """'1 course', '2 courses'."""
    return f"{num(n)} {word}" + ("" if n == 1 else "s")


def code_list(items: Iterable[str], limit: int = 8) -> str:
    """The first ``limit`` codes, then how many more."""
    items = list(items)
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f" and {len(items) - limit} more"


def node_label(node: RequirementNode) -> str:
    return node.title or node.id


def limit_text(lim: SharingLimit, other: str) -> str:
    rule = f" (rule {lim.rule})" if lim.rule else ""
    return f"at most {plural(lim.max_courses, 'course')} may be shared with {other}{rule}"


def minimum_need(low: CourseMinimum) -> str:
    """'at least 2 courses', 'at least 6 units', 'at least 2 courses and 6 units'."""
    parts = []
    if low.min_courses is not None:
        parts.append(plural(low.min_courses, "course"))
    if low.min_units is not None:
        parts.append(credits_text(low.min_units))
    return "at least " + " and ".join(parts)


def audit_node(
    req_id: str,
    title: str,
    kind: RequirementKind,
    status: Status,
    met_by_completed: bool,
    explanation: str,
    **rest: Any,
) -> RequirementAudit:
    """A RequirementAudit with the leaf defaults (nothing counted, needed or open)."""
    fields: dict[str, Any] = {
        "counted": [],
        "courses_needed": 0,
        "units_needed": 0.0,
        "options": [],
        "children": [],
    }
    fields.update(rest)
    return RequirementAudit(
        id=req_id,
        title=title,
        kind=kind,
        status=status,
        met_by_completed=met_by_completed,
        explanation=explanation,
        **fields,
    )

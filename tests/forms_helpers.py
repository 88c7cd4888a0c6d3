"""The requirement forms in the audit's brute-force tests (tests/audit_alloc_helpers.py): a
course set selected by attribute and restricted by subject and level, a subject minimum,
caps on what counts - the generators, and the rules written out again from the spec,
independent of the audit's code."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

SUBJECTS = ["AA", "BB", "CC"]
LEVELS = [100, 200, 300]

Taken = list[tuple[str, str | None, float, str]]  # (status, grade, units, course)


@st.composite
def selectors(draw: st.DrawFn) -> dict[str, Any]:
    """Restrictions by subject and level (maybe none)."""
    out: dict[str, Any] = {}
    if draw(st.booleans()):
        out["subjects"] = draw(st.lists(st.sampled_from(SUBJECTS), min_size=1, max_size=2))
    low, high = sorted(draw(st.lists(st.sampled_from(LEVELS), min_size=2, max_size=2)))
    if draw(st.booleans()):
        out["min_level"] = low
    if draw(st.booleans()):
        out["max_level"] = high
    return out


@st.composite
def forms(draw: st.DrawFn) -> dict[str, Any]:
    """The new fields of a course set selected by attribute: restrictions, a subject
    minimum, caps."""
    out = draw(selectors())
    if draw(st.booleans()):
        out["min_subjects"] = draw(st.integers(1, 3))
    caps = []
    for _ in range(draw(st.integers(0, 2))):
        cap = draw(selectors()) if draw(st.booleans()) else {}
        if draw(st.booleans()):
            cap["max_courses"] = draw(st.integers(0, 2))
        else:
            cap["max_units"] = draw(st.sampled_from([9, 12, 20]))
        caps.append(cap)
    if caps:
        out["caps"] = caps
    return out


def selected(sel: dict[str, Any], inst: dict[str, Any], code: str) -> bool:
    """Subject and level restrictions of a set or a cap."""
    if "subjects" in sel and inst["subjects"][code] not in sel["subjects"]:
        return False
    if "min_level" in sel and inst["levels"][code] < sel["min_level"]:
        return False
    return "max_level" not in sel or inst["levels"][code] <= sel["max_level"]


def accepts(leaf: dict[str, Any], inst: dict[str, Any], code: str) -> bool:
    if leaf["kind"] == "course":
        return bool(leaf["course"] == code)
    if "courses" in leaf:
        return code in leaf["courses"]
    return code in leaf.get("members", []) and selected(leaf, inst, code)


def forms_ok(leaf: dict[str, Any], taken: Taken, inst: dict[str, Any]) -> bool:
    """The subject minimum and the caps of a leaf, over the courses counted toward it."""
    if len({inst["subjects"][t[3]] for t in taken}) < leaf.get("min_subjects", 0):
        return False
    for cap in leaf.get("caps", []):
        inside = [t for t in taken if not cap_selector(cap) or selected(cap, inst, t[3])]
        if len(inside) > cap.get("max_courses", len(inside)):
            return False
        if sum(t[2] for t in inside) > cap.get("max_units", 1e9) + 1e-9:
            return False
    return True


def cap_selector(cap: dict[str, Any]) -> bool:
    return any(k in cap for k in ("subjects", "min_level", "max_level"))

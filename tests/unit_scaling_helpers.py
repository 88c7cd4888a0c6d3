"""Scaling catalogs, records and requests by a factor for the unit-scaling property test
(tests/test_unit_scaling.py, issue #17): ``scale_units`` multiplies every unit of raw JSON
(courses, program totals, course-set minimums and caps, standing thresholds, units
conditions, the unit limits of policy rules, attempt overrides, request caps), and
``assert_scaled`` compares two answers that should differ only in their units. The three
catalogs: the sample, Harrow Bay (1.0-credit courses) and a small one built here.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from agents.catalog import Catalog, load_catalog, parse_catalog
from agents.catalog.credits import is_credit_value
from tests.planner_strategies import DOCS

REPO = Path(__file__).resolve().parents[1]
FACTORS = (1 / 9, 0.2, 0.25, 0.5, 2.0, 3.0, 9.0, 10.0)

# --------------------------------------------------------------------------- scaling

UNIT_KEYS = frozenset(
    {"units", "total_units", "min_units", "max_units", "units_completed", "units_owed"}
    | {"max_units_per_term", "min_units_per_term", "min_units_planned"}
)
UNIT_MAPS = frozenset({"term_max_units", "term_min_units", "standing_max_units"})
UNIT_RULES = frozenset(
    {"max_units_per_term", "min_units_per_term", "overload", "probation_max_units"}
    | {"residency", "total_units"}
)
_UNITS_EXPR = re.compile(r"units\(\s*([0-9.]+)\s*\)")


def credits(value: float, factor: float) -> float:
    """``value`` times ``factor``: a credit value (two places at most) or ValueError."""
    out = round(value * factor, 2)
    if abs(out - value * factor) > 1e-9 or not is_credit_value(out):
        raise ValueError(f"{value!r} x {factor!r} is no credit value")
    return out


def _unit_rule(rule: dict[str, Any]) -> bool:
    """Whether a policy rule's limits are units (pass/fail: as ``PolicyRule`` defaults)."""
    if rule.get("kind") == "pass_fail_limit":
        measure, scope = rule.get("measure"), rule.get("scope")
        return (measure or ("courses" if scope is None else "units")) == "units"
    return rule.get("kind") in UNIT_RULES


def scale_units(value: Any, factor: float) -> Any:
    """A catalog, record, request or constraint set (raw JSON) with every unit scaled."""
    if isinstance(value, list):
        return [scale_units(v, factor) for v in value]
    if isinstance(value, str):  # a prerequisite expression: 'MATH 110 and units(9)'
        return _UNITS_EXPR.sub(lambda m: f"units({credits(float(m[1]), factor):g})", value)
    if not isinstance(value, dict):
        return value
    rule = "citation" in value and _unit_rule(value)
    out: dict[str, Any] = {}
    for key, v in value.items():
        if key in UNIT_KEYS and isinstance(v, int | float) and not isinstance(v, bool):
            out[key] = credits(v, factor)
        elif key in UNIT_MAPS or key == "standing_thresholds":
            out[key] = {k: credits(x, factor) for k, x in v.items()}
        elif rule and key == "limit" and v is not None:
            out[key] = credits(v, factor)
        elif rule and key == "limit_table":
            out[key] = [{**row, "limit": credits(row["limit"], factor)} for row in v]
        else:
            out[key] = scale_units(v, factor)
    return out


def factors_for(*raws: Any) -> list[float]:
    """The factors of ``FACTORS`` that keep every unit of ``raws`` a credit value."""
    out = []
    for factor in FACTORS:
        try:
            for raw in raws:
                scale_units(raw, factor)
        except ValueError:
            continue
        out.append(factor)
    return out


def assert_scaled(base: Any, scaled: Any, factor: float, prose: frozenset[str], at: str) -> None:
    """``scaled`` is ``base`` with every unit times ``factor`` and nothing else changed
    (keys in ``prose`` hold sentences that quote numbers: not compared)."""
    if isinstance(base, dict):
        assert sorted(base) == sorted(scaled), at
        for key, value in base.items():
            if key in prose:
                continue
            if key in UNIT_KEYS | AUDIT_UNITS and isinstance(value, float | int):
                assert scaled[key] == credits(value, factor), f"{at}.{key}"
            else:
                assert_scaled(value, scaled[key], factor, prose, f"{at}.{key}")
    elif isinstance(base, list):
        assert len(base) == len(scaled), at
        for i, (a, b) in enumerate(zip(base, scaled, strict=True)):
            assert_scaled(a, b, factor, prose, f"{at}[{i}]")
    else:
        assert base == scaled, at


AUDIT_UNITS = frozenset(
    {"units_needed", "total_units_required", "units_toward_total", "units_earned"}
    | {"units_in_progress", "units_planned", "extra_units"}
)
PLAN_PROSE = frozenset({"solve_ms", "reasons"})
AUDIT_PROSE = frozenset({"explanation", "note", "eligibility_note", "sharing_notes", "warnings"})

# --------------------------------------------------------------------------- catalogs


def raw_sample() -> dict[str, Any]:
    return json.loads((REPO / "agents" / "data" / "catalog.json").read_text("utf-8"))


def _raw_harrow() -> dict[str, Any]:
    return load_catalog(REPO / "demos" / "harrow-bay").model_dump(
        mode="json", exclude_defaults=True
    )


def _policy(rule_id: str, kind: str, limit: float, **more: Any) -> dict[str, Any]:
    cite = {"document": "pol", "section": "s"}
    return {"id": rule_id, "title": rule_id, "kind": kind, "limit": limit, "citation": cite, **more}


def _course(code: str, units: float, prereq: str | None = None, **more: Any) -> dict[str, Any]:
    out = {"code": code, "title": code, "units": units, "department": code[:4], "level": 100}
    out["offered"] = {"terms": ["fall", "spring"]}
    return {**out, **({"prerequisites": prereq} if prereq else {}), **more}


def _raw_small() -> dict[str, Any]:
    """Quarter-, half- and full-size courses of 9 units each (so 1/9 gives 1-credit courses):
    a chain that needs units completed, a lab, an elective set with a units cap, load rules
    by standing, a probation cap and a degree total."""
    courses = [
        _course("CORE 101", 9),
        _course("CORE 201", 9, "CORE 101"),
        _course("CORE 301", 9, "CORE 201 and units(36)"),
        _course("CORE 101L", 2.25, corequisites="CORE 101"),
        *(_course(f"ELEC {100 + i}", (9, 4.5, 2.25)[i % 3]) for i in range(12)),
    ]
    electives = {
        "kind": "course_set", "id": "electives", "subjects": ["ELEC"], "min_units": 13.5,
        "caps": [{"courses": ["ELEC 102", "ELEC 105", "ELEC 108"], "max_units": 4.5}],
    }  # fmt: skip
    core = [{"kind": "course", "id": f"c{i}", "course": c} for i, c in enumerate(
        ("CORE 101", "CORE 201", "CORE 301", "CORE 101L"))]  # fmt: skip
    program = {
        "code": "MAJ", "name": "Major", "kind": "major", "catalog_year": "2026-2027",
        "department": "CORE", "total_units": 72,
        "requirement": {"kind": "all_of", "id": "root", "children": [*core, electives]},
    }  # fmt: skip
    return {
        "schema_version": 2, "institution": {"name": "Scale College"},
        "catalog_year": "2026-2027", "courses": courses, "programs": [program],
        "standing_thresholds": {"sophomore": 18, "junior": 36, "senior": 54},
        "policies": [
            _policy("LOAD-MAX", "max_units_per_term", 31.5,
                    limit_table=[{"when": {"standing_in": ["first_year"]}, "limit": 22.5}]),
            _policy("LOAD-MIN", "min_units_per_term", 9, severity="soft"),
            _policy("PROB-MAX", "probation_max_units", 18,
                    applies_when={"status_in": ["probation"]}),
            _policy("TOTAL", "total_units", 72),
        ],
        "documents": DOCS,
    }  # fmt: skip


RAW = {"sample": raw_sample, "harrow": _raw_harrow, "small": _raw_small}
STUDENT_DIRS = {
    "sample": REPO / "demos" / "students",
    "harrow": REPO / "demos" / "harrow-bay" / "students",
}


@cache
def raw_catalog(name: str) -> dict[str, Any]:
    return RAW[name]()


@cache
def scaled_catalog(name: str, factor: float) -> Catalog:
    raw = raw_catalog(name)
    return parse_catalog(raw if factor == 1 else scale_units(raw, factor), f"<{name} x{factor:g}>")


def raw_student(name: str, student: str) -> dict[str, Any]:
    if name == "small":
        return _small_students()[student]
    return json.loads((STUDENT_DIRS[name] / f"{student}.json").read_text("utf-8"))


def _small_students() -> dict[str, dict[str, Any]]:
    """A new student, one with a transfer credit (a units override) and a course in
    progress, and one on probation."""
    head = {"programs": ["MAJ"], "catalog_year": "2026-2027", "start_term": "F2026"}
    took = [
        {"course": "CORE 101", "term": "F2026", "grade": "B"},
        {"course": "ELEC 100", "term": "F2026", "grade": "TR", "source": "transfer",
         "units": 10.8},
        {"course": "ELEC 101", "term": "S2027", "status": "in_progress"},
    ]  # fmt: skip
    now = {"current_term": "S2027"}
    return {
        "new": {"id": "new", "name": "New", **head, "current_term": "F2026"},
        "second": {"id": "second", "name": "Second", **head, **now, "courses": took},
        "probation": {"id": "prob", "name": "Prob", **head, **now,
                      "academic_status": "probation", "courses": took[:1]},
    }  # fmt: skip

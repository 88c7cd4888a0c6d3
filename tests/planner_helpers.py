"""Shared pieces for the hand-checked CP-SAT planner tests (tests/test_planner_*.py): the
whole-result view without timings, expected-result builders, a required-courses tree, and
the small catalogs - a three-course prerequisite chain and an alternate-year offering."""

from __future__ import annotations

from typing import Any

from agents.planner import PlanResult
from tests.planner_strategies import catalog, course, program

FS = ["fall", "spring"]


def whole(result: PlanResult) -> dict[str, Any]:
    out = result.model_dump()
    out.pop("solve_ms")
    return out


def required(*codes: str) -> dict[str, Any]:
    return {
        "kind": "all_of",
        "id": "root",
        "children": [{"kind": "course", "id": f"r{i}", "course": c} for i, c in enumerate(codes)],
    }


def terms(*rows: tuple[str, list[str], float]) -> list[dict[str, Any]]:
    # No sessions: these catalogs' terms have none (agents.catalog.sessions).
    return [{"term": t, "courses": c, "units": u, "sessions": {}} for t, c, u in rows]


def ok(
    rows: list[dict[str, Any]], req: dict[str, list[str]], units: float, extra: float = 0.0
) -> dict[str, Any]:
    return {
        "status": "optimal",
        "terms": rows,
        "graduation_term": rows[-1]["term"],
        "units_planned": units,
        "extra_units": extra,
        "reasons": [],
        "earliest_feasible_term": None,
        "requirement_of": req,
        "notes": [],
        "infeasible_kind": None,
        "time_limits": [],
    }


def infeasible(reasons: list[str], earliest: str | None) -> dict[str, Any]:
    return {
        "status": "infeasible",
        "terms": [],
        "graduation_term": None,
        "units_planned": 0.0,
        "extra_units": 0.0,
        "reasons": reasons,
        "earliest_feasible_term": earliest,
        "requirement_of": {},
        "notes": [],
        "infeasible_kind": "proven",
        "time_limits": [],
    }


CHAIN = catalog(
    [
        course("10-101", 9, FS),
        course("10-201", 9, FS, "10-101"),
        course("10-301", 9, FS, "10-201"),
        course("20-100", 9, FS),
    ],
    [program("MAJ", required("10-101", "10-201", "10-301"))],
)


CHAIN_REQ = {"10-101": ["MAJ/r0"], "10-201": ["MAJ/r1"], "10-301": ["MAJ/r2"]}


ALTERNATE = catalog(
    [course("10-101", 9, ["fall"], years="even"), course("10-102", 9, FS)],
    [program("MAJ", required("10-101", "10-102"))],
)

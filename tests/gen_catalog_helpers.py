"""Catalogs for the pool-proof tests (tests/test_pool_proof*.py): one whose pruned pool loses
the only short route behind decoys, small base catalogs to enlarge with
``eval.gen_catalog.enlarge``, and the planner run with the pool forced to every course."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import strategies as st

import agents.planner.proof as proof_module
from agents.catalog import Catalog, StudentRecord, Term
from agents.planner import PlanConstraints, PlanResult, plan
from eval.gen_catalog import full_pool
from tests.planner_helpers import FS
from tests.planner_strategies import catalog, course, program, student

DECOYS = 45
ROUTE = "40-300"


def decoy_catalog() -> Catalog:
    """A required 12-unit course and one elective from the ELEC set. The short route is one
    9-unit 300-level elective; 45 12-unit 100-level decoys rank ahead of it in the pool (a
    lower level first), and five 9-unit 100-level courses take the fillers' 9-unit places,
    so the pruned pool keeps decoys only: 24 units instead of 21."""
    courses = [course("10-100", 12, FS)]
    courses += [course(f"20-1{i:02d}", 12, FS, attributes=["ELEC"]) for i in range(DECOYS)]
    courses += [course(f"30-10{i}", 9, FS) for i in range(5)]
    courses.append(course(ROUTE, 9, FS, attributes=["ELEC"], level=300))
    root = {
        "kind": "all_of",
        "id": "root",
        "children": [
            {"kind": "course", "id": "core", "course": "10-100"},
            {"kind": "course_set", "id": "elective", "attributes": ["ELEC"], "min_courses": 1},
        ],
    }
    return catalog(courses, [program("MAJ", root)])


def newcomer(programs: list[str]) -> StudentRecord:
    return student(programs)


@contextmanager
def proof_steps(widen: int, whole: int) -> Iterator[None]:
    """The proof's widening rounds and whole-catalog size limit set for a block."""
    old = proof_module.WIDEN_ROUNDS, proof_module.WHOLE_MAX
    proof_module.WIDEN_ROUNDS, proof_module.WHOLE_MAX = widen, whole
    try:
        yield
    finally:
        proof_module.WIDEN_ROUNDS, proof_module.WHOLE_MAX = old


def objective(result: PlanResult) -> tuple[int, float]:
    """(graduation term index, units): what "optimal" must get right."""
    assert result.graduation_term is not None
    return (Term.parse(result.graduation_term).index, result.units_planned)


def plan_both(
    cat: Catalog, record: StudentRecord, programs: list[str], c: PlanConstraints
) -> tuple[PlanResult, PlanResult]:
    """The planner's answer, and the answer with the pool forced to every usable course."""
    pooled = plan(cat, record, programs, c)
    with full_pool():
        full = plan(cat, record, programs, c)
    return pooled, full


@st.composite
def decoy_bases(draw: st.DrawFn) -> tuple[Catalog, list[dict[str, Any]]]:
    """A base catalog like ``decoy_catalog`` with drawn sizes: decoys (many, big, low
    level), one or two short routes (small, higher level, perhaps behind a prerequisite),
    plain fillers, one or two required courses, perhaps a degree total, and the record's
    courses. Enlarged by ``eval.gen_catalog.enlarge`` (copies cross-listed into the
    elective set), the pool is pruned; whether it loses a route depends on the draw."""
    big = draw(st.sampled_from([12, 15]))
    courses = [course(f"10-10{i}", 12, FS) for i in range(2)]
    decoys = draw(st.integers(20, 40))
    courses += [course(f"20-1{i:02d}", big, FS, attributes=["ELEC"]) for i in range(decoys)]
    fillers = draw(st.integers(0, 6))
    courses += [
        course(f"30-1{i:02d}", draw(st.sampled_from([6, 9, 12])), FS) for i in range(fillers)
    ]
    routes = draw(st.integers(1, 2))
    for i in range(routes):
        courses.append(
            course(
                f"40-{draw(st.sampled_from([2, 3]))}0{i}",
                draw(st.sampled_from([6, 9])),
                draw(st.sampled_from([FS, ["fall"], ["spring"]])),
                "10-100" if draw(st.booleans()) else None,
                attributes=["ELEC"],
                level=300,
            )
        )
    required = draw(st.sampled_from([["10-100"], ["10-100", "10-101"]]))
    children: list[dict[str, Any]] = [
        {"kind": "course", "id": f"req-{c}", "course": c} for c in required
    ]
    children.append(
        {
            "kind": "course_set",
            "id": "electives",
            "attributes": ["ELEC"],
            "min_courses": draw(st.integers(1, 2)),
        }
    )
    total = draw(st.sampled_from([None, None, 48, 60]))
    root = {"kind": "all_of", "id": "root", "children": children}
    base = catalog(courses, [program("MAJ", root, total=total)])
    done = draw(st.lists(st.sampled_from(["10-101", "20-100", "30-100"]), max_size=1))
    history = [
        {"course": c, "term": "S2026", "grade": "B"}
        for c in done
        if c in {x["code"] for x in courses}
    ]
    return base, history

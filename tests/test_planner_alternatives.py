"""k-best alternatives (``agents.planner.alternatives``), hand-checked on small catalogs:
other course sets first, equally good before next best, the same courses in other terms
only when no other set exists (and never as a mere delay), labels and differences in
words, a rejecting check that the search moves past, determinism and the bad ``k``."""

from __future__ import annotations

import pytest
import structlog

from agents.catalog import Catalog
from agents.errors import PlanningError
from agents.planner import PlanAlternative, PlanConstraints, PlanResult, alternatives, plan
from agents.planner.kbest import differences
from agents.verifier import verify_plan
from tests.planner_helpers import CHAIN, FS, required
from tests.planner_strategies import catalog, course, program, student

# One core course and one of three picks: 10-201 and 10-202 (9 units) tie, 10-203 costs
# 12 units, which no longer fits beside 10-101 in one 18-unit term.
PICK = {
    "kind": "all_of",
    "id": "root",
    "children": [
        {"kind": "course", "id": "core", "course": "10-101"},
        {
            "kind": "course_set",
            "id": "pick",
            "courses": ["10-201", "10-202", "10-203"],
            "min_courses": 1,
        },
    ],
}
PICKS = catalog(
    [
        course("10-101", 9, FS),
        course("10-201", 9, FS),
        course("10-202", 9, FS),
        course("10-203", 12, FS),
    ],
    [program("MAJ", PICK)],
)
EIGHTEEN = PlanConstraints(max_units_per_term=18)
# Two required courses, one per term: the only choice is their order.
TWO = catalog(
    [course("10-101", 9, FS), course("10-102", 9, FS)],
    [program("MAJ", required("10-101", "10-102"))],
)
NINE = PlanConstraints(max_units_per_term=9)


def grid(result: PlanResult) -> list[tuple[str, list[str]]]:
    return [(t.term, t.courses) for t in result.terms]


def best_and_alternatives(
    cat: Catalog, c: PlanConstraints, k: int
) -> tuple[PlanResult, list[PlanAlternative]]:
    me = student(["MAJ"])
    best = plan(cat, me, ["MAJ"], c)
    return best, alternatives(cat, me, ["MAJ"], c, best, k)


def test_other_course_sets_come_equally_good_first_then_next_best() -> None:
    best, found = best_and_alternatives(PICKS, EIGHTEEN, 3)
    assert grid(best) == [("S2027", ["10-101", "10-201"])]
    assert [(a.kind, a.distinct_by, a.label) for a in found] == [
        ("equally_good", "course_set", "Equally good"),
        ("next_best", "course_set",
         "Next best: graduates Fall 2027 instead of Spring 2027, +3 units"),
    ]  # fmt: skip
    assert [grid(a.result) for a in found] == [
        [("S2027", ["10-101", "10-202"])],
        [("S2027", ["10-101"]), ("F2027", ["10-203"])],
    ]
    assert [a.differences for a in found] == [
        ["takes 10-202 instead of 10-201", "graduates the same term (Spring 2027)",
         "the same units (18)"],
        ["takes 10-203 instead of 10-201", "graduates Fall 2027 instead of Spring 2027",
         "+3 units (21 instead of 18)"],
    ]  # fmt: skip
    # No third: every other set holds one of these, and the same courses later is a delay.
    for a in found:
        assert verify_plan(PICKS, student(["MAJ"]), ["MAJ"], EIGHTEEN, a.result) == []
        assert a.result.status == "optimal"


def test_same_courses_in_other_terms_only_when_no_other_set_exists() -> None:
    best, found = best_and_alternatives(TWO, NINE, 3)
    assert grid(best) == [("S2027", ["10-101"]), ("F2027", ["10-102"])]
    assert len(found) == 1
    (swap,) = found
    assert (swap.kind, swap.distinct_by) == ("equally_good", "placement")
    assert swap.label == "Equally good"
    assert grid(swap.result) == [("S2027", ["10-102"]), ("F2027", ["10-101"])]
    assert swap.differences == [
        "takes 10-102 in Spring 2027 instead of Fall 2027",
        "takes 10-101 in Fall 2027 instead of Spring 2027",
        "graduates the same term (Fall 2027)",
        "the same units (18)",
    ]


def test_a_forced_chain_has_no_alternative_but_delays() -> None:
    best, found = best_and_alternatives(CHAIN, PlanConstraints(max_units_per_term=36), 2)
    assert best.graduation_term == "S2028"
    assert found == []


def test_consent_makes_an_equal_set_next_best() -> None:
    either = catalog(
        [course("10-201", 9, FS, "consent(instructor)"), course("10-202", 9, FS)],
        [program("MAJ", {"kind": "course_set", "id": "pick",
                         "courses": ["10-201", "10-202"], "min_courses": 1})],
    )  # fmt: skip
    best, found = best_and_alternatives(either, PlanConstraints(max_units_per_term=27), 1)
    assert grid(best) == [("S2027", ["10-202"])]
    (a,) = found
    assert (a.kind, a.label) == ("next_best", "Next best: 1 more course on consent")
    assert a.consent_courses == ["10-201"]
    assert a.differences[-1] == "1 course on consent instead of 0"
    assert a.result.notes == ["10-201 needs instructor consent before registration"]


def test_a_rejected_plan_is_skipped_and_the_search_goes_on() -> None:
    me = student(["MAJ"])
    best = plan(PICKS, me, ["MAJ"], EIGHTEEN)
    seen: list[list[str]] = []

    def check(result: PlanResult) -> list[str]:
        courses = sorted(c for t in result.terms for c in t.courses)
        seen.append(courses)
        return ["no 10-202 today"] if "10-202" in courses else []

    with structlog.testing.capture_logs() as logs:
        found = alternatives(PICKS, me, ["MAJ"], EIGHTEEN, best, 1, check=check)
    assert seen == [["10-101", "10-202"], ["10-101", "10-203"]]
    assert [a.kind for a in found] == ["next_best"]
    rejected = [e for e in logs if e["event"] == "planner.alternatives.rejected"]
    assert [e["problems"] for e in rejected] == [["no 10-202 today"]]


def test_alternatives_are_deterministic() -> None:
    def run() -> list[dict[str, object]]:
        _, found = best_and_alternatives(PICKS, EIGHTEEN, 3)
        return [a.model_dump(exclude={"result": {"solve_ms"}}) for a in found]

    assert run() == run()


def test_nothing_is_asked_or_nothing_to_vary() -> None:
    me = student(["MAJ"])
    best = plan(PICKS, me, ["MAJ"], EIGHTEEN)
    assert alternatives(PICKS, me, ["MAJ"], EIGHTEEN, best, 0) == []
    none = best.model_copy(update={"status": "infeasible", "terms": [], "graduation_term": None})
    assert alternatives(PICKS, me, ["MAJ"], EIGHTEEN, none, 3) == []


@pytest.mark.parametrize("k", [-1, 6])
def test_k_outside_0_to_5_is_refused_with_the_range(k: int) -> None:
    me = student(["MAJ"])
    best = plan(PICKS, me, ["MAJ"], EIGHTEEN)
    with pytest.raises(PlanningError) as err:
        alternatives(PICKS, me, ["MAJ"], EIGHTEEN, best, k)
    assert str(err.value) == f"k={k}: ask for 0 to 5 alternatives"


def test_differences_pair_swaps_by_requirement_and_count_other_moves() -> None:
    def result(rows: list[tuple[str, list[str]]], req: dict[str, list[str]]) -> PlanResult:
        return PlanResult.model_validate({
            "status": "optimal", "terms": [{"term": t, "courses": c, "units": 9.0 * len(c)}
                                           for t, c in rows],
            "graduation_term": rows[-1][0], "units_planned": 9.0 * sum(len(c) for _, c in rows),
            "extra_units": 0.0, "reasons": [], "earliest_feasible_term": None,
            "requirement_of": req, "solve_ms": 0.0,
        })  # fmt: skip

    best = result(
        [("S2027", ["10-101", "10-201"]), ("F2027", ["10-301", "20-100"])],
        {"10-101": ["MAJ/core"], "10-201": ["MAJ/pick"], "10-301": ["MAJ/x"],
         "20-100": ["free elective"]},
    )  # fmt: skip
    alt = result(
        [("S2027", ["10-202", "10-301"]), ("F2027", ["10-101", "20-110", "20-120"])],
        {"10-101": ["MAJ/core"], "10-202": ["MAJ/pick"], "10-301": ["MAJ/x"],
         "20-110": ["free elective"], "20-120": ["free elective"]},
    )  # fmt: skip
    assert differences(best, alt) == [
        "takes 10-202 instead of 10-201",
        "takes 20-110 instead of 20-100",
        "also takes 20-120",
        "2 of the same courses in other terms",
        "graduates the same term (Fall 2027)",
        "+9 units (45 instead of 36)",
    ]

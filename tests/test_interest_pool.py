"""Courses of interest in the planner's candidate pool: at most ``INTEREST_SLACK`` beyond
those a requirement keeps, the ones the student is most interested in first. A broad
interest ("security") matches hundreds of program courses in a real catalog (243 at UNSW);
each one in the pool made the full model slower without making the plan better."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.catalog import StudentRecord, load_catalog, load_student
from agents.planner import PlanConstraints, plan
from agents.planner import pool as planner_pool
from agents.planner.setup import PlanSetup
from agents.verifier import verify_plan

REPO = Path(__file__).resolve().parents[1]
PROGRAMS = ["CS-BS"]


def _interests() -> dict[str, float]:
    """Every course some leaf of the programs matches, scored by code (distinct scores)."""
    catalog = load_catalog()
    setup = PlanSetup(catalog, _student(), PROGRAMS, PlanConstraints(max_units_per_term=54))
    prep = setup.prep(setup.latest)
    codes = sorted({c for leaf in prep.leaves for c in leaf.matching})
    return {code: 1.0 + i / len(codes) for i, code in enumerate(codes)}


def _student() -> StudentRecord:
    return load_student(REPO / "demos" / "students" / "cs-sophomore.json")


def _pool(interests: dict[str, float], cap: int, monkeypatch: pytest.MonkeyPatch) -> set[str]:
    monkeypatch.setattr(planner_pool, "INTEREST_SLACK", cap)
    catalog = load_catalog()
    c = PlanConstraints(max_units_per_term=54, interests=interests)
    setup = PlanSetup(catalog, _student(), PROGRAMS, c)
    return set(setup.prep(setup.latest).pool)


def test_only_the_most_interesting_program_courses_join_the_pool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    interests = _interests()
    assert len(interests) > 20
    wide = _pool(interests, 10_000, monkeypatch)
    narrow = _pool(interests, 3, monkeypatch)
    assert narrow < wide  # fewer, and nothing the wide pool lacks
    liked = sorted(interests, key=lambda c: -interests[c])
    kept_by_interest = [c for c in liked if c in wide and c not in narrow]
    assert kept_by_interest, "the cap left every interest course in: the test proves nothing"
    # The three the student likes most that a requirement did not keep are in.
    top = [c for c in liked if c in wide][:3]
    assert set(top) <= narrow


@pytest.mark.slow
def test_a_plan_from_the_narrow_pool_is_as_good_and_verified(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    interests = _interests()
    catalog = load_catalog()
    student = _student()
    c = PlanConstraints(max_units_per_term=54, interests=interests)
    monkeypatch.setattr(planner_pool, "INTEREST_SLACK", 10_000)
    wide = plan(catalog, student, PROGRAMS, c)
    monkeypatch.setattr(planner_pool, "INTEREST_SLACK", 3)
    narrow = plan(catalog, student, PROGRAMS, c)
    assert (narrow.status, narrow.graduation_term, narrow.units_planned) == (
        wide.status,
        wide.graduation_term,
        wide.units_planned,
    )
    assert verify_plan(catalog, student, PROGRAMS, c, narrow) == []

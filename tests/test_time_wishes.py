"""Issue #12 defect 2: time and free-day wishes are kept whenever an equally good plan keeps
them, and flagged (risk, letter, outcome) when none can."""

from __future__ import annotations

import pytest

from eval.metrics import ScenarioResult
from eval.suite import load_scenarios, run_suite

WISH_SCENARIOS = (
    "wish-fridays-free-elective-swapped",
    "wish-fridays-free-before-10-elective-swapped",
    "wish-not-before-unkeepable-flagged",
)


@pytest.fixture(scope="module")
def results() -> dict[str, ScenarioResult]:
    chosen = [s for s in load_scenarios() if s.id in WISH_SCENARIOS]
    report = run_suite(chosen, recheck=(), resolve=False)
    return {r.id: r for r in report.results}


@pytest.mark.parametrize("sid", WISH_SCENARIOS)
def test_wish_scenario_meets_its_label_with_no_broken_wish_left_unsaid(
    results: dict[str, ScenarioResult], sid: str
) -> None:
    r = results[sid]
    assert (r.outcome_ok, r.graduation_ok, r.risks_missing, r.defects) == (True, True, [], [])


def test_swappable_free_elective_gives_a_plain_approval(
    results: dict[str, ScenarioResult],
) -> None:
    r = results["wish-fridays-free-elective-swapped"]
    assert (r.outcome, r.risks_found) == ("approved", [])


def test_unkeepable_wish_is_a_sections_risk(results: dict[str, ScenarioResult]) -> None:
    r = results["wish-not-before-unkeepable-flagged"]
    assert (r.outcome, r.risks_found) == ("approved_with_risks", ["sections"])

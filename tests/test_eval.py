"""The labeled scenario suite runs in CI: every final plan passes the independent verifier,
no expected hard violation is missed, outcomes match the labels at least as often as the
documented disagreements allow, and a re-run is byte-identical apart from wall-clock values.
The metric helpers are tested on their own, and ``python -m eval --json`` end to end on a
two-scenario suite.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agents.artifacts import CitationRef
from agents.catalog import load_catalog, load_student
from agents.planner import PlanConstraints
from eval import bench
from eval.__main__ import main
from eval.bounds import lower_bound
from eval.metrics import _citation_errors
from eval.suite import (
    SCENARIO_DIR,
    ScenarioError,
    SuiteReport,
    category_counts,
    load_scenarios,
    run_suite,
    strip_volatile,
)

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

REPO = Path(__file__).resolve().parents[1]

# Labels say what should happen, decided from the catalog, so they need not all agree with
# the pipeline. Today all of them do. Which elective the planner picks can still decide
# whether a risk appears, so the gate allows two scenarios to move; a regressed behavior (a
# whole group such as the 7 acceleration or 6 policy-question scenarios) fails.
MIN_OUTCOME_ACCURACY = 0.96
# The second sample institution's labels come from its policy text; where the pipeline
# disagrees the disagreement is listed in docs/evaluation.md (eval table) and stays visible here.
# UNSW's 16 scenarios (labels derived from demos/unsw's rules before running) all agree
# today; 0.9 leaves one scenario of slack, as on Harrow Bay.
MIN_OUTCOME_ACCURACY_BY_CATALOG = {
    "sample": MIN_OUTCOME_ACCURACY,
    "demos/harrow-bay": 0.9,
    "demos/unsw": 0.9,
}
# Re-run from scratch: multi-round, add-program, probation, answered, needs-input,
# infeasible, study-abroad and invalid scenarios.
RECHECK = {
    "accel-low-gpa",
    "add-cs-minor-is-junior",
    "probation-next-term",
    "policy-load-below-3",
    "free-text-unknown-minor",
    "add-math-minor-too-late",
    "study-abroad-fall-2027",
    "invalid-gpa-above-scale",
}


@pytest.fixture(scope="module")
def suite() -> SuiteReport:
    # The planner re-run (``resolve``) is left to ``python -m eval``: it doubles the solver
    # time and adds nothing a CI gate needs beyond the lower bound below.
    return run_suite(load_scenarios(), recheck=RECHECK, resolve=False)


# --------------------------------------------------------------------------- the suite


def test_suite_has_40_labeled_scenarios_in_every_category() -> None:
    scenarios = load_scenarios()
    counts = category_counts(scenarios)
    assert len(scenarios) >= 40
    assert set(counts) == {
        "on_track_senior",
        "add_minor",
        "acceleration",
        "probation",
        "study_abroad",
        "time_clash",
        "repeat",
        "transfer",
        "policy_question",
        "free_text",
        "next_term",
        "invalid_request",
        "approval",
        "exception",
        "catalog_year",
        "override",
        "close_programs",
    }
    assert all(s.rationale for s in scenarios)


def test_labels_name_rules_sections_and_terms_of_the_catalog() -> None:
    for s in load_scenarios():
        catalog = load_catalog(None if s.catalog is None else REPO / s.catalog)
        exp = s.expect
        assert set(exp.violations) <= set(catalog.rule_by_id), s.id
        for ref in exp.cited_sections:
            doc, _, section = ref.partition("/")
            assert catalog.section_text(doc, section).text, (s.id, ref)
        if exp.graduation not in ("none", "any"):
            assert catalog.calendar.parse(exp.graduation).code == exp.graduation, s.id
        assert (exp.outcome == "rejected") == (exp.invalid_path is not None), s.id


def test_every_final_plan_passes_the_verifier(suite: SuiteReport) -> None:
    s = suite.summary
    assert s["plans_verified"] >= 30
    assert s["invalid_plans"] == []
    assert s["validity"] == 1.0


def test_no_expected_hard_violation_is_missed(suite: SuiteReport) -> None:
    assert suite.summary["hard_violations_missed"] == []


def test_every_scenario_runs_to_done(suite: SuiteReport) -> None:
    assert suite.summary["failed_runs"] == []


def test_outcome_accuracy_meets_the_threshold(suite: SuiteReport) -> None:
    for label, minimum in MIN_OUTCOME_ACCURACY_BY_CATALOG.items():
        s = suite.per_catalog[label]
        assert s["outcome_accuracy"] >= minimum, (label, s["outcome_mismatches"])


def test_citations_are_the_catalog_text(suite: SuiteReport) -> None:
    assert suite.summary["citation_errors"] == 0
    assert suite.summary["citations_checked"] > 50


def test_rerun_is_byte_identical_apart_from_timestamps(suite: SuiteReport) -> None:
    s = suite.summary
    assert s["determinism_checked"] == len(RECHECK)
    assert s["determinism_mismatches"] == []
    assert s["deterministic"] is True


def test_no_plan_graduates_before_the_simple_lower_bound(suite: SuiteReport) -> None:
    opt = suite.summary["optimality"]
    assert opt["below_bound"] == []


# --------------------------------------------------------------------------- helpers


def test_lower_bound_counts_units_at_the_cap_and_skips_terms_away() -> None:
    catalog = load_catalog()
    student = load_student(REPO / "demos" / "students" / "overload-low-gpa.json")
    # 229 units remain; the prerequisite chain (15-210/15-251 -> 15-451) is only 2 deep.
    at = {
        54: "S2029",  # ceil(229 / 54) = 5 terms from S2027
        63: "F2028",  # ceil(229 / 63) = 4 terms
    }
    for cap, term in at.items():
        pc = PlanConstraints(max_units_per_term=cap)
        assert lower_bound(catalog, student, ["CS-BS"], pc) == term
    away = PlanConstraints(max_units_per_term=63, terms_away=["F2027"])
    assert lower_bound(catalog, student, ["CS-BS"], away) == "S2029"


def test_citation_of_a_rule_must_be_the_section_that_states_it() -> None:
    catalog = load_catalog()
    text = catalog.section_text("academic-policies", "overload").text
    wrong = CitationRef(
        document="academic-policies",
        section="overload",
        heading="Overloads",
        quote=text,
        rule_id="LOAD-MAX",
    )
    misquoted = wrong.model_copy(update={"rule_id": "LOAD-OVERLOAD", "quote": text[:40]})
    right = wrong.model_copy(update={"rule_id": "LOAD-OVERLOAD"})
    assert _citation_errors(catalog, [wrong, misquoted, right]) == [
        "LOAD-MAX: cites academic-policies/overload, the rule is stated in "
        "academic-policies/course-load",
        "academic-policies/overload: the quote is not the section's text",
    ]


def test_strip_volatile_drops_wall_clock_keys_at_any_depth() -> None:
    raw = {"a": 1, "created_at": "x", "s": [{"solve_ms": 3.2, "b": [{"ms": 1, "c": 2}]}]}
    assert strip_volatile(raw) == {"a": 1, "s": [{"b": [{"c": 2}]}]}


def test_scenario_whose_id_differs_from_its_file_name_is_refused(tmp_path: Path) -> None:
    src = SCENARIO_DIR / "policy-pass-fail.json"
    shutil.copy(src, tmp_path / "renamed.json")
    with pytest.raises(ScenarioError) as err:
        load_scenarios(tmp_path)
    assert str(err.value) == (
        "renamed.json: id 'policy-pass-fail' differs from the file name; rename one"
    )


def test_cli_json_line_reports_the_suite(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    scenarios = tmp_path / "scenarios"
    scenarios.mkdir()
    for name in ("policy-pass-fail", "invalid-target-words"):
        shutil.copy(SCENARIO_DIR / f"{name}.json", scenarios)
    out = tmp_path / "latest.json"
    code = main(["--json", "--scenarios", str(scenarios), "--out", str(out)])
    last = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0
    assert last["scenarios"] == 2
    assert last["outcome_accuracy"] == 1.0
    assert last["citation_accuracy"] == 1.0
    assert last["validity"] is None  # neither scenario makes a plan
    assert last["deterministic"] is True
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert [r["id"] for r in saved["scenarios"]] == ["invalid-target-words", "policy-pass-fail"]
    assert saved["categories"] == {"invalid_request": 1, "policy_question": 1}


def test_bench_runs_each_benchmark_and_merges_their_json_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    (tmp_path / "fake_bench.py").write_text(
        "import json, sys\n"
        "print('fake table', sys.argv[1:])\n"
        "print(json.dumps({'args': sys.argv[1:]}))\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setattr(
        bench, "BENCHMARKS", (("planner", "fake_bench"), ("pipeline", "fake_bench"))
    )
    code = bench.main(["--json", "--pipeline-args", "--requests 5"])
    lines = capsys.readouterr().out.strip().splitlines()
    assert code == 0
    assert lines[:-1] == [
        "== planner benchmark: python -m fake_bench",
        "fake table ['--json']",
        "== pipeline benchmark: python -m fake_bench --requests 5",
        "fake table ['--json', '--requests', '5']",
    ]
    assert json.loads(lines[-1]) == {
        "pipeline": {"args": ["--json", "--requests", "5"]},
        "planner": {"args": ["--json"]},
    }

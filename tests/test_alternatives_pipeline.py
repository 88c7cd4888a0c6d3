"""Alternatives in the pipeline (``PlanRequest.alternatives``, ``--alternatives K``): found
once at synthesis for the recommended plan, each re-verified here, dropped and logged when
a check fails, rendered as their own sections in Markdown and HTML, mentioned in the
letter in one sentence; old checkpoints and requests without the field still load."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import structlog

from agents.advice import alternatives as alt_module
from agents.advice.alternatives import alternative_plans
from agents.artifacts import PlanRequest, Recommendation
from agents.catalog import use_catalog
from agents.llm.prompts import letter_facts
from agents.planner import PlannedTerm, PlanResult
from agents.planning import plannable_programs, to_plan_constraints
from agents.toolbox import Toolbox
from agents.verifier import Defect, verify_plan
from agents.writing.render import to_html, to_markdown
from eval.suite import ScenarioRun, SuiteRunner, load_scenarios
from pipeline.batch_input import InputItem, RequestValidator
from pipeline.cli import main
from pipeline.cli_common import alternatives_count

SCENARIO = "add-cs-minor-is-junior"  # IS junior adds the CS minor: approved, S2028


def scenario_request(**changes: Any) -> dict[str, Any]:
    scenario = next(s for s in load_scenarios() if s.id == SCENARIO)
    return {**scenario.request, **changes}


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> SuiteRunner:
    return SuiteRunner(tmp_path_factory.mktemp("work"))


@pytest.fixture(scope="module")
def run(runner: SuiteRunner) -> ScenarioRun:
    scenario = next(s for s in load_scenarios() if s.id == SCENARIO)
    asked = scenario.model_copy(update={"request": scenario_request(alternatives=2)})
    out = runner.run(asked)
    assert out.ctx is not None and out.ctx.recommendation is not None, out.error
    return out


@pytest.fixture(scope="module")
def rec(run: ScenarioRun) -> Recommendation:
    assert run.ctx is not None and run.ctx.recommendation is not None
    return run.ctx.recommendation


def test_two_equally_good_alternatives_beside_the_recommended_plan(rec: Recommendation) -> None:
    assert rec.outcome == "approved" and rec.graduation_term == "S2028"
    assert [(a.rank, a.kind, a.label, a.graduation_term) for a in rec.alternatives] == [
        (1, "equally_good", "Equally good", "S2028"),
        (2, "equally_good", "Equally good", "S2028"),
    ]
    chosen = {c.course for t in rec.plan for c in t.courses}
    sets = [frozenset(c.course for t in a.terms for c in t.courses) for a in rec.alternatives]
    assert len({frozenset(chosen), *sets}) == 3  # three distinct course sets
    for a in rec.alternatives:
        assert a.units_planned == 128
        assert a.differences[0].startswith("takes ") and " instead of " in a.differences[0]
        assert a.differences[-2:] == [
            "graduates the same term (Spring 2028)",
            "the same units (128)",
        ]
    assert rec.alternatives_note == ""


def test_every_alternative_passes_the_independent_verifier(
    run: ScenarioRun, rec: Recommendation, runner: SuiteRunner
) -> None:
    ctx = run.ctx
    assert ctx is not None and ctx.intake is not None and ctx.proposal is not None
    assert ctx.intake.student is not None
    tools = runner.tools()
    schedule = ctx.schedules[-1]
    assert schedule.constraints is not None
    pc = to_plan_constraints(schedule.constraints, ctx.intake, tools)
    programs = plannable_programs(ctx.intake, ctx.proposal.audit)
    for a in rec.alternatives:
        plan = PlanResult(
            status=a.solver_status,
            terms=[PlannedTerm(term=t.term, courses=[c.course for c in t.courses],
                               units=t.units) for t in a.terms],
            graduation_term=a.graduation_term, units_planned=a.units_planned,
            extra_units=0.0, reasons=[], earliest_feasible_term=None,
            requirement_of=a.requirement_of, solve_ms=0.0,
        )  # fmt: skip
        assert verify_plan(tools.catalog, ctx.intake.student, programs, pc, plan) == []


def test_reports_show_each_alternative_as_its_own_section(
    rec: Recommendation, runner: SuiteRunner
) -> None:
    with use_catalog(runner.tools().catalog):
        md, html = to_markdown(rec), to_html(rec)
    section = md[md.index("## Alternatives") : md.index("## Negotiation")]
    assert section.count("### Alternative ") == 2
    assert "### Alternative 1 (other courses): Equally good" in section
    assert "#### Spring 2027 (" in section  # the term-by-term grid, a level below
    for a in rec.alternatives:
        assert all(f"- {d}" in section for d in a.differences)
    assert html.count('<article class="alternative"') == 2
    assert 'data-kind="equally_good"' in html and '<li class="difference">' in html
    assert Recommendation.model_validate_json(rec.model_dump_json()) == rec


def test_the_letter_mentions_the_alternatives_in_one_sentence(rec: Recommendation) -> None:
    said = [p for p in rec.letter.split("\n\n") if "other plans" in p]
    assert said == [
        "Your report also shows 2 other plans that meet every requirement (2 equally good), "
        "each with what it changes, in case you would rather take different courses."
    ]


def test_a_model_writing_the_letter_sees_labels_and_differences_only(rec: Recommendation) -> None:
    facts = letter_facts(rec)
    assert facts["alternatives"] == [
        {"rank": a.rank, "kind": a.kind, "label": a.label, "differences": a.differences}
        for a in rec.alternatives
    ]
    none = letter_facts(rec.model_copy(update={"alternatives": []}))
    assert "alternatives" not in none and "alternatives_note" not in none


def test_an_alternative_with_defects_is_dropped_and_logged(
    run: ScenarioRun, runner: SuiteRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = run.ctx
    assert ctx is not None and ctx.intake is not None and ctx.proposal is not None
    calls: list[int] = []

    def first_is_broken(*args: Any, **kwargs: Any) -> list[Defect]:
        calls.append(1)
        if len(calls) == 1:
            return [Defect(kind="prerequisite", term="S2027", course="15-213",
                           message="15-213 needs 15-122 first")]  # fmt: skip
        return verify_plan(*args, **kwargs)

    monkeypatch.setattr(alt_module, "verify_plan", first_is_broken)
    tools: Toolbox = runner.tools()
    with structlog.testing.capture_logs() as logs:
        plans, note = alternative_plans(
            ctx.intake, ctx.proposal, ctx.schedules[-1], ctx.critiques[-1], "approved", 1, tools
        )
    dropped = [e for e in logs if e["event"] == "alternatives.dropped"]
    assert [e["problems"] for e in dropped] == [
        ["verifier prerequisite: 15-213 needs 15-122 first"]
    ]
    assert len(plans) == 1 and plans[0].rank == 1  # the search moved on to the next plan
    assert note == ""


def test_no_alternatives_without_a_recommended_plan(run: ScenarioRun, runner: SuiteRunner) -> None:
    ctx = run.ctx
    assert ctx is not None and ctx.intake is not None and ctx.proposal is not None
    plans, note = alternative_plans(
        ctx.intake, ctx.proposal, ctx.schedules[-1], ctx.critiques[-1],
        "unresolved_after_max_rounds", 3, runner.tools(),
    )  # fmt: skip
    assert plans == []
    assert note == (
        "No alternatives: the request ended unresolved after max rounds, so no plan is "
        "recommended to compare them with."
    )


def test_old_checkpoints_and_requests_without_the_fields_still_load(rec: Recommendation) -> None:
    old = rec.model_dump(mode="json", exclude={"alternatives", "alternatives_note"})
    loaded = Recommendation.model_validate(old)
    assert loaded.alternatives == [] and loaded.alternatives_note == ""
    assert PlanRequest.model_validate(scenario_request()).alternatives == 0


def test_the_cli_value_fills_in_only_requests_that_do_not_set_their_own() -> None:
    validator = RequestValidator(alternatives=3)

    def checked(**fields: Any) -> int:
        out = validator.check(InputItem("x", json.dumps(scenario_request(**fields))))
        assert isinstance(out, PlanRequest), out
        return out.alternatives

    assert checked() == 3
    assert checked(alternatives=0) == 0
    assert checked(alternatives=5) == 5
    bad = validator.check(InputItem("x", json.dumps(scenario_request(alternatives=6))))
    assert not isinstance(bad, PlanRequest) and bad.message.startswith("$.alternatives:")


@pytest.mark.parametrize("text", ["6", "-1", "three"])
def test_alternatives_option_takes_0_to_5(text: str) -> None:
    import argparse

    with pytest.raises(argparse.ArgumentTypeError) as err:
        alternatives_count(text)
    assert str(err.value) == f"expected a number of alternatives 0-5, got {text!r}"
    assert alternatives_count("0") == 0 and alternatives_count("5") == 5


@pytest.mark.slow
def test_advise_run_with_alternatives_writes_them_into_the_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.json").write_text(json.dumps(scenario_request()), encoding="utf-8")
    assert main(["run", "r.json", "--alternatives", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["outcome"] == "approved"
    out = json.loads((tmp_path / "out" / f"{SCENARIO}.json").read_text(encoding="utf-8"))
    assert [a["label"] for a in out["alternatives"]] == ["Equally good"]
    saved = json.loads((tmp_path / "state" / f"{SCENARIO}.json").read_text(encoding="utf-8"))
    assert saved["request"]["alternatives"] == 1  # a resume plans what was asked
    assert "## Alternatives" in (tmp_path / "out" / f"{SCENARIO}.md").read_text("utf-8")

"""Optional terms a request allows, from the constraints to the letter: the round-1
constraint set carries them, the planner uses exactly the allowed ones (named terms, or
every term of a named kind), the verifier rejects a course in any other, the critique holds
a planned summer to its kind's rule, and the Harrow Bay request "I can take courses in
Summer 2027. Can I graduate in Fall 2027?" is approved for T12027 with the summer shown in
the report like any other term."""

from __future__ import annotations

import pytest

from agents import critique, scheduling
from agents.catalog import Term, use_catalog
from agents.intake import read_request
from agents.planner import PlanConstraints, PlanResult, plan
from agents.planning import initial_constraints, to_plan_constraints
from agents.toolbox import Toolbox
from agents.verifier import verify_plan
from eval.metrics import evaluate
from eval.suite import ScenarioRun, SuiteRunner, load_scenarios
from pipeline.runner import ToolboxFactory
from tests.harrow_helpers import REPO, SCENARIOS, hb_request, hb_tools, round_one

__all__ = ["hb_tools"]  # the fixture, used by name

SCENARIO = "hb-summer-to-graduate-early"


def _constraints(tools: Toolbox, **update: object) -> PlanConstraints:
    request = hb_request(SCENARIO).model_copy(update={"text": "", **update})
    intake = read_request(request, tools)
    return to_plan_constraints(initial_constraints(intake, tools), intake, tools)


def _plan(tools: Toolbox, pc: PlanConstraints) -> PlanResult:
    student = hb_request(SCENARIO).student
    return plan(tools.catalog, student, student.programs, pc)


def _optional_used(result: PlanResult) -> list[str]:
    return [t.term for t in result.terms if t.courses and not Term.parse(t.term).regular]


def test_the_round_one_constraints_carry_the_goals(hb_tools: Toolbox) -> None:
    intake = read_request(hb_request(SCENARIO), hb_tools)
    cs = initial_constraints(intake, hb_tools)
    assert (cs.optional_terms, cs.optional_kinds) == (["U2027"], [])
    assert cs.term_max_units["U2027"] == 2.0  # SUMMER-MAX, for the summer's own kind
    pc = to_plan_constraints(cs, intake, hb_tools)
    assert (pc.optional_terms, pc.optional_kinds, pc.include_summer) == (["U2027"], [], False)
    assert [pc.allows(Term.parse(t)) for t in ("U2027", "U2028", "T22027")] == [
        True,
        False,
        True,
    ]


def test_the_planner_uses_the_allowed_summer_to_meet_the_target(hb_tools: Toolbox) -> None:
    result = _plan(hb_tools, _constraints(hb_tools, optional_terms=["U2027"]))
    assert (result.status, result.graduation_term) == ("optimal", "T12027")
    assert _optional_used(result) == ["U2027"]
    assert [(t.term, t.units) for t in result.terms if t.term == "U2027"] == [("U2027", 1.5)]


def test_an_optional_term_not_allowed_is_never_planned(hb_tools: Toolbox) -> None:
    # Only summer 2028 is allowed: too late to help T12027, and summer 2027 stays empty.
    result = _plan(hb_tools, _constraints(hb_tools, optional_terms=["U2028"]))
    assert "U2027" not in [t.term for t in result.terms]
    assert set(_optional_used(result)) <= {"U2028"}
    none = _plan(hb_tools, _constraints(hb_tools))
    assert _optional_used(none) == []
    assert all(Term.parse(t.term).regular for t in none.terms)


@pytest.mark.slow
def test_an_allowed_kind_opens_every_term_of_it(hb_tools: Toolbox) -> None:
    pc = _constraints(hb_tools, optional_kinds=["U"], target_graduation=None)
    assert (pc.optional_terms, pc.optional_kinds) == ([], ["U"])
    result = _plan(hb_tools, pc)
    summers = [t.term for t in result.terms if not Term.parse(t.term).regular]
    assert summers and all(t.startswith("U") for t in summers)
    assert all(t.units <= 2.0 for t in result.terms if t.term in summers)


def test_the_verifier_rejects_a_course_in_an_optional_term_not_allowed(
    hb_tools: Toolbox,
) -> None:
    allowed = _constraints(hb_tools, optional_terms=["U2027"])
    result = _plan(hb_tools, allowed)
    student = hb_request(SCENARIO).student
    programs = student.programs
    assert verify_plan(hb_tools.catalog, student, programs, allowed, result) == []
    for other in (
        allowed.model_copy(update={"optional_terms": ["U2028"]}),
        allowed.model_copy(update={"optional_terms": []}),
    ):
        defects = verify_plan(hb_tools.catalog, student, programs, other, result)
        assert [(d.kind, d.term, d.message) for d in defects if d.kind == "offering"] == [
            (
                "offering",
                "U2027",
                "U2027 is an optional term (Summer 2027) the request does not allow",
            )
        ]
    by_kind = allowed.model_copy(update={"optional_terms": [], "optional_kinds": ["U"]})
    assert verify_plan(hb_tools.catalog, student, programs, by_kind, result) == []
    every = allowed.model_copy(update={"optional_terms": [], "include_summer": True})
    assert verify_plan(hb_tools.catalog, student, programs, every, result) == []


def test_the_critique_holds_a_planned_summer_to_its_kind_rule(hb_tools: Toolbox) -> None:
    r = round_one(SCENARIO, hb_tools)
    assert ("U2027", 1.5) in r.loads
    assert r.critique.approval == "approved"
    assert "SUMMER-MAX" in r.critique.rules_checked


def test_a_summer_above_its_cap_is_a_summer_max_violation(hb_tools: Toolbox) -> None:
    r = round_one(SCENARIO, hb_tools)
    schedule = scheduling.place(r.intake, r.proposal, None, 1, hb_tools)
    terms = [t.model_copy(deep=True) for t in schedule.terms]
    summer = next(t for t in terms if t.term == "U2027")
    fall = next(t for t in terms if t.term == "T12027")
    moved = next(c for c in fall.courses if c.course != "CSCI 400")
    fall.courses.remove(moved)
    summer.courses.append(moved)
    fall.units, summer.units = fall.units - moved.units, summer.units + moved.units
    got = critique.review(r.intake, schedule.model_copy(update={"terms": terms}), hb_tools)
    assert [(v.rule_id, v.term) for v in got.violations] == [("SUMMER-MAX", "U2027")]


# --------------------------------------------------------------------------- end to end


@pytest.fixture(scope="module")
def summer_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[ScenarioRun, Toolbox]:
    scenario = next(s for s in load_scenarios(SCENARIOS) if s.id == SCENARIO)
    factory = ToolboxFactory(catalog_path=REPO / "demos" / "harrow-bay")
    runner = SuiteRunner(tmp_path_factory.mktemp("hb-summer"), factory=factory)
    run = runner.run(scenario)
    return run, runner.tools()


def test_the_harrow_bay_summer_request_is_approved_for_its_target(
    summer_run: tuple[ScenarioRun, Toolbox],
) -> None:
    run, tools = summer_run
    assert run.error is None
    with use_catalog(tools.catalog):
        result = evaluate(run, tools)
    assert (result.outcome, result.graduation) == ("approved", "T12027")
    assert (result.outcome_ok, result.graduation_ok) == (True, True)
    assert (result.violations_found, result.risks_found, result.defects) == ([], [], [])


def test_the_report_and_letter_show_the_summer_like_any_term(
    summer_run: tuple[ScenarioRun, Toolbox],
) -> None:
    run, _ = summer_run
    md = run.outputs["md"]
    headings = [line for line in md.splitlines() if line.startswith("### ") and "credits" in line]
    assert headings == [
        "### Winter Trimester 2027 (4 credits)",
        "### Spring Trimester 2027 (4 credits)",
        "### Summer 2027 (1.5 credits)",
        "### Fall Trimester 2027 (4 credits)",
    ]
    assert run.ctx is not None and run.ctx.recommendation is not None
    assert "- Summer 2027 (1.5 credits): " in run.ctx.recommendation.letter
    assert "Summer 2027" in run.outputs["html"]

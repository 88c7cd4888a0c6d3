"""The stage contract and what it promises: requirements solves round 1 once and scheduling
places that plan, constraint sets and load caps defined once, the run configuration made
from the settings, and audits answered once per question."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents import requirements, scheduling
from agents.artifacts import ConstraintSet, IntakeResult, PlanRequest
from agents.audit import audit
from agents.case import Case
from agents.catalog import Catalog, load_catalog
from agents.intake import read_request
from agents.planner import PlanConstraints, plan
from agents.planning import initial_constraints
from agents.policy import catalog_load_caps
from agents.toolbox import Settings, Toolbox
from pipeline.context import RunConfig

ROOT = Path(__file__).resolve().parents[1]
CATALOG = load_catalog()


def request(request_id: str) -> PlanRequest:
    for line in (ROOT / "demos" / "requests.jsonl").read_text("utf-8").splitlines():
        if json.loads(line)["request_id"] == request_id:
            return PlanRequest.model_validate_json(line)
    raise LookupError(request_id)


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> Toolbox:
    return Toolbox(catalog=CATALOG, index_dir=tmp_path_factory.mktemp("index"))


@pytest.fixture(scope="module")
def low_gpa(tools: Toolbox) -> IntakeResult:
    return read_request(request("overload-low-gpa"), tools)


def test_round_one_places_the_proposed_plan_without_solving_again(
    low_gpa: IntakeResult, tools: Toolbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    proposal = requirements.propose(low_gpa, tools)
    assert proposal.plan is not None and proposal.constraints is not None
    assert proposal.constraints == initial_constraints(low_gpa, tools)

    def no_solve(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("round 1 must place the proposal's plan, not solve again")

    monkeypatch.setattr(scheduling, "plan", no_solve)
    case = Case(request=request("overload-low-gpa"), intake=low_gpa, proposal=proposal)
    placed = scheduling.run(case, tools)
    assert [[c.course for c in t.courses] for t in placed.terms] == [
        t.courses for t in proposal.plan.terms
    ]
    assert (placed.graduation_term, placed.solver_status) == (
        proposal.plan.graduation_term,
        proposal.plan.status,
    )
    assert [p.course for p in proposal.proposed_courses] == [
        c for t in proposal.plan.terms for c in t.courses
    ]


def test_a_changed_constraint_set_is_solved_again(low_gpa: IntakeResult, tools: Toolbox) -> None:
    proposal = requirements.propose(low_gpa, tools)
    assert proposal.constraints is not None
    # What refinement does for this student: the standard cap, and the target dropped.
    capped = proposal.constraints.model_copy(
        update={"max_units_per_term": 54.0, "target_term": None}
    )
    again = scheduling.place(low_gpa, proposal, capped, 2, tools)
    assert proposal.plan is not None and again.constraints == capped
    assert again.solver_status == "optimal"
    assert max(t.units for t in again.terms) <= 54 < max(t.units for t in proposal.plan.terms)


def test_zero_cap_plans_nothing_and_says_why(low_gpa: IntakeResult, tools: Toolbox) -> None:
    closed = Toolbox(catalog=_no_load_rules(CATALOG, cap=0.0), index_dir=tools.index_dir)
    proposal = requirements.propose(low_gpa, closed)
    assert (proposal.plan, proposal.proposed_courses) == (None, [])
    assert proposal.assumptions[-1] == "Every term is capped at 0 units, so nothing is planned."


def _no_load_rules(catalog: Catalog, cap: float | None = None) -> Catalog:
    """The catalog without its load rules, or with every per-term cap set to ``cap``."""
    policies = []
    for rule in catalog.policies:
        if rule.kind not in ("max_units_per_term", "overload", "probation_max_units"):
            policies.append(rule)
        elif cap is not None:
            policies.append(rule.model_copy(update={"limit": cap}))
    return catalog.model_copy(update={"policies": policies})


def test_load_caps_come_from_the_catalog_rules() -> None:
    caps = catalog_load_caps(CATALOG)
    standard = [
        r.limit
        for r in CATALOG.policies
        if r.kind == "max_units_per_term" and r.limit and not r.applies_when.status_in
    ]
    overloads = [r.limit for r in CATALOG.policies if r.kind == "overload" and r.limit]
    assert (caps.standard, caps.ceiling) == (min(standard), max(overloads))
    unbounded = catalog_load_caps(_no_load_rules(CATALOG))
    total = sum(c.units for c in CATALOG.courses)
    assert (unbounded.standard, unbounded.ceiling) == (total, total)


def test_plan_constraints_extend_the_constraint_set() -> None:
    assert set(ConstraintSet.model_fields) < set(PlanConstraints.model_fields)
    cs = ConstraintSet(max_units_per_term=45, target_term="S2029", avoid=["15-150"])
    pc = PlanConstraints.from_constraint_set(cs, horizon_terms=6, time_limit_s=2.0)
    assert pc.model_dump(include=set(ConstraintSet.model_fields)) == cs.model_dump()
    assert (pc.horizon_terms, pc.time_limit_s) == (6, 2.0)
    with pytest.raises(ValueError, match="greater than 0"):
        PlanConstraints.from_constraint_set(cs.model_copy(update={"max_units_per_term": 0}))


def test_horizon_terms_bound_the_plan(low_gpa: IntakeResult) -> None:
    assert low_gpa.student is not None
    programs = list(low_gpa.target_programs)
    wide = plan(CATALOG, low_gpa.student, programs, PlanConstraints(max_units_per_term=54))
    assert wide.status == "optimal"
    used = len([t for t in wide.terms if t.courses])
    short = PlanConstraints(max_units_per_term=54, horizon_terms=used - 1)
    assert plan(CATALOG, low_gpa.student, programs, short).status == "infeasible"


def test_run_configuration_is_the_settings_plus_backend_and_stages() -> None:
    config = RunConfig.of(Settings(), backend="offline", model="rules", stages="real")
    assert config.settings == Settings()
    assert config.model_dump() == {
        "max_rounds": 3,
        "planner_time_limit_s": 60.0,
        "horizon_terms": None,
        "backend": "offline",
        "model": "rules",
        "stages": "real",
    }
    # Pinned: a changed fingerprint makes every earlier checkpoint stale. It last changed
    # when the planner's wall-clock limit became a safety net of 60 s (#26: every solve got
    # a deterministic budget, so earlier plans are planned again).
    assert config.fingerprint() == (
        "d12086adc9157259b6b49ff6c7a34dcf80da218387e2692bbe1090539e49f15e"
    )


def test_the_same_audit_question_is_answered_once(low_gpa: IntakeResult) -> None:
    student = low_gpa.student
    assert student is not None
    first = audit(CATALOG, student, ["CS-BS"], planned={"15-122": "S2027"})
    assert audit(CATALOG, student, ["CS-BS"], planned={"15-122": "S2027"}) is first
    other = audit(CATALOG, student, ["CS-BS"])
    assert other is not first and other != first


def test_a_copy_with_other_fields_does_not_answer_from_the_originals_caches(
    low_gpa: IntakeResult,
) -> None:
    student = low_gpa.student
    assert student is not None and student.attempts_of("15-110")
    fewer = student.model_copy(update={"courses": []})
    assert fewer.attempts_of("15-110") == []
    audit(CATALOG, student, ["CS-BS"])  # fills the catalog's memo
    assert CATALOG.course_by_code and CATALOG.derived
    smaller = CATALOG.model_copy(update={"courses": CATALOG.courses[:5]})
    assert len(smaller.course_by_code) == 5
    assert smaller.derived == {}

"""Issue #17, item 2: no part of the engine assumes a unit size. Multiplying every unit of a
catalog and a student's record by one factor - courses, program totals and course-set
minimums and caps, standing thresholds, units conditions, the unit limits of the policy
rules, attempt unit overrides, request caps - changes every unit in the answers by that
factor and no decision: the planner's status, graduation, course set and placement, the
audit's statuses, and a pipeline run's outcome, violations and graduation.

``scale_units`` scales a catalog, record, request or constraint set as raw JSON; factors
that would leave a credit with more than two decimal places are not drawn for a catalog
(1/9 of a 0.25-credit course is no credit value).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.audit import audit
from agents.catalog import Catalog, StudentRecord, parse_catalog, use_catalog
from agents.catalog.credits import credit_step, credit_sub, grade_average
from agents.planner import PlanConstraints, plan
from agents.planner.cpsat import Steps, catalog_steps
from agents.policy import catalog_load_caps
from eval.suite import SCENARIO_DIR, Scenario, SuiteRunner
from pipeline.runner import ToolboxFactory
from tests.unit_scaling_helpers import (
    AUDIT_PROSE,
    PLAN_PROSE,
    assert_scaled,
    factors_for,
    raw_catalog,
    raw_sample,
    raw_student,
    scale_units,
    scaled_catalog,
)

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

STUDENTS = {
    "sample": ["cs-first-year-ap", "econ-junior", "is-sophomore", "probation-student",
               "math-major", "overload-high-gpa", "part-time-risk", "repeat-student"],
    "harrow": ["hb-first-year", "hb-transfer", "hb-soph-probation", "hb-junior-overload",
               "hb-senior-fractional", "hb-summer", "hb-double-major", "hb-repeat"],
    "small": ["new", "second", "probation"],
}  # fmt: skip


def scaled_student(name: str, student: str, factor: float) -> StudentRecord:
    raw = raw_student(name, student)
    return StudentRecord.model_validate(raw if factor == 1 else scale_units(raw, factor))


def draw_case(data: st.DataObject, name: str) -> tuple[str, float]:
    """A student of catalog ``name`` and a factor that keeps both in credit values."""
    student = data.draw(st.sampled_from(STUDENTS[name]), label="student")
    allowed = factors_for(raw_catalog(name), raw_student(name, student))
    return student, data.draw(st.sampled_from([f for f in allowed if f != 1]), label="factor")


def constraints(catalog: Catalog, name: str) -> dict[str, Any]:
    """The rules' standard caps (by standing, as round 1 plans them) as raw constraints."""
    caps = catalog_load_caps(catalog)
    out: dict[str, Any] = {"max_units_per_term": caps.standard}
    out["standing_max_units"] = {
        s: catalog_load_caps(catalog, s).standard
        for s in ("first_year", "sophomore", "junior", "senior")
        if catalog_load_caps(catalog, s).standard < caps.standard
    }
    if name == "small":  # its full-time minimum, as a floor of every term
        out["min_units_per_term"] = catalog.rule_by_id["LOAD-MIN"].limit
    return out


@cache
def planned(name: str, student: str, factor: float) -> dict[str, Any]:
    """The plan of ``student`` (all units times ``factor``), as JSON."""
    catalog = scaled_catalog(name, factor)
    base = constraints(scaled_catalog(name, 1), name)
    raw = base if factor == 1 else scale_units(base, factor)
    # The policy rules give the scaled caps: the rules' units scale too.
    assert raw == constraints(catalog, name)
    record = scaled_student(name, student, factor)
    with use_catalog(catalog):
        result = plan(catalog, record, record.programs, PlanConstraints.model_validate(raw))
    return result.model_dump(mode="json")


def check_plan(name: str, student: str, factor: float) -> None:
    assert_scaled(
        planned(name, student, 1), planned(name, student, factor), factor, PLAN_PROSE, "plan"
    )


def check_audit(name: str, student: str, factor: float) -> None:
    reports = {}
    for f in (1, factor):
        catalog = scaled_catalog(name, f)
        with use_catalog(catalog):
            reports[f] = audit(catalog, scaled_student(name, student, f)).model_dump(mode="json")
    assert_scaled(reports[1], reports[factor], factor, AUDIT_PROSE, "audit")


SLOW = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SLOW
@given(data=st.data())
def test_unit_scaling_sample_catalog_plans_and_audits_alike(data: st.DataObject) -> None:
    student, factor = draw_case(data, "sample")
    check_plan("sample", student, factor)
    check_audit("sample", student, factor)


@SLOW
@given(data=st.data())
def test_unit_scaling_one_credit_catalog_plans_and_audits_alike(data: st.DataObject) -> None:
    student, factor = draw_case(data, "harrow")
    check_plan("harrow", student, factor)
    check_audit("harrow", student, factor)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_unit_scaling_small_catalog_plans_and_audits_alike(data: st.DataObject) -> None:
    student, factor = draw_case(data, "small")
    check_plan("small", student, factor)
    check_audit("small", student, factor)


def test_unit_scaling_draws_one_credit_factors() -> None:
    # 1/9 turns the small catalog's 9, 4.5 and 2.25 units into 1, 0.5 and 0.25 credits
    # (a quarter of 2.25 has four places); Harrow Bay's quarter credits cannot be ninths.
    assert factors_for(raw_catalog("small")) == [1 / 9, 0.2, 2.0, 3.0, 9.0, 10.0]
    assert 1 / 9 not in factors_for(raw_catalog("harrow"))
    one = scaled_catalog("small", 1 / 9)
    assert sorted({c.units for c in one.courses}) == [0.25, 0.5, 1.0]
    assert (one.standing_thresholds.sophomore, one.rule_by_id["LOAD-MAX"].limit) == (2.0, 3.5)
    assert str(one.course("CORE 301").prerequisites) != ""
    assert planned("small", "second", 1)["status"] == "optimal"


# --------------------------------------------------------------------------- the parts


def test_unit_scaling_credit_steps_come_from_the_catalog() -> None:
    assert (credit_step([9, 12, 10, 3]), credit_step([1.0, 0.5, 0.25]), credit_step([])) == (
        100,
        25,
        100,
    )
    quarter = Steps(25)  # 1, 0.5 and 0.25 credits count 4, 2 and 1
    assert [quarter.count(1.0), quarter.floor(3.5), quarter.ceil(3.6), quarter.ceil(-0.3)] == [
        4,
        14,
        15,
        -1,
    ]
    assert quarter.ceil(credit_sub(36, 35.75)) == 1  # exact: not 1.0000000000000142 steps
    assert (
        catalog_steps(scaled_catalog("small", 1)),
        catalog_steps(scaled_catalog("small", 2)),
    ) == (
        Steps(225),
        Steps(450),
    )


def test_unit_scaling_gpa_is_exact_whatever_the_unit_size() -> None:
    # 3.67 and 3.2 average 3.435: a float average read 3.4349999 with 1-unit courses and
    # 3.4350001 with 9-unit ones, so the same grades gave 3.43 or 3.44 by the unit size.
    assert grade_average([(3.67, 1), (3.2, 1)]) == grade_average([(3.67, 9), (3.2, 9)]) == 3.44
    assert grade_average([(4.0, 0.25), (2.0, 0.75)]) == 2.5
    assert grade_average([]) is None


def test_unit_scaling_standing_thresholds_default_to_ten_typical_courses_a_year() -> None:
    raw = {k: v for k, v in raw_catalog("small").items() if k != "standing_thresholds"}
    for factor, thresholds in ((1, (90, 180, 270)), (1 / 9, (10, 20, 30))):
        t = parse_catalog(scale_units(raw, factor)).standing_thresholds
        assert (t.sophomore, t.junior, t.senior) == thresholds
    assert parse_catalog(raw_sample()).standing_thresholds.junior == 180  # 9-unit courses


# --------------------------------------------------------------------------- the pipeline

PIPELINE = [  # (scenario, factor): overload by recent GPA, probation cap, a GPA of exactly 3
    ("harrow-bay/hb-overload-recent-gpa", 2.0),
    ("harrow-bay/hb-probation-from-gpa", 0.2),
    ("accel-gpa-exactly-3", 0.25),
]


def run_decisions(scenario: Scenario, factor: float, work: Path) -> dict[str, Any]:
    """Run ``scenario`` with every unit of its catalog and request times ``factor``: what
    the run decided (units left out, except the final plan's, divided back)."""
    name = "harrow" if scenario.catalog else "sample"
    path = work / f"catalog-x{factor:g}.json"
    raw = raw_catalog(name)
    path.write_text(json.dumps(raw if factor == 1 else scale_units(raw, factor)), "utf-8")
    request = scenario.request if factor == 1 else scale_units(scenario.request, factor)
    runner = SuiteRunner(work / f"x{factor:g}", factory=ToolboxFactory(catalog_path=path))
    ctx = runner.run(scenario.model_copy(update={"request": request})).ctx
    assert ctx is not None and ctx.schedules
    last = ctx.schedules[-1]  # the final plan (a run awaiting approval has no letter yet)
    return {
        "state": ctx.state.value,
        "outcome": ctx.outcome,
        "violations": sorted({v.rule_id for c in ctx.critiques for v in c.violations}),
        "risks": sorted({r.kind for c in ctx.critiques for r in c.risks}),
        "rounds": len(ctx.schedules),
        "graduation": last.graduation_term,
        "plan": [
            (t.term, [c.course for c in t.courses], round(t.units / factor, 2)) for t in last.terms
        ],
    }


@pytest.mark.parametrize(("scenario_id", "factor"), PIPELINE)
def test_unit_scaling_pipeline_decides_alike(
    scenario_id: str, factor: float, tmp_path: Path
) -> None:
    path = SCENARIO_DIR / f"{scenario_id}.json"
    scenario = Scenario.model_validate_json(path.read_text("utf-8"))
    base = run_decisions(scenario, 1, tmp_path)
    assert scenario.expect.outcome in (base["outcome"], base["state"])  # as labeled
    assert run_decisions(scenario, factor, tmp_path) == base

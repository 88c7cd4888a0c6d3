"""Loads as the student says them (#27 item 7). "Six courses next term" at a school whose
limit of five courses a dean may raise plans six and asks the dean, citing the limit;
"six courses (24 units) next quarter" keeps both, and where 24 units is above the cap the
plan asks for the overload instead of filling six slots with 1-3-unit courses under it. A
wish the plan cannot keep (a student not eligible, a denial) gives way to the rule, and a
risk names it.

Before: the text's units were not read at all ("six courses (24 units) next quarter" read
nothing); a course limit that names an approver was a plain limit (the critique capped the
term, never asking the dean); a unit maximum that names an approver was a hard limit, so a
count of courses was planned under it with the smallest courses there were."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from agents.artifacts import ConstraintSet, Modification, PlanRequest
from agents.catalog import Catalog, use_catalog
from agents.llm.textparse import parse_request_text
from agents.policy import load_limit
from agents.refinement import refine
from agents.toolbox import Settings
from pipeline.approvals import decide
from pipeline.context import WorkflowContext
from pipeline.runner import RequestOptions, ToolboxFactory, run_request
from pipeline.store import CheckpointStore
from tests.load_wish_helpers import counting_raw, quarter_raw, round_one, student

QUARTER = Catalog.model_validate(quarter_raw())
APPROVABLE = Catalog.model_validate(quarter_raw(overload=False))
COUNTING = Catalog.model_validate(counting_raw())


@pytest.mark.parametrize(
    ("text", "courses", "units", "cap"),
    [
        ("I want to take six courses (24 units) next quarter.", 6, 24.0, None),
        ("Six courses, 24 units, next quarter please", 6, 24.0, None),
        ("Next quarter I'd like six classes and 24 units.", 6, 24.0, None),
        ("I want 24 units next quarter", None, 24.0, None),
        ("Next quarter I plan to take 24 units.", None, 24.0, None),
        ("I want to take 5 courses next semester", 5, None, None),
        ("At most 24 units next quarter, I work.", None, None, 24.0),
    ],
)
def test_the_load_wanted_next_term_is_read_with_its_units(
    text: str, courses: int | None, units: float | None, cap: float | None
) -> None:
    with use_catalog(QUARTER):
        ext = parse_request_text(text, QUARTER, current_term="F2026")
    assert (ext.next_term_courses, ext.next_term_units, ext.max_units_per_term) == (
        courses,
        units,
        cap,
    )


def test_a_maximum_that_names_an_approver_is_its_own_overload() -> None:
    lim = load_limit(APPROVABLE, gpa=2.0, standing="sophomore", status="good")
    assert lim is not None and lim.overload_rule is not None
    assert (lim.standard, lim.allowed, lim.overload_rule.id) == (20, float("inf"), "UNIT-MAX")
    # A higher maximum that names no one is the most an approval may allow.
    raw = quarter_raw(overload=False)
    raw["policies"].append({**raw["policies"][0], "id": "UNIT-CEILING", "limit": 26})
    del raw["policies"][-1]["requires_approval"]
    lim = load_limit(Catalog.model_validate(raw), gpa=2.0, standing="sophomore", status="good")
    assert lim is not None and (lim.allowed, lim.binding_rule.id) == (26, "UNIT-CEILING")


def _approval(r: Any) -> list[tuple[str, str | None, str]]:
    return [(x.kind, x.rule_id, x.message) for x in r.critique.risks if x.kind != "sections"]


def test_six_courses_over_a_limit_the_dean_may_raise_asks_the_dean() -> None:
    with use_catalog(COUNTING):
        who = student(COUNTING)
    r = round_one(COUNTING, who, text="I want to take six courses next term.")
    assert r.term("S2027") == (6, 18.0)
    assert all(len(t.courses) <= 5 for t in r.schedule.terms if t.term != "S2027")
    assert r.critique.approval == "conditional"
    assert [(v.rule_id, v.severity, v.message) for v in r.critique.violations] == [
        (
            "COURSE-MAX",
            "soft",
            "Spring 2027 has 6 courses, above the limit of 5; more than 5 courses needs dean "
            "approval",
        )
    ]
    assert _approval(r) == [
        (
            "approval_needed",
            "COURSE-MAX",
            "Spring 2027 needs dean approval for 6 courses before registration",
        )
    ]
    assert [(m.action, m.rule_id, m.approver) for m in r.critique.suggestions] == [
        ("needs_approval", "COURSE-MAX", "dean")
    ]


@pytest.mark.parametrize(
    "fields",
    [
        {"text": "I want to take six courses (24 units) next quarter."},
        {"intent": "plan_next_term", "next_term_courses": 6, "next_term_units": 24},
    ],
)
def test_six_courses_and_24_units_ask_for_the_overload(fields: dict[str, Any]) -> None:
    with use_catalog(QUARTER):
        who = student(QUARTER)
    r = round_one(QUARTER, who, **fields)
    assert (r.intake.goals.next_term_courses, r.intake.goals.next_term_units) == (6, 24)
    assert r.term("W2027") == (6, 24.0)
    assert r.critique.approval == "conditional"
    assert _approval(r) == [
        (
            "approval_needed",
            "UNIT-OVERLOAD",
            "Winter 2027 needs dean approval for 24 units before registration",
        )
    ]


@pytest.mark.parametrize(
    "text", ["I want to take six courses next quarter.", "Six courses (24 units) next quarter."]
)
def test_a_unit_maximum_the_dean_may_raise_is_not_filled_with_small_courses(text: str) -> None:
    with use_catalog(APPROVABLE):
        who = student(APPROVABLE)
    r = round_one(APPROVABLE, who, text=text)
    assert r.term("W2027") == (6, 24.0)  # six 4-unit courses, not 20 units of six
    assert [(v.rule_id, v.severity, v.message) for v in r.critique.violations] == [
        (
            "UNIT-MAX",
            "soft",
            "Winter 2027 has 24 units, above the standard 20; more than 20 units needs dean "
            "approval",
        )
    ]
    assert [x[:2] for x in _approval(r)] == [("approval_needed", "UNIT-MAX")]


@pytest.mark.parametrize(
    "text", ["I want to take 8 units next quarter.", "I only want two courses next quarter."]
)
def test_a_lighter_load_wanted_is_kept_and_said_to_be_part_time(text: str) -> None:
    with use_catalog(QUARTER):
        who = student(QUARTER)
    r = round_one(QUARTER, who, text=text)
    assert r.term("W2027") == (2, 8.0)
    assert [(x.kind, x.rule_id) for x in r.critique.risks if x.kind == "load"] == [
        ("load", "UNIT-MIN")
    ]
    # No floor for the term the student wants light (the later ones keep full time).
    assert "W2027" not in {m.term for m in r.critique.suggestions}


def test_caps_take_down_the_units_wanted_and_a_course_cap_in_proportion() -> None:
    wish = ConstraintSet(
        max_units_per_term=20,
        term_max_units={"W2027": 24},
        term_min_units={"W2027": 24},
        term_min_courses={"W2027": 6},
        term_max_courses={"W2027": 6},
    )
    cap = Modification(action="cap_term_units", term="W2027", value=20, rule_id="R", reason="r")
    got = refine(wish, [cap], 1).constraints
    assert got is not None
    assert (got.term_min_units, got.term_min_courses) == ({"W2027": 20}, {})
    seats = Modification(action="cap_term_courses", term="W2027", value=5, rule_id="R", reason="r")
    got = refine(wish, [seats], 1).constraints
    assert got is not None
    assert (got.term_min_units, got.term_min_courses) == ({"W2027": 20}, {"W2027": 5})


def _run(
    tmp_path: Path, raw: dict[str, Any], grade: str, text: str, *, no_wait: bool = False
) -> tuple[WorkflowContext, CheckpointStore, ToolboxFactory]:
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    catalog = Catalog.model_validate(raw)
    with use_catalog(catalog):
        who = student(catalog, grade)
    store = CheckpointStore(tmp_path / "state")
    factory = ToolboxFactory(catalog_path=path, index_dir=tmp_path / "index")
    request = PlanRequest(request_id="loads", student=who, text=text)
    return _go(request, store, factory, no_wait=no_wait), store, factory


def _go(
    request: PlanRequest, store: CheckpointStore, factory: ToolboxFactory, *, no_wait: bool
) -> WorkflowContext:
    return run_request(
        request,
        RequestOptions(
            store=store, toolbox_factory=factory, settings=Settings(), out_dir=None, no_wait=no_wait
        ),
    )


def _risks(ctx: WorkflowContext) -> list[tuple[str | None, str]]:
    rec = ctx.recommendation
    assert rec is not None
    return [(x.rule_id, x.message) for x in rec.risks if x.kind == "load"]


def test_the_dean_decides_the_sixth_course(tmp_path: Path) -> None:
    text = "I want to take six courses next term."
    ctx, store, factory = _run(tmp_path, counting_raw(), "A", text)
    assert ctx.state == "awaiting_approval"
    assert [(a.rule_id, a.terms, a.approver) for a in ctx.approvals] == [
        ("COURSE-MAX", ["S2027"], "dean")
    ]
    decide(store, "loads", "COURSE-MAX", "approved", by="Dean Ames", reason="ok", on=date.today())
    done = _go(ctx.request, store, factory, no_wait=False)
    assert done.state == "done" and done.recommendation is not None
    first = done.recommendation.plan[0]
    assert (first.term, len(first.courses)) == ("S2027", 6)
    assert done.critiques[-1].approval == "approved"


def test_a_denied_sixth_course_keeps_five_and_names_the_rule(tmp_path: Path) -> None:
    ctx, _, _ = _run(tmp_path, counting_raw(), "A", "six courses next term", no_wait=True)
    assert ctx.state == "done" and ctx.recommendation is not None
    assert [len(t.courses) for t in ctx.recommendation.plan][:1] == [5]
    assert _risks(ctx) == [
        (
            "COURSE-MAX",
            "6 courses were wanted in Spring 2027 but the plan takes 5: Spring 2027 may have "
            "at most 5 courses",
        )
    ]


def test_units_a_student_may_not_carry_give_way_to_the_cap(tmp_path: Path) -> None:
    text = "I want to take six courses (24 units) next quarter."
    ctx, _, _ = _run(tmp_path, quarter_raw(), "C", text)
    assert ctx.state == "done" and ctx.recommendation is not None
    first = ctx.recommendation.plan[0]
    assert (first.term, len(first.courses), first.units) == ("W2027", 5, 20.0)
    assert _risks(ctx) == [
        (
            "UNIT-MAX",
            "6 courses were wanted in Winter 2027 but the plan takes 5: Winter 2027 may carry "
            "at most 20 units",
        ),
        (
            "UNIT-MAX",
            "24 units were wanted in Winter 2027 but the plan takes 20 units: Winter 2027 may "
            "carry at most 20 units",
        ),
    ]

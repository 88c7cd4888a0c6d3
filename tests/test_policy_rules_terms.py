"""Policy rules as data, per term: the GPA over the last N regular terms (a summer never
counts) deciding a rule, load and course-count rules limited to kinds of term (summer at
most so many units) beside the plain rules that keep covering regular terms, and those caps
reaching the planner's round-1 constraints and the verifier."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from agents.planner import PlanConstraints, StandardLoads
from agents.planning import initial_constraints
from agents.policy import catalog_load_caps, check_plan
from agents.toolbox import Toolbox
from agents.verifier import verify_plan
from tests.policy_data_helpers import catalog_with as cat_with
from tests.policy_data_helpers import check, found, plan_check, rule
from tests.policy_helpers import (
    CATALOG,
    PLAN_63,
    SOPHOMORE_COURSES,
    attempt,
    intake,
    record,
    schedule,
    term,
)

# F2025 all A (24 units), S2026 C and B (22 units), a summer F, F2026 in progress.
RECENT = [
    attempt("15-110", "F2025", "A"),
    attempt("21-127", "F2025", "A"),
    attempt("15-112", "S2026", "C"),
    attempt("21-122", "S2026", "B"),
    attempt("76-101", "U2026", "F"),
    attempt("15-122", "F2026"),
]
OVERLOAD = {"document": "academic-policies", "section": "overload"}
SUMMER_MAX = rule("SUMMER-MAX", "max_units_per_term", applies_when={"term_kinds": ["U"]}, limit=20)


def test_recent_gpa_covers_the_last_regular_terms_and_never_a_summer() -> None:
    rec = record(gpa=3.0, courses=RECENT)
    # S2026: (2.0*12 + 3.0*10) / 22; with the summer F counted it would be 0.00.
    assert rec.recent_gpa(CATALOG, 1) == 2.45
    # F2025 and S2026: (4.0*24 + 54) / 46; with the summer it would be 1.74.
    assert rec.recent_gpa(CATALOG, 2) == 3.26
    assert rec.recent_gpa(CATALOG, 5) == 3.26
    assert record(courses=RECENT[-1:]).recent_gpa(CATALOG, 2) is None


def _recent_overload(terms: int) -> dict[str, object]:
    return rule(
        "LOAD-OVERLOAD",
        "overload",
        applies_when={"gpa_min": 3.0, "recent_gpa_min": 3.0, "recent_terms": terms},
        limit=63,
        severity="soft",
        requires_approval="advisor",
        citation=OVERLOAD,
    )


@pytest.mark.slow
def test_a_recent_gpa_condition_decides_whether_a_rule_applies() -> None:
    rec = record(gpa=3.0, courses=RECENT)
    plan = schedule([PLAN_63[0]])  # 63 units
    one = check(cat_with(_recent_overload(1)), rec, plan, kinds=["max_units_per_term"])
    assert found(one) == [
        (
            "FIRST-YEAR-MAX",
            "hard",
            "S2027",
            "Spring 2027 has 63 units; with a GPA of 2.45 over the last regular term the "
            "limit is 54 units",
        )
    ]
    two = check(cat_with(_recent_overload(2)), rec, plan, kinds=["max_units_per_term"])
    assert [(v.rule_id, v.severity) for v in two.violations] == [("LOAD-OVERLOAD", "soft")]


def test_without_a_record_a_recent_gpa_condition_never_holds() -> None:
    rec = record(gpa=3.9, courses=RECENT)
    ctx = plan_check(cat_with(_recent_overload(2)), rec, schedule([PLAN_63[0]]), with_record=False)
    got = check_plan(ctx, kinds=["max_units_per_term"])
    assert [v.message for v in got.violations] == [
        "Spring 2027 has 63 units; without a GPA over the last 2 regular terms the limit is "
        "54 units"
    ]


# --------------------------------------------------------------------------- term kinds

SUMMER_27 = term("U2027", "15-213", "15-251", "80-130")  # 33 units
SUMMER_9 = term("U2027", "80-130")


def test_a_summer_cap_limits_summer_terms_only() -> None:
    cat = cat_with(SUMMER_MAX)
    plan = [term("S2027", "15-213", "15-251"), SUMMER_27, term("F2027", "15-210", "21-301")]
    f = check(cat, record(), schedule(plan, cap=54), kinds=["max_units_per_term"])
    assert found(f) == [
        (
            "SUMMER-MAX",
            "hard",
            "U2027",
            "Summer 2027 has 33 units; in a Summer term the limit is 20 units",
        )
    ]
    assert [(m.action, m.term, m.value, m.rule_id) for m in f.suggestions] == [
        ("cap_term_units", "U2027", 20, "SUMMER-MAX")
    ]
    assert f.checked == ["LOAD-MAX", "SUMMER-MAX"]


def test_a_summer_over_its_cap_does_not_set_the_general_cap() -> None:
    plan = [term("S2027", "15-213", "15-251"), SUMMER_27]
    f = check(cat_with(SUMMER_MAX), record(), schedule(plan, cap=63), ["max_units_per_term"])
    assert [(m.action, m.term, m.value, m.rule_id, m.reason) for m in f.suggestions] == [
        ("cap_all_terms_units", None, 54, "LOAD-MAX", "keep every term within the 54-unit limit"),
        ("cap_term_units", "U2027", 20, "SUMMER-MAX", "Summer 2027 may carry at most 20 units"),
    ]


def test_plain_caps_leave_a_summer_with_its_own_rule_alone() -> None:
    """LOAD-MAX covers regular terms; a summer is LOAD-MAX's only while no rule names it."""
    big_summer = term("U2027", "15-213", "15-251", "15-210", "80-130", "21-301", "36-225")
    plan = schedule([big_summer], cap=63)
    loose = rule("SUMMER-MAX", "max_units_per_term", applies_when={"term_kinds": ["U"]}, limit=63)
    assert big_summer.units > 54
    assert check(cat_with(loose), record(), plan, kinds=["max_units_per_term"]).violations == []
    old = check(CATALOG, record(), plan, kinds=["max_units_per_term"])
    assert [(v.rule_id, v.term) for v in old.violations] == [("LOAD-MAX", "U2027")]


def test_a_rule_for_a_regular_kind_adds_to_the_plain_rules() -> None:
    fall = rule("FALL-MAX", "max_units_per_term", applies_when={"term_kinds": ["F"]}, limit=45)
    plan = [PLAN_63[1], term("S2028", "15-451", "15-440", "15-418", "15-322")]  # 54, 48
    f = check(cat_with(fall), record(), schedule(plan, cap=54), kinds=["max_units_per_term"])
    assert found(f) == [
        (
            "FALL-MAX",
            "hard",
            "F2027",
            "Fall 2027 has 54 units; in a Fall term the limit is 45 units",
        )
    ]


def test_a_table_row_can_give_a_kind_of_term_its_own_limit() -> None:
    rows = rule(
        "LOAD-MAX",
        "max_units_per_term",
        limit=54,
        limit_table=[{"when": {"term_kinds": ["U"]}, "limit": 20}],
    )
    plan = schedule([term("S2027", "15-213", "15-251"), SUMMER_27], cap=54)
    f = check(cat_with(rows), record(), plan, kinds=["max_units_per_term"])
    assert found(f) == [
        (
            "LOAD-MAX",
            "hard",
            "U2027",
            "Summer 2027 has 33 units; in a Summer term the limit is 20 units",
        )
    ]


@pytest.mark.slow
def test_the_full_time_minimum_covers_regular_terms_unless_a_rule_names_summer() -> None:
    plan = [PLAN_63[0], SUMMER_9, PLAN_63[1], PLAN_63[2]]
    f = check(CATALOG, record(), schedule(plan), kinds=["min_units_per_term"])
    assert f.violations == []
    summer_min = rule(
        "SUMMER-MIN", "min_units_per_term", applies_when={"term_kinds": ["U"]}, limit=18
    )
    f = check(cat_with(summer_min), record(), schedule(plan), kinds=["min_units_per_term"])
    assert found(f) == [
        (
            "SUMMER-MIN",
            "hard",
            "U2027",
            "Summer 2027 has 9 units, below the 18 needed for full-time status",
        )
    ]


def test_a_course_count_limit_by_class_year_and_term_kind() -> None:
    per_year = rule(
        "MAX-COURSES",
        "max_courses_per_term",
        limit=6,
        limit_table=[{"when": {"standing_in": ["sophomore"]}, "limit": 5}],
    )
    summer = rule(
        "SUMMER-COURSES", "max_courses_per_term", applies_when={"term_kinds": ["U"]}, limit=2
    )
    plan = schedule([PLAN_63[0], SUMMER_27])
    f = check(cat_with(per_year, summer), record(), plan, kinds=["max_courses_per_term"])
    assert found(f) == [
        (
            "MAX-COURSES",
            "hard",
            "S2027",
            "Spring 2027 has 6 courses; the limit is 5 (as a sophomore)",
        ),
        ("SUMMER-COURSES", "hard", "U2027", "Summer 2027 has 3 courses; the limit is 2"),
    ]
    # The summer rule's fix stays in the summer it found over the limit (#27): never a cap
    # of 2 courses on every term.
    assert [(m.action, m.term, m.value) for m in f.suggestions] == [
        ("cap_courses_per_term", None, 5),
        ("cap_term_courses", "U2027", 2),
    ]


# --------------------------------------------------------------------------- the planner


@pytest.fixture(scope="module")
def summer_tools(tmp_path_factory: pytest.TempPathFactory) -> Toolbox:
    by_year = rule(
        "LOAD-MAX",
        "max_units_per_term",
        limit=54,
        limit_table=[{"when": {"standing_in": ["first_year"]}, "limit": 45}],
    )
    return Toolbox(
        catalog=cat_with(by_year, SUMMER_MAX),
        index_dir=Path(tmp_path_factory.mktemp("index")),
    )


def test_round_one_constraints_carry_table_and_term_kind_caps(summer_tools: Toolbox) -> None:
    caps = catalog_load_caps(summer_tools.catalog)
    assert (caps.standard, caps.ceiling, caps.by_kind) == (45, 63, {"U": (20, 20)})
    assert catalog_load_caps(summer_tools.catalog, "sophomore").standard == 54
    first_year = record(courses=SOPHOMORE_COURSES[:3])
    cs = initial_constraints(intake(first_year), summer_tools)
    # The first-year cap holds in the terms the student starts as a first-year, not beyond.
    assert (cs.max_units_per_term, cs.standing_max_units) == (54, {"first_year": 45})
    assert cs.term_max_units == {f"U{y}": 20 for y in range(2027, 2033)}
    assert initial_constraints(intake(record()), summer_tools).max_units_per_term == 54
    target = initial_constraints(intake(first_year, target="S2029"), summer_tools)
    assert (target.max_units_per_term, target.term_max_units["U2027"]) == (63, 20)
    # First-years may not overload; the standard loads go with the overload ceiling.
    assert target.standing_max_units == {"first_year": 45}
    assert target.standard == StandardLoads(
        max_units_per_term=54, standing_max_units={"first_year": 45}
    )


def test_the_sample_catalog_adds_no_term_caps(tmp_path: Path) -> None:
    cs = initial_constraints(intake(record()), Toolbox(catalog=CATALOG, index_dir=tmp_path))
    assert (cs.max_units_per_term, cs.term_max_units) == (54, {})


@dataclass
class _Term:
    term: str
    courses: list[str]
    units: float


@dataclass
class _Plan:
    terms: list[_Term] = field(default_factory=list)
    graduation_term: str | None = None


def test_the_verifier_holds_a_summer_to_its_kind_cap(summer_tools: Toolbox) -> None:
    rec = record()
    cs = initial_constraints(intake(rec), summer_tools)
    pc = PlanConstraints.from_constraint_set(cs, include_summer=True)
    codes = [sc.course for sc in SUMMER_27.courses]
    plan = _Plan([_Term("U2027", codes, SUMMER_27.units)], "U2027")
    defects = verify_plan(summer_tools.catalog, rec, ["CS-BS"], pc, plan)
    assert [d.message for d in defects if d.kind == "units_max"] == [
        "33 units in U2027 exceed the cap of 20"
    ]

"""A rule scoped to a kind of term stays scoped (#27 item 2): a course limit for the summer
session (``term_kinds: [U]``) binds from round 1 in the summer terms only, the planner
keeps a per-term course cap, the critique's fix for it names the term (never "at most 1
course per term" everywhere), and refinement keeps it in that term."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agents.artifacts import Modification
from agents.catalog import Catalog, PolicyRule, load_catalog, load_student, use_catalog
from agents.intake import read_request
from agents.planner import PlanConstraints, plan
from agents.planning import initial_constraints, to_plan_constraints
from agents.policy import kind_course_caps
from agents.refinement import _apply
from agents.toolbox import Toolbox
from tests.harrow_helpers import HARROW_BAY, hb_request

pytestmark = pytest.mark.slow  # a Harrow Bay toolbox and four plans: about 30 s

SCENARIO = "hb-summer-to-graduate-early"  # "I can take courses in Summer 2027 ..."
ONE_SUMMER_COURSE = PolicyRule.model_validate(
    {
        "id": "SUMMER-ONE",
        "title": "One course in a summer session",
        "kind": "max_courses_per_term",
        "applies_when": {"term_kinds": ["U"]},
        "limit": 1,
        "citation": {"document": "academic-policies", "section": "summer-session"},
    }
)


def with_rule(catalog: Catalog, rule: PolicyRule) -> Catalog:
    return catalog.model_copy(update={"policies": [*catalog.policies, rule]})


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Toolbox]:
    cat = with_rule(HARROW_BAY, ONE_SUMMER_COURSE)
    with use_catalog(cat):
        yield Toolbox(catalog=cat, index_dir=tmp_path_factory.mktemp("hb-index"))


def test_the_kind_course_limit_is_read_for_its_kind_only() -> None:
    caps = kind_course_caps(with_rule(HARROW_BAY, ONE_SUMMER_COURSE), ["sophomore", "junior"])
    assert caps == {"U": 1.0}
    assert kind_course_caps(HARROW_BAY, ["sophomore"]) == {}


def test_a_limit_for_some_standings_only_is_not_a_round_one_cap() -> None:
    seniors = ONE_SUMMER_COURSE.model_copy(
        update={
            "applies_when": ONE_SUMMER_COURSE.applies_when.model_copy(
                update={"standing_in": ["senior"]}
            )
        }
    )
    # A junior becomes a senior: in some terms ahead the rule does not hold at all.
    assert kind_course_caps(with_rule(HARROW_BAY, seniors), ["junior", "senior"]) == {}


def test_round_one_caps_the_summer_courses_and_the_plan_keeps_it(tools: Toolbox) -> None:
    intake = read_request(hb_request(SCENARIO), tools)
    cs = initial_constraints(intake, tools)
    assert cs.term_max_courses and set(cs.term_max_courses.values()) == {1}
    assert all(t.startswith("U") for t in cs.term_max_courses)
    assert cs.max_courses_per_term is None  # never a cap on every term
    pc = to_plan_constraints(cs, intake, tools)
    student = hb_request(SCENARIO).student
    result = plan(tools.catalog, student, student.programs, pc)
    assert result.status in ("optimal", "feasible")
    summer = [t for t in result.terms if t.term.startswith("U")]
    assert all(len(t.courses) <= 1 for t in summer)


def test_the_planner_holds_a_per_term_course_cap() -> None:
    cat = load_catalog()
    student = load_student("demos/students/cs-sophomore.json")
    with use_catalog(cat):
        free = plan(cat, student, student.programs, PlanConstraints(max_units_per_term=54))
        first = next(t for t in free.terms if t.courses)
        assert len(first.courses) > 2
        capped = plan(
            cat,
            student,
            student.programs,
            PlanConstraints(max_units_per_term=54, term_max_courses={first.term: 2}),
        )
    held = next(t for t in capped.terms if t.term == first.term)
    assert len(held.courses) <= 2
    assert any(len(t.courses) > 2 for t in capped.terms if t.term != first.term)
    # Two courses hold at most two of the largest course's units: the term bound counts
    # that, so the later graduation is proved at once (before, the full model searched
    # seconds for a graduation the capped term cannot give, and gave up unproved).
    assert capped.status == "optimal"
    assert cat.calendar.parse(capped.graduation_term) > cat.calendar.parse(free.graduation_term)


def test_refinement_keeps_a_term_course_cap_in_its_term() -> None:
    data = PlanConstraints(max_units_per_term=4, term_min_courses={"U2027": 3}).model_dump()
    mod = Modification(
        action="cap_term_courses", term="U2027", value=1, rule_id="SUMMER-ONE", reason="..."
    )
    change = _apply(data, mod)
    assert change == {"term_max_courses": {"U2027": 1}, "term_min_courses": {"U2027": 1}}
    assert "max_courses_per_term" not in change

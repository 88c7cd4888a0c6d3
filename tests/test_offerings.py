"""When a course runs (issue 17, item 4): its offering pattern, the published schedules of
classes and its status, one catalog answer (``agents.catalog.offered_in``) that the planner,
the verifier, the intake and the critique share; possibly discontinued courses are planned
only where nothing else serves, and then with a risk that says when they last ran."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents import critique
from agents.artifacts import NextTermSections, Risk
from agents.catalog import Term, not_offered, offered_in, reference_problems, use_catalog
from agents.catalog.authoring import LayoutError, build_catalog, export_catalog
from agents.planner import PlanConstraints, PlannedTerm, PlanResult, alternatives, plan
from agents.toolbox import Toolbox
from agents.verifier import Defect, verify_plan
from tests.offering_helpers import published_catalog, round_one, section
from tests.planner_helpers import FS, required
from tests.planner_strategies import course, program, student
from tests.policy_helpers import intake, record, schedule, term, tools

__all__ = ["tools"]  # the session fixture, imported so pytest finds it here

# 10-101 runs fall and spring by its pattern, but the published Spring 2027 schedule has no
# section of it (F2027 lists a section early; F2027 is not published).
CHAIN = published_catalog(
    [
        course("10-101", 9, FS, sections=[section("F2027")]),
        course("10-201", 9, FS, "10-101", sections=[section("S2027")]),
        course("10-301", 9, FS) | {"status": "retired"},
    ],
    [program("MAJ", required("10-101", "10-201"))],
    ["S2027"],
)


def _at(code: str, term: str) -> tuple[bool, str | None]:
    course, when = CHAIN.course(code), Term.parse(term)
    return offered_in(CHAIN, course, when), not_offered(CHAIN, course, when)


def test_a_published_term_runs_only_the_courses_with_a_section() -> None:
    assert _at("10-101", "S2027") == (
        False,
        "10-101 is not offered in S2027: the published Spring 2027 schedule has no section of it",
    )
    assert _at("10-201", "S2027") == (True, None)
    # F2027 is not published: its early section decides nothing, the pattern does.
    assert _at("10-201", "F2027") == (True, None)
    assert _at("10-101", "U2027") == (
        False,
        "10-101 is not offered in U2027 (offered: fall, spring, every year)",
    )
    assert _at("10-301", "F2027") == (False, "10-301 is retired: it no longer runs")


def test_the_planner_places_a_course_only_where_the_published_schedule_has_it() -> None:
    """It used to plan 10-101 in S2027 by its pattern (graduating F2027) and leave the
    critique to say "no sections yet"."""
    with use_catalog(CHAIN):
        result = plan(CHAIN, student(["MAJ"]), ["MAJ"], PlanConstraints(max_units_per_term=18))
    assert [(t.term, t.courses) for t in result.terms] == [
        ("S2027", []),
        ("F2027", ["10-101"]),
        ("S2028", ["10-201"]),
    ]
    assert (result.status, result.graduation_term) == ("optimal", "S2028")


def test_the_verifier_reports_a_course_missing_from_a_published_schedule() -> None:
    placed = PlanResult(
        status="feasible",
        terms=[
            PlannedTerm(term="S2027", courses=["10-101"], units=9.0),
            PlannedTerm(term="F2027", courses=["10-201"], units=9.0),
        ],
        graduation_term="F2027",
        units_planned=18.0,
        extra_units=0.0,
        reasons=[],
        earliest_feasible_term=None,
        requirement_of={},
        solve_ms=0.0,
    )
    with use_catalog(CHAIN):
        found = verify_plan(
            CHAIN, student(["MAJ"]), ["MAJ"], PlanConstraints(max_units_per_term=18), placed
        )
    assert found == [
        Defect(
            kind="offering",
            term="S2027",
            course="10-101",
            message="10-101 is not offered in S2027: the published Spring 2027 schedule has "
            "no section of it",
        )
    ]


def test_a_pin_to_a_published_term_without_a_section_is_asked_about(tmp_path: Path) -> None:
    r = round_one(CHAIN, tmp_path, ["MAJ"], pin_courses={"10-101": "S2027"})
    assert [q.question for q in r.intake.open_questions] == [
        "10-101 is not offered in Spring 2027 (the published Spring 2027 schedule has no "
        "section of it); pin it to a term it runs in, or force it if the department has "
        "agreed to run it then"
    ]
    assert r.terms == [("S2027", []), ("F2027", ["10-101"]), ("S2028", ["10-201"])]


def test_a_retired_required_course_makes_the_plan_infeasible_and_says_why() -> None:
    cat = published_catalog(
        [course("10-301", 9, FS) | {"status": "retired"}, course("10-102", 9, FS)],
        [program("MAJ", required("10-301", "10-102"))],
        [],
    )
    with use_catalog(cat):
        result = plan(cat, student(["MAJ"]), ["MAJ"], PlanConstraints(max_units_per_term=18))
    assert result.status == "infeasible"
    assert "10-301 is retired (no longer offered); it has no offering in the next terms" in (
        result.reasons
    )


def test_a_next_term_course_without_a_section_in_a_published_term_is_named(
    tools: Toolbox,
) -> None:
    """Only a forced course can be planned there; the risk no longer says "not yet"."""
    nt = NextTermSections(term="S2027", status="no_sections", unscheduled=["15-213"])
    planned = schedule([term("S2027", "15-213")], next_term=nt)
    risks = critique.review(intake(record()), planned, tools).risks
    assert [k.message for k in risks if k.kind == "sections"] == [
        "the published Spring 2027 schedule has no section of 15-213"
    ]


# --------------------------------------------------------------------------- dormant courses

PICK = {"kind": "course_set", "id": "pick", "courses": ["10-201", "10-202"], "min_courses": 1}
DORMANT = published_catalog(
    [
        course("10-201", 9, FS) | {"status": "dormant", "last_offered": "F2019"},
        course("10-202", 12, FS),
        course("10-301", 9, FS) | {"status": "dormant", "last_offered": "S2020"},
    ],
    [program("MAJ", {"kind": "all_of", "id": "root", "children": [PICK, required("10-301")]})],
    [],
)


def test_a_course_set_prefers_an_active_course_even_at_more_units() -> None:
    with use_catalog(DORMANT):
        result = plan(DORMANT, student(["MAJ"]), ["MAJ"], PlanConstraints(max_units_per_term=27))
    assert [(t.term, t.courses) for t in result.terms] == [("S2027", ["10-202", "10-301"])]
    assert result.status == "optimal"


def test_an_alternative_with_a_dormant_option_is_next_best_though_it_saves_units() -> None:
    me, c = student(["MAJ"]), PlanConstraints(max_units_per_term=27)
    with use_catalog(DORMANT):
        found = alternatives(DORMANT, me, ["MAJ"], c, plan(DORMANT, me, ["MAJ"], c), 1)
    assert [(a.kind, a.label) for a in found] == [
        ("next_best", "Next best: 1 more course that may be discontinued, 3 units fewer")
    ]


def test_a_required_dormant_course_is_planned_with_one_risk_naming_its_last_run(
    tmp_path: Path,
) -> None:
    r = round_one(DORMANT, tmp_path, ["MAJ"], max_units_per_term=27)
    assert r.terms == [("S2027", ["10-202", "10-301"])]
    dormant = [k for k in r.risks if "discontinued" in k.message]
    assert dormant == [
        Risk(
            kind="offering",
            message="10-301 may be discontinued: it last ran in Spring 2020; it is planned in "
            "Spring 2027 - confirm with the department that it will run, or ask for a "
            "substitute",
            term="S2027",
        )
    ]


# --------------------------------------------------------------------------- catalog checks


def test_published_terms_last_runs_and_retired_sections_are_checked() -> None:
    bad = published_catalog(
        [
            course("10-101", 9, FS, sections=[section("S2027")]) | {"status": "retired"},
            course("10-102", 9, FS) | {"last_offered": "Z2019"},
        ],
        [program("MAJ", required("10-102"))],
        ["F2027", "S2027"],
    )
    hint = "write a code such as 'S2027', 'F2027' (kinds: S Spring, U Summer, F Fall), or "
    assert reference_problems(bad) == [
        "$.calendar.sections_published[0]: no course has a section in F2027; list a term once "
        "its schedule of classes is in the catalog (every course without a section would not "
        "run)",
        "$.courses[0] (10-101).sections: a retired course has sections (S2027); remove them or "
        "set its status to active",
        f"$.courses[1] (10-102).last_offered: not a term: 'Z2019' in this semester calendar; "
        f"{hint}words such as 'Fall 2026'",
    ]


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        (
            ",dormant,",
            ",gone,",
            "column 'status': 'gone' is not a course status - write one of active, dormant, "
            "retired",
        ),
        (
            ",F2019",
            ",Fall 19",
            "column 'last_offered': 'Fall 19' is not a term of the calendar - write the last "
            "term the course ran as a code such as 'S2027', 'F2027'",
        ),
    ],
)
def test_courses_csv_status_and_last_run_problems_name_the_fix(
    tmp_path: Path, old: str, new: str, problem: str
) -> None:
    cat = published_catalog(
        [course("10-101", 9, FS) | {"status": "dormant", "last_offered": "F2019"}],
        [program("MAJ", required("10-101"))],
        [],
    )
    export_catalog(cat, tmp_path / "cat")
    path = tmp_path / "cat" / "courses.csv"
    path.write_text(path.read_text("utf-8").replace(old, new, 1), "utf-8")
    with pytest.raises(LayoutError) as info:
        build_catalog(tmp_path / "cat")
    assert info.value.problems == [f"courses.csv:2 {problem}"]

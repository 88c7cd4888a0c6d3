"""Load caps by class standing hold per term, by the standing the student has at the start
of each term - the units earned before it, the plan's earlier terms included - in the
planner, the verifier and the policy critique alike; round 1 carries a class-year table as
caps by standing, not as the current standing's cap for every term."""

from __future__ import annotations

from agents.artifacts import ScheduledCourse, ScheduledTerm
from agents.catalog import Catalog, CourseAttempt, StudentRecord, Term, use_catalog
from agents.intake import profile_of, read_request
from agents.planner import PlanConstraints, PlannedTerm, PlanResult, plan
from agents.planning import initial_constraints
from agents.policy import standings_by_term
from agents.toolbox import Toolbox
from agents.verifier import verify_plan
from tests.harrow_helpers import HARROW_BAY, hb_request, hb_tools, round_one
from tests.planner_helpers import FS, required
from tests.planner_strategies import catalog, course, program, student

__all__ = ["hb_tools"]  # the module fixture, imported so pytest finds it here

CODES = [f"10-10{i}" for i in range(7)]
_BASE = catalog([course(c, 9, FS) for c in CODES], [program("MAJ", required(*CODES))])
# Sophomores from 18 units: the first term's 18 units make the student one.
SMALL = Catalog.model_validate(
    {
        **_BASE.model_dump(mode="json", exclude_defaults=True),
        "standing_thresholds": {"sophomore": 18, "junior": 36, "senior": 54},
    }
)
FIRST_YEAR_18 = PlanConstraints(max_units_per_term=27, standing_max_units={"first_year": 18})


def test_the_first_year_cap_lifts_once_the_plan_makes_a_sophomore() -> None:
    result = plan(SMALL, student(["MAJ"]), ["MAJ"], FIRST_YEAR_18)
    assert [(t.term, t.units) for t in result.terms] == [
        ("S2027", 18.0),
        ("F2027", 27.0),
        ("S2028", 18.0),
    ]
    assert verify_plan(SMALL, student(["MAJ"]), ["MAJ"], FIRST_YEAR_18, result) == []


def test_the_verifier_holds_each_term_to_its_standing_cap() -> None:
    heavy = PlanResult(
        status="optimal",
        terms=[
            PlannedTerm(term="S2027", courses=CODES[:3], units=27),
            PlannedTerm(term="F2027", courses=CODES[3:6], units=27),
            PlannedTerm(term="S2028", courses=CODES[6:], units=9),
        ],
        graduation_term="S2028",
        units_planned=63,
        extra_units=0,
        reasons=[],
        earliest_feasible_term=None,
        requirement_of={},
        solve_ms=0,
    )
    defects = verify_plan(SMALL, student(["MAJ"]), ["MAJ"], FIRST_YEAR_18, heavy)
    assert [(d.kind, d.term, d.message) for d in defects] == [
        ("units_max", "S2027", "27 units in S2027 exceed the cap of 18 (first-year)")
    ]


def _hb_record(courses: list[tuple[str, str | None]]) -> StudentRecord:
    return StudentRecord(
        id="hb-x",
        name="X",
        programs=["CSCI-BA"],
        catalog_year="2026-27",
        start_term="T12025",
        current_term="T12026",
        courses=[
            CourseAttempt(
                course=c,
                term="T12025" if grade else "T12026",
                grade=grade,
                status="completed" if grade else "in_progress",
            )
            for c, grade in courses
        ],
    )


def _term(code: str, *courses: str) -> ScheduledTerm:
    picked = [ScheduledCourse(course=c, title=c, units=HARROW_BAY.course(c).units) for c in courses]
    return ScheduledTerm(
        term=code, label=Term.parse(code).label(), courses=picked, units=len(picked)
    )


def test_a_retake_adds_no_credit_toward_the_standing_the_critique_projects() -> None:
    done = ["MATH 110", "MATH 120", "WRIT 101", "HIST 110", "PSYC 110", "ECON 110"]
    with use_catalog(HARROW_BAY):
        rec = _hb_record([(c, "B") for c in done] + [("CSCI 120", "D"), ("PHIL 220", None)])
        assert rec.units_earned(HARROW_BAY, include_in_progress=True) == 8.0
        plan_terms = [_term("T22027", "CSCI 120"), _term("T32027", "CSCI 150")]
        profile = profile_of(rec, HARROW_BAY)
        # 8 credits and a retake that earns none: still a first-year in T32027 (9 make a
        # sophomore); counting the retake's credit would call them a sophomore.
        assert standings_by_term(HARROW_BAY, profile, plan_terms, rec) == {
            "T22027": "first_year",
            "T32027": "first_year",
        }
        assert standings_by_term(HARROW_BAY, profile, plan_terms)["T32027"] == "sophomore"


def test_round_one_caps_a_first_year_by_standing(hb_tools: Toolbox) -> None:
    cs = initial_constraints(read_request(hb_request("hb-first-year-gen-ed"), hb_tools), hb_tools)
    assert (cs.max_units_per_term, cs.standing_max_units) == (4.0, {"first_year": 3.5})
    assert cs.standard is None  # no target: the standard loads are the caps


def test_a_first_year_is_held_to_3_5_credits_only_while_a_first_year(hb_tools: Toolbox) -> None:
    """3.5 credits in the terms that start below 9 credits (T22027 with the 3.5 in
    progress, T32027 with 7.0), 4.0 from T12027; the critique and the verifier agree."""
    r = round_one("hb-first-year-gen-ed", hb_tools)
    plan_ = r.proposal.plan
    assert plan_ is not None and plan_.graduation_term == "T12029"
    loads = dict(r.loads)
    assert loads["T22027"] <= 3.5 and loads["T32027"] <= 3.5
    assert max(loads.values()) == 4.0
    assert [v for v in r.critique.violations if v.rule_id == "LOAD-MAX"] == []
    assert r.critique.approval == "approved"

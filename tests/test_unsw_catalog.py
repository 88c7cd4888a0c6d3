"""The third sample institution, UNSW Sydney (demos/unsw, converted by eval.unsw from public
data): the shipped catalog loads and passes every check with no warning, its students are
valid records of it, and a student of Computer Science is planned end to end - intake, the
requirements proposal, the schedule and the critique - with a plan the independent
verifier accepts.

Loading the catalog cold (the session's catalog cache starts empty) takes several seconds
on 2,900 courses, so the module is slow."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents import critique, requirements, scheduling
from agents.artifacts import PlanRequest
from agents.catalog import Catalog, Term, load_catalog, load_student, use_catalog
from agents.catalog.checks import catalog_warnings
from agents.catalog.prereq import format_prereq
from agents.intake import read_request
from agents.planner import PlanConstraints, plan
from agents.policy import catalog_load_caps
from agents.toolbox import Toolbox
from agents.verifier import verify_plan

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

REPO = Path(__file__).resolve().parents[1]
UNSW_DIR = REPO / "demos" / "unsw"
STUDENTS = UNSW_DIR / "students"


@pytest.fixture(scope="module")
def unsw() -> Catalog:
    return load_catalog(UNSW_DIR)


@pytest.fixture(scope="module")
def tools(unsw: Catalog, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Toolbox]:
    with use_catalog(unsw):
        yield Toolbox(catalog=unsw, index_dir=tmp_path_factory.mktemp("unsw-index"))


def test_the_catalog_loads_with_every_course_and_program_file(unsw: Catalog) -> None:
    with (UNSW_DIR / "courses.csv").open(encoding="utf-8") as f:
        codes = [r["code"] for r in csv.DictReader(f)]
    assert [c.code for c in unsw.courses] == codes
    programs = sorted(p.stem for p in (UNSW_DIR / "programs").glob("*.yaml"))
    assert sorted(p.code for p in unsw.programs) == programs
    assert [p.code for p in unsw.programs][:4] == ["3778", "3707", "3502", "3970"]


def test_the_catalog_passes_every_check_without_a_warning(unsw: Catalog, tools: Toolbox) -> None:
    assert catalog_warnings(unsw, tools.horizon_terms) == []


def test_the_trimester_calendar_and_the_load_rule(unsw: Catalog) -> None:
    assert [(k.code, k.regular) for k in unsw.calendar.terms] == [
        ("T0", False), ("T1", True), ("T2", True), ("T3", True),
    ]  # fmt: skip
    assert unsw.calendar.academic_year_starts == "T1"
    assert unsw.catalog_year == "2022"
    assert unsw.institution.unit_name == "UOC"
    assert catalog_load_caps(unsw).standard == 20


def test_facts_of_the_source_survive_the_conversion(unsw: Catalog) -> None:
    """A few courses as circles states them (commit a30c09d): units, terms, the lowered
    condition and the exclusion."""
    dsa = unsw.course("COMP2521")
    assert (dsa.units, dsa.level, dsa.offered.terms) == (6, 2, ["T1", "T2", "T3"])
    assert dsa.prerequisites is not None
    assert format_prereq(dsa.prerequisites) == "COMP1511 or DPST1091"
    project = unsw.course("COMP3900")
    assert project.prerequisites is not None
    assert format_prereq(project.prerequisites) == "COMP1531 and COMP2521 and units(102)"
    assert not project.free_elective  # its 'COMP#' enrolment condition was dropped
    assert "gen-ed" in dsa.attributes
    assert unsw.program("3778").concentration_required
    assert unsw.program("COMPA1").eligible_majors == ["3778"]


@pytest.mark.parametrize("path", sorted(STUDENTS.glob("*.json")), ids=lambda p: p.stem)
def test_each_student_is_a_record_of_the_catalog(unsw: Catalog, path: Path) -> None:
    with use_catalog(unsw):
        student = load_student(path)
    assert all(a.course in unsw.course_by_code for a in student.courses)
    assert all(p in unsw.program_by_code for p in student.programs)
    kinds = [unsw.program(p).kind for p in student.programs]
    assert kinds[:2] == ["major", "concentration"]


def test_a_first_term_computer_science_student_is_planned_end_to_end(
    unsw: Catalog, tools: Toolbox
) -> None:
    raw = json.loads((STUDENTS / "unsw-cs-first-term.json").read_text("utf-8"))
    with use_catalog(unsw):
        request = PlanRequest.model_validate(
            {"request_id": "unsw-cs-plan", "student": raw, "text": "Plan the rest of my degree."}
        )
        intake = read_request(request, tools)
        proposal = requirements.propose(intake, tools)
        schedule = scheduling.place(intake, proposal, None, 1, tools)
        review = critique.review(intake, schedule, tools)
        student = request.student
        assert proposal.plan is not None
        terms = proposal.plan.terms
        # Three 6-UOC courses fit the 20-UOC limit; the 126 UOC left take seven main terms.
        per_term = 6 * (catalog_load_caps(unsw).standard // 6)
        done = sum(unsw.course(a.course).units for a in student.courses)
        needed = math.ceil((unsw.program("3778").total_units - done) / per_term)
        after = (Term.parse(student.current_term).shift(i) for i in range(1, 4 * needed))
        regular = [t.code for t in after if t.regular]  # the Summer Term is optional
        assert [t.term for t in terms] == regular[:needed]
        assert all(t.units <= catalog_load_caps(unsw).standard for t in terms)
        planned = [c for t in terms for c in t.courses]
        assert {"COMP1521", "COMP1531", "COMP2521", "COMP3900", "COMP4920"} <= set(planned)
        assert review.approval == "approved"
        assert review.violations == []
        constraints = PlanConstraints(max_units_per_term=catalog_load_caps(unsw).standard)
        programs = list(student.programs)
        result = plan(unsw, student, programs, constraints)
        assert result.graduation_term == terms[-1].term
        assert verify_plan(unsw, student, programs, constraints, result) == []

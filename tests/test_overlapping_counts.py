"""Overlapping counts (issue #28 item 3): "four electives, including two from list B-1 and
one from B-2" - a course set with minimums from sub-lists (``minimums``), in the authoring
layout, the catalog checks, the degree audit (which minimum is short, and an allocation that
meets every minimum when one exists), the planner (a plan that meets them with the fewest
units; the candidate pool keeps each sub-list's courses) and the verifier.

The catalogs are small directories in the authoring layout, written here."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from agents.audit import audit, iter_nodes
from agents.catalog import Catalog, CourseSetRequirement, StudentRecord, reference_problems
from agents.catalog.authoring import build_catalog, catalog_json, export_catalog
from agents.errors import LayoutError
from agents.planner import PlanConstraints, PlannedTerm, PlanResult, plan
from agents.planner.setup import PlanSetup
from agents.verifier import verify_plan

INSTITUTION = "schema_version: 2\ninstitution:\n  name: Test College\ncatalog_year: 2026-2027\n"
HEADER = "code,title,units,department,level,attributes,offered_terms,prerequisites\n"
LOAD = PlanConstraints(max_units_per_term=4, min_units_per_term=0)

# Four electives numbered CS 3xx, including two from list B-1 (by code) and one from list B-2
# (by attribute). B-1 and the plain electives carry 1 unit; the B-2 courses carry 2.
COURSES = [
    "CS 101,Programming,1,CS,100,,fall;spring,",
    *(f"CS {n},Elective {n},1,CS,300,,fall;spring," for n in (301, 302, 303, 304)),
    *(f"CS {n},Theory {n},1,CS,300,,fall;spring," for n in (310, 311, 312)),
    *(f"CS {n},Systems {n},2,CS,300,systems,fall;spring," for n in (320, 321)),
]
MINIMUMS = """\
    minimums:
    - {title: list B-1, courses: [CS 310, CS 311, CS 312], min_courses: 2}
    - {title: list B-2, attributes: [systems], min_courses: 1}
"""


def _program(minimums: str = MINIMUMS, more: str = "") -> str:
    return f"""\
code: CS-BA
name: Computer Science
kind: major
catalog_year: 2026-2027
department: Computer Science
requirement:
  id: cs-ba
  kind: all_of
  children:
  - {{id: core, kind: course, course: CS 101}}
{more}  - id: electives
    title: Major electives
    kind: course_set
    patterns: [CS 3xx]
    min_courses: 4
{minimums}"""


def _layout(tmp_path: Path, program: str, rows: list[str] = COURSES) -> Path:
    directory = tmp_path / "catalog"
    (directory / "programs").mkdir(parents=True)
    (directory / "institution.yaml").write_text(INSTITUTION, "utf-8")
    (directory / "courses.csv").write_text(HEADER + "".join(f"{r}\n" for r in rows), "utf-8")
    (directory / "programs" / "CS-BA.yaml").write_text(program, "utf-8")
    return directory


def _catalog(tmp_path: Path, program: str | None = None, rows: list[str] = COURSES) -> Catalog:
    built, _ = build_catalog(_layout(tmp_path, _program() if program is None else program, rows))
    return built


def _student(done: list[str]) -> StudentRecord:
    rows = [{"course": c, "term": "F2025", "grade": "A"} for c in done]
    return StudentRecord.model_validate(
        {
            "id": "s-1",
            "name": "Student",
            "programs": ["CS-BA"],
            "catalog_year": "2026-2027",
            "start_term": "F2025",
            "current_term": "F2026",
            "courses": rows,
        }
    )


def _electives(cat: Catalog, st: StudentRecord, planned: dict[str, str] | None = None) -> dict:
    report = audit(cat, st, planned=planned)
    node = next(n for _, n in iter_nodes(report) if n.id == "electives")
    out = node.model_dump()
    out["counted"] = [c["course"] for c in out["counted"]]
    return out


# --------------------------------------------------------------------------- the form


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"min_courses": 1}, r"a minimum needs a selector \(courses, patterns, attributes"),
        ({"courses": ["CS 310"]}, r"a minimum needs min_courses or min_units \(or both\)"),
        ({"courses": ["CS 310"], "min_courses": 0}, "greater than or equal to 1"),
        ({"courses": ["CS 310"], "min_units": 1, "min_level": 3, "max_level": 2}, "min_level 3"),
    ],
)
def test_a_minimum_needs_a_selector_and_an_amount(data: dict[str, object], message: str) -> None:
    from agents.catalog.requirements import CourseMinimum

    with pytest.raises(ValidationError, match=message):
        CourseMinimum.model_validate(data)


def test_a_minimum_asking_more_than_the_set_is_reported_with_its_file(tmp_path: Path) -> None:
    bad = _program(MINIMUMS.replace("min_courses: 2}", "min_courses: 5}"))
    with pytest.raises(LayoutError) as info:
        build_catalog(_layout(tmp_path, bad))
    [problem] = info.value.problems
    assert problem.startswith(
        "programs/CS-BA.yaml:6 field 'requirement': minimums[0].min_courses is 5, more than "
        "the set's own min_courses 4: the courses of a minimum are among the set's - raise "
        "the set's min_courses or lower the minimum's"
    )


def test_the_catalog_checks_name_minimums_that_cannot_work(tmp_path: Path) -> None:
    bad = """\
    minimums:
    - {courses: [CS 999], min_courses: 1}
    - {courses: [CS 101], min_courses: 1}
    - {title: list B-1, courses: [CS 310, CS 311], min_courses: 3}
"""
    with pytest.raises(LayoutError) as info:
        build_catalog(_layout(tmp_path, _program(bad)))
    assert info.value.problems == [
        "programs/CS-BA.yaml:17: unknown course 'CS 999' - add the course to courses.csv or "
        "correct the code",
        "programs/CS-BA.yaml:17: the minimum's selector matches none of the set's courses",
        "programs/CS-BA.yaml:18: the minimum's selector matches none of the set's courses",
        "programs/CS-BA.yaml:19: min_courses is 3 but only 2 of the set's courses match the "
        "minimum",
    ]


def test_minimums_round_trip_and_are_written_only_when_there_is_one(tmp_path: Path) -> None:
    cat = _catalog(tmp_path)
    assert reference_problems(cat) == []
    export_catalog(cat, tmp_path / "exported")
    again, data = build_catalog(tmp_path / "exported")
    assert data == catalog_json(cat)
    assert again.program("CS-BA").requirement == cat.program("CS-BA").requirement
    plain = CourseSetRequirement(kind="course_set", id="s", patterns=["CS 3xx"], min_courses=4)
    assert "minimums" not in plain.model_dump()
    assert "minimums" not in plain.model_dump_json()


# --------------------------------------------------------------------------- the audit


def test_the_audit_says_which_minimum_is_short(tmp_path: Path) -> None:
    cat = _catalog(tmp_path)
    st = _student(["CS 101", "CS 301", "CS 302", "CS 303", "CS 310"])
    node = _electives(cat, st)
    assert node["status"] == "partly_met"
    assert node["counted"] == ["CS 301", "CS 302", "CS 303", "CS 310"]
    assert node["explanation"] == (
        "4 of 4 courses counted; 1 from list B-1 (at least 2 courses); 0 from list B-2 (at "
        "least 1 course); needs 1 more course from list B-1 (minimum unmet), from: CS 311, "
        "CS 312; needs 1 more course from list B-2 (minimum unmet), from: CS 320, CS 321"
    )
    assert (node["courses_needed"], node["options"]) == (
        2,
        ["CS 311", "CS 312", "CS 320", "CS 321"],
    )


def test_a_set_is_met_by_its_count_and_every_minimum(tmp_path: Path) -> None:
    cat = _catalog(tmp_path)
    st = _student(["CS 101", "CS 301", "CS 302", "CS 310", "CS 311", "CS 320"])
    node = _electives(cat, st)
    assert node["status"] == "met"
    # Four count, two of them from B-1 and one from B-2; CS 302 is not needed.
    assert node["counted"] == ["CS 301", "CS 310", "CS 311", "CS 320"]
    assert node["explanation"] == (
        "4 of 4 courses counted; 2 from list B-1 (at least 2 courses); 1 from list B-2 (at "
        "least 1 course)"
    )
    # Without the minimums any four courses would do: the form changes the answer.
    plain = _catalog(tmp_path / "plain", _program(minimums=""))
    assert (
        _electives(plain, _student(["CS 101", *(f"CS 30{n}" for n in range(1, 5))]))["status"]
        == "met"
    )
    assert (
        _electives(cat, _student(["CS 101", *(f"CS 30{n}" for n in range(1, 5))]))["status"]
        == "partly_met"
    )


def test_the_audit_leaves_each_minimum_the_courses_it_needs(tmp_path: Path) -> None:
    # "One theory course" wants CS 310 or CS 311 too: the allocation must give it one and
    # leave the electives the other plus CS 312, or list B-1 falls short.
    theory = "  - {id: theory, kind: course_set, courses: [CS 310, CS 311], min_courses: 1}\n"
    cat = _catalog(tmp_path, _program(more=theory))
    st = _student(["CS 101", "CS 301", "CS 310", "CS 311", "CS 312", "CS 320"])
    report = audit(cat, st)
    assert report.all_met
    by_id = {n.id: [c.course for c in n.counted] for _, n in iter_nodes(report)}
    assert by_id["theory"] == ["CS 310"]
    assert by_id["electives"] == ["CS 301", "CS 311", "CS 312", "CS 320"]


def test_a_minimum_in_units_counts_units(tmp_path: Path) -> None:
    units = """\
    minimums:
    - {title: systems courses, attributes: [systems], min_units: 4}
"""
    cat = _catalog(tmp_path, _program(units))
    st = _student(["CS 101", "CS 301", "CS 302", "CS 303", "CS 320"])
    node = _electives(cat, st)
    assert node["explanation"] == (
        "4 of 4 courses counted; 1 (2 units) from systems courses (at least 4 units); needs "
        "2 more units from systems courses (minimum unmet), from: CS 321"
    )
    assert (node["courses_needed"], node["units_needed"]) == (0, 2.0)
    assert _electives(cat, st, {"CS 321": "S2027"})["status"] == "met"


# --------------------------------------------------------------------------- planner, verifier


def _planned(result: PlanResult) -> dict[str, str]:
    return {c: t.term for t in result.terms for c in t.courses}


def test_the_plan_meets_the_minimums_with_the_fewest_units(tmp_path: Path) -> None:
    cat = _catalog(tmp_path)
    st = _student(["CS 101"])
    result = plan(cat, st, ["CS-BA"], LOAD)
    assert result.status == "optimal"
    planned = sorted(_planned(result))
    b1 = [c for c in planned if c in ("CS 310", "CS 311", "CS 312")]
    b2 = [c for c in planned if c in ("CS 320", "CS 321")]
    # Two B-1 courses (1 unit each), one B-2 course (2 units), one more 1-unit course: 5.
    assert (len(planned), len(b1) >= 2, len(b2), result.units_planned) == (4, True, 1, 5.0)
    assert all(result.requirement_of[c] == ["CS-BA/electives"] for c in planned)
    assert result.notes == []  # the audit agreed at once
    assert audit(cat, st, planned=_planned(result)).all_met
    assert verify_plan(cat, st, ["CS-BA"], LOAD, result) == []
    # Without the minimums four 1-unit courses are fewer units: the model reads them.
    plain = plan(_catalog(tmp_path / "plain", _program(minimums="")), st, ["CS-BA"], LOAD)
    assert plain.units_planned == 4.0


def test_the_candidate_pool_keeps_each_sub_lists_courses(tmp_path: Path) -> None:
    # Sixty plain electives rank before the B-2 courses (those need CS 201 first): the
    # pruned pool must still hold enough B-2 courses.
    rows = [
        *COURSES[:1],
        "CS 201,Systems basics,1,CS,200,,fall;spring,CS 101",
        *(f"CS {n},Elective {n},1,CS,300,,fall;spring," for n in range(330, 390)),
        *(f"CS {n},Theory {n},1,CS,300,,fall;spring," for n in (310, 311, 312)),
        *(f"CS {n},Systems {n},2,CS,300,systems,fall;spring,CS 201" for n in (320, 321)),
    ]
    cat = _catalog(tmp_path, rows=rows)
    st = _student(["CS 101"])
    setup = PlanSetup(cat, st, ["CS-BA"], LOAD)
    pool = setup.prep(setup.latest).pool
    assert {"CS 310", "CS 311", "CS 312", "CS 320", "CS 321"} <= set(pool)
    assert len(pool) < 40  # pruned
    result = plan(cat, st, ["CS-BA"], LOAD)
    assert result.status == "optimal"
    assert "CS 201" in _planned(result)
    assert result.units_planned == 6.0  # CS 201, a B-2 course, two B-1 and one more course
    assert verify_plan(cat, st, ["CS-BA"], LOAD, result) == []


def test_the_verifier_reports_a_plan_that_misses_a_minimum(tmp_path: Path) -> None:
    cat = _catalog(tmp_path)
    st = _student(["CS 101"])
    terms = [
        PlannedTerm(term="S2027", courses=["CS 301", "CS 302"], units=2.0),
        PlannedTerm(term="F2027", courses=["CS 303", "CS 310"], units=2.0),
    ]
    bad = PlanResult(
        status="feasible",
        terms=terms,
        graduation_term="F2027",
        units_planned=4.0,
        extra_units=0.0,
        reasons=[],
        earliest_feasible_term=None,
        requirement_of={},
        solve_ms=0.0,
    )
    defects = verify_plan(cat, st, ["CS-BA"], LOAD, bad)
    assert [(d.kind, d.message) for d in defects] == [
        (
            "requirement",
            "CS-BA/electives: 4 of 4 courses counted; 1 from list B-1 (at least 2 courses); 0 "
            "from list B-2 (at least 1 course); needs 1 more course from list B-1 (minimum "
            "unmet), from: CS 311, CS 312; needs 1 more course from list B-2 (minimum unmet), "
            "from: CS 320, CS 321",
        )
    ]

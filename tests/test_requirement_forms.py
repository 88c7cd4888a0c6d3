"""Requirement forms (spec section 3): course subjects, course sets restricted by subject and
level, subject minimums, caps on what counts, and the institution's requirements - the
models, the matching, the catalog checks and the degree audit (whole nodes, exact texts).
The catalog is tests/requirement_forms_helpers.py's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from agents.audit import audit, render_audit, sharing_limit
from agents.catalog import (
    Course,
    CourseCap,
    CourseSetRequirement,
    reference_problems,
    with_institution,
)
from agents.catalog.authoring import build_catalog, catalog_json, export_catalog, layout_files
from tests.planner_strategies import catalog, program, student
from tests.requirement_forms_helpers import (
    DIST,
    MAJOR,
    courses,
    dumped,
    gen_ed,
    liberal_arts,
    record,
)


def _course(code: str, level: int = 100, **extra: Any) -> Course:
    return Course.model_validate(
        {
            "code": code,
            "title": "T",
            "units": 1,
            "department": "D",
            "level": level,
            "offered": {"terms": ["fall"]},
            **extra,
        }
    )


@pytest.mark.parametrize(
    ("code", "extra", "subject"),
    [
        ("MATH 301", {}, "MATH"),
        ("MATH301", {}, "MATH"),
        ("MATH221A", {}, "MATH"),
        ("CS-101", {}, "CS"),
        ("15-112", {}, "15"),
        ("15-112", {"subject": "CS"}, "CS"),
    ],
)
def test_subject_comes_from_the_code_unless_given(
    code: str, extra: dict[str, Any], subject: str
) -> None:
    assert _course(code, **extra).subject_code == subject


@pytest.mark.parametrize(
    ("model", "data", "message"),
    [
        (CourseCap, {"subjects": ["MATH"]}, r"a cap needs max_courses or max_units \(or both\)"),
        (CourseCap, {"max_courses": 1, "min_level": 300, "max_level": 200}, "min_level 300 is"),
        (CourseCap, {"max_courses": -1}, "greater than or equal to 0"),
        (
            CourseSetRequirement,
            {"kind": "course_set", "id": "s", "min_courses": 1, "subjects": ["math"]},
            "should match pattern",
        ),
        (
            CourseSetRequirement,
            {"kind": "course_set", "id": "s", "min_courses": 1, "min_subjects": 0},
            "greater than or equal to 1",
        ),
        (
            CourseSetRequirement,
            {"kind": "course_set", "id": "s", "min_level": 400, "max_level": 100},
            "min_level 400 is above max_level 100",
        ),
    ],
)
def test_invalid_forms_are_rejected_with_the_reason(
    model: type[CourseCap | CourseSetRequirement], data: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValidationError, match=message):
        model.model_validate(data)


CODES = ["MATH 101", "MATH 301", "STAT 301", "HIST 101", "ENGL 101"]
LEVELS = {"MATH 101": 100, "MATH 301": 300, "STAT 301": 300, "HIST 101": 100, "ENGL 101": 100}


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"subjects": ["MATH"], "min_level": 300}, ["MATH 301"]),
        ({"min_level": 300}, ["MATH 301", "STAT 301"]),
        ({"max_level": 199, "subjects": ["HIST", "ENGL"]}, ["ENGL 101", "HIST 101"]),
        ({"patterns": ["MATH 1xx", "STAT 3xx"]}, ["MATH 101", "STAT 301"]),
        ({"patterns": ["MATH 1xx", "STAT 3xx"], "subjects": ["STAT"]}, ["STAT 301"]),
        ({"attributes": ["w"], "max_level": 100}, ["ENGL 101", "HIST 101"]),
        ({"attributes": ["w"], "subjects": ["ENGL"]}, ["ENGL 101"]),
        ({"courses": ["HIST 101"], "subjects": ["MATH"]}, ["HIST 101", "MATH 101", "MATH 301"]),
        ({"courses": ["HIST 101"]}, ["HIST 101"]),
        ({"subjects": ["MATH"], "exclude": ["MATH 101"]}, ["MATH 301"]),
        ({}, []),
    ],
)
def test_course_set_matching(fields: dict[str, Any], expected: list[str]) -> None:
    req = CourseSetRequirement.model_validate(
        {"kind": "course_set", "id": "s", "min_courses": 1, **fields}
    )
    extra = {c: {"attributes": ["w"]} for c in ("ENGL 101", "HIST 101", "MATH 301")}
    found = [c for c in CODES if req.matches(_course(c, LEVELS[c], **extra.get(c, {})))]
    assert sorted(found) == expected


def test_an_empty_cap_covers_every_course_and_a_cap_reads_its_selector() -> None:
    every = CourseCap(max_courses=2)
    math = CourseCap(subjects=["MATH"], max_level=199, max_units=3)
    assert [every.matches(_course(c, LEVELS[c])) for c in CODES] == [True] * 5
    assert [math.matches(_course(c, LEVELS[c])) for c in CODES] == [
        True,
        False,
        False,
        False,
        False,
    ]


def test_catalog_check_names_forms_that_cannot_work() -> None:
    bad = {
        "kind": "all_of",
        "id": "root",
        "children": [
            {"kind": "course_set", "id": "a", "subjects": ["ZOO"], "min_courses": 1},
            {"kind": "course_set", "id": "b", "subjects": ["ENGL"], "min_courses": 1,
             "min_subjects": 2},
            {"kind": "course_set", "id": "c", "subjects": ["MATH"], "min_courses": 4,
             "caps": [{"max_level": 199, "max_courses": 1}, {"subjects": ["HIST"],
                                                             "max_courses": 1}]},
            {"kind": "course_set", "id": "d", "courses": ["MATH 101"], "min_courses": 1,
             "caps": [{"courses": ["NOPE 100"], "max_courses": 1}]},
        ],
    }  # fmt: skip
    cat = catalog(
        courses(), [gen_ed(eligible_majors=["BAD-BA"]), program("BAD-BA", bad, kind="minor")]
    )
    at = "$.programs[1] (BAD-BA).requirement.children"
    assert reference_problems(cat) == [
        "$.programs[0] (GEN-ED).eligible_majors: the institution's requirements apply to "
        "every student; remove eligible_majors",
        f"{at}[0]: subject 'ZOO' has no course",
        f"{at}[0]: no course matches the set (subjects and levels included)",
        f"{at}[1]: min_subjects is 2 but the matching courses come from only 1 subject",
        f"{at}[2].caps[1]: the cap's selector matches none of the set's courses",
        f"{at}[2]: min_courses is 4 but the caps let at most 3 matching courses count",
        f"{at}[3].caps[0]: unknown course 'NOPE 100'",
        f"{at}[3].caps[0]: the cap's selector matches none of the set's courses",
    ]
    assert reference_problems(liberal_arts()) == []


# --------------------------------------------------------------------------- the audit


def test_a_cap_keeps_courses_out_and_the_audit_says_which_and_why() -> None:
    done = ["MATH 101", "MATH 102", "MATH 103", "ENGL 101", "ENGL 102"]
    report = audit(liberal_arts(), record(done))
    dist = report.programs[1].root.children[0]
    assert dumped(dist) == {
        "id": "dist",
        "title": "Distribution",
        "kind": "course_set",
        "status": "partly_met",
        "met_by_completed": False,
        "counted": [("ENGL 102", "completed"), ("MATH 102", "completed")],
        "courses_needed": 2,
        "units_needed": 2.0,
        "options": ["HIST 101", "HIST 201", "MATH 201", "MATH 301"],
        "children": [],
        "explanation": "2 of 4 courses counted; from 2 subjects (ENGL, MATH) of the 3 needed; "
        "needs 2 more courses, at least 1 in a subject not counted yet (subject distribution "
        "unmet), from: HIST 101, HIST 201, MATH 201, MATH 301; MATH 101, MATH 103 cannot "
        "count (cap reached): of introductory courses, at most 2 courses may count, and "
        "ENGL 102, MATH 102 already do",
    }


def test_a_subject_shortfall_names_the_subjects_still_needed() -> None:
    report = audit(liberal_arts(), record(["MATH 101", "MATH 102", "MATH 201", "MATH 301"]))
    dist = report.programs[1].root.children[0]
    assert dist.status == "partly_met"
    assert dist.courses_needed == 2
    assert dist.options == ["ENGL 101", "ENGL 102", "HIST 101", "HIST 201"]
    assert dist.explanation == (
        "4 of 4 courses counted; from 1 subject (MATH) of the 3 needed; needs 2 more courses in 2 "
        "subjects not counted yet (subject distribution unmet), from: ENGL 101, ENGL 102, HIST "
        "101, HIST 201"
    )


def test_the_audit_finds_the_arrangement_that_meets_caps_and_subjects() -> None:
    # Four introductory courses and MATH 301 are done: at most two introductory ones count,
    # so the completed courses fall one short and the planned HIST 201 completes the set.
    done = ["MATH 101", "MATH 102", "HIST 101", "ENGL 102", "MATH 301"]
    report = audit(liberal_arts(), record(done), planned={"HIST 201": "S2027"})
    dist = report.programs[1].root.children[0]
    assert (dist.status, dist.met_by_completed) == ("met", False)
    assert [(c.course, c.status) for c in dist.counted] == [
        ("ENGL 102", "completed"),
        ("HIST 101", "completed"),
        ("MATH 301", "completed"),
        ("HIST 201", "planned"),
    ]
    assert dist.explanation == (
        "4 of 4 courses counted; from 3 subjects (ENGL, HIST, MATH) of the 3 needed; MATH 101, "
        "MATH 102 cannot count (cap reached): of introductory courses, at most 2 courses may "
        "count, and ENGL 102, HIST 101 already do"
    )
    without = audit(liberal_arts(), record(done)).programs[1].root.children[0]
    assert (without.status, without.courses_needed) == ("partly_met", 1)


def test_courses_of_one_subject_class_are_told_apart() -> None:
    # Two sets want the same three courses; the distributed one must take the BB course.
    cs = [
        {**c, "attributes": ["x"]}
        for c in courses()
        if c["code"] in ("MATH 101", "MATH 102", "HIST 101")
    ]
    req = {
        "kind": "all_of",
        "id": "root",
        "children": [
            {"kind": "course_set", "id": "spread", "attributes": ["x"], "min_courses": 2,
             "min_subjects": 2},
            {"kind": "course_set", "id": "plain", "attributes": ["x"], "min_courses": 1},
        ],
    }  # fmt: skip
    cat = catalog(cs, [program("ONE-BA", req)])
    report = audit(cat, record(["MATH 101", "MATH 102", "HIST 101"], ("ONE-BA",)))
    spread, plain = report.programs[0].root.children
    assert report.all_met
    assert sorted(c.course for c in spread.counted) == ["HIST 101", "MATH 102"]
    assert [c.course for c in plain.counted] == ["MATH 101"]


def test_institution_requirements_apply_to_every_student_once() -> None:
    cat = liberal_arts(program("HIST-MIN", {**DIST, "id": "hist"}, kind="minor"))
    student = record(["MATH 101", "ENGL 101"])
    for report in (
        audit(cat, student),
        audit(cat, student, ["MATH-BA", "GEN-ED"]),
        audit(cat, student, add_programs=["HIST-MIN"]),
    ):
        codes = [(p.code, p.kind, p.what_if) for p in report.programs]
        assert codes[-1] == ("GEN-ED", "institution", False)
        assert [c for c, _, _ in codes].count("GEN-ED") == 1
        assert not report.warnings
    text = render_audit(audit(cat, student))
    assert "GEN-ED Program GEN-ED (institution requirements) [partly met]" in text
    assert with_institution(cat, ["MATH-BA"]) == ["MATH-BA", "GEN-ED"]
    assert with_institution(cat, ["GEN-ED", "MATH-BA"]) == ["GEN-ED", "MATH-BA"]


@pytest.mark.parametrize(
    ("limit", "owner", "applies"),
    [
        ({"max_courses": 0}, "minor", False),
        ({"with_kind": "major", "max_courses": 0}, "minor", False),
        ({"with_kind": "institution", "max_courses": 0}, "minor", True),
        ({"with_program": "GEN-ED", "max_courses": 0}, "minor", True),
        ({"max_courses": 0}, "institution", True),
    ],
)
def test_the_institution_shares_freely_unless_a_limit_names_it(
    limit: dict[str, Any], owner: str, applies: bool
) -> None:
    minor = program("MATH-MIN", {**DIST, "id": "m"}, kind="minor")
    if owner == "minor":
        cat = liberal_arts({**minor, "sharing": [limit]})
    else:
        cat = catalog(courses(), [gen_ed(sharing=[limit]), minor])
    a, b = cat.program("MATH-MIN"), cat.program("GEN-ED")
    assert (sharing_limit(a, b) is not None) == applies
    done = ["MATH 101", "MATH 201", "HIST 101", "ENGL 101", "ENGL 102", "HIST 201"]
    report = audit(cat, record(done, ("MATH-MIN",)))
    shared = {s.course for p in report.programs for s in p.shared_courses}
    assert bool(shared) != applies


def test_layout_export_and_build_round_trip_the_new_fields(tmp_path: Path) -> None:
    cs = courses()
    cs[0]["subject"] = "QUANT"
    cat = catalog(cs, [gen_ed(), program("MATH-BA", MAJOR)])
    export_catalog(cat, tmp_path / "layout")
    header = (tmp_path / "layout" / "courses.csv").read_text("utf-8").splitlines()[0]
    assert header.split(",")[3:6] == ["department", "subject", "level"]
    built, data = build_catalog(tmp_path / "layout")
    assert data == catalog_json(cat)
    assert built.program("GEN-ED").requirement == cat.program("GEN-ED").requirement
    assert built.course("MATH 101").subject_code == "QUANT"
    # Without a course that names its subject, the column is left out.
    plain = layout_files(liberal_arts())["courses.csv"].splitlines()[0]
    assert "subject" not in plain.split(",")


def test_a_capped_set_with_a_gpa_minimum_counts_a_course_outside_the_gpa() -> None:
    # Only MATH 101 (pass/fail, outside the GPA) can count: MATH 102's C is below 2.5.
    req = {
        "kind": "course_set",
        "id": "gpa",
        "subjects": ["MATH"],
        "min_courses": 1,
        "min_gpa": 2.5,
        "caps": [{"max_units": 1}],
    }
    cat = catalog(courses(), [program("ONE-BA", req)])
    rows = [
        {"course": "MATH 101", "term": "F2025", "grade": "P", "pass_fail": True},
        {"course": "MATH 102", "term": "F2025", "grade": "C"},
    ]
    node = audit(cat, student(["ONE-BA"], rows)).programs[0].root
    assert (node.status, node.met_by_completed) == ("met", True)
    assert [c.course for c in node.counted] == ["MATH 101"]

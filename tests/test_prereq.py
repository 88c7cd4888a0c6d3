"""Prerequisite expressions: parsing, printing, the round trip, and syntax errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.catalog import (
    AllOf,
    AnyOf,
    ConsentCond,
    CourseCond,
    ProgramCond,
    StandingCond,
    UnitsCond,
    courses_in,
    format_prereq,
    parse_prereq,
)
from agents.errors import PrereqSyntaxError

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop


def test_parse_issue_example() -> None:
    assert parse_prereq("15-112 and (21-127 or 21-128[C])") == AllOf(
        all=[
            CourseCond(course="15-112"),
            AnyOf(any=[CourseCond(course="21-127"), CourseCond(course="21-128", min_grade="C")]),
        ]
    )


def test_and_binds_tighter_than_or() -> None:
    assert parse_prereq("15-110 or 15-112 and 15-122") == AnyOf(
        any=[
            CourseCond(course="15-110"),
            AllOf(all=[CourseCond(course="15-112"), CourseCond(course="15-122")]),
        ]
    )


def test_non_course_conditions() -> None:
    assert parse_prereq(
        "standing(junior) and units(180) and consent(instructor) and program(CS-BS)"
    ) == AllOf(
        all=[
            StandingCond(standing="junior"),
            UnitsCond(units_completed=180),
            ConsentCond(consent="instructor"),
            ProgramCond(program="CS-BS"),
        ]
    )


def test_courses_in_lists_each_course_once() -> None:
    tree = parse_prereq("15-112 and (15-112[B] or 21-127) and standing(sophomore)")
    assert courses_in(tree) == ["15-112", "21-127"]


@pytest.mark.parametrize(
    ("text", "column", "reason"),
    [
        ("15-112 and", 11, "expression ends early; expected a course code, '(' or a condition"),
        ("15-112 and (21-127", 19, "missing ')'"),
        (
            "standing(jr)",
            10,
            "standing(jr): standing must be one of first_year, sophomore, junior, senior",
        ),
        ("15-112[Q9]", 7, "bad minimum grade 'Q9'; expected a letter grade such as 'C' or 'B-'"),
        (
            "15-112 & 15-122",
            8,
            "unexpected character '&'; expected a course code, 'and', 'or', "
            "'(' or a condition such as standing(junior)",
        ),
        ("units(x)", 7, "units(x): units needs a number, e.g. units(90)"),
        ("standing(junior", 16, "missing ')' after 'standing('"),
        ("15-112 15-122", 8, "unexpected '15-122'"),
        ("", 1, "empty expression"),
        ("or 15-112", 1, "unexpected 'or'; expected a course code, '(' or a condition"),
    ],
)
def test_syntax_errors_report_column(text: str, column: int, reason: str) -> None:
    with pytest.raises(PrereqSyntaxError) as info:
        parse_prereq(text)
    assert (info.value.column, info.value.reason) == (column, reason)


def test_syntax_error_message_points_at_column() -> None:
    with pytest.raises(PrereqSyntaxError) as info:
        parse_prereq("15-112 & 15-122")
    assert str(info.value).splitlines()[1:] == ["  15-112 & 15-122", "         ^"]


codes = st.sampled_from(["15-110", "15-112", "21-127", "21-128", "CS 101", "MATH221", "36-200"])
grades = st.sampled_from([None, "A", "B-", "C", "C+", "D"])
leaves = st.one_of(
    st.builds(CourseCond, course=codes, min_grade=grades),
    st.builds(StandingCond, standing=st.sampled_from(["sophomore", "junior", "senior"])),
    st.builds(UnitsCond, units_completed=st.sampled_from([90.0, 180.0, 37.5])),
    st.builds(ConsentCond, consent=st.sampled_from(["instructor", "dean"])),
    st.builds(ProgramCond, program=st.sampled_from(["CS-BS", "IS-BS"])),
)
trees = st.recursive(
    leaves,
    lambda kids: st.one_of(
        st.builds(AllOf, all=st.lists(kids, min_size=2, max_size=3)),
        st.builds(AnyOf, any=st.lists(kids, min_size=2, max_size=3)),
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(trees)
def test_print_parse_round_trip(tree: object) -> None:
    text = format_prereq(tree)  # type: ignore[arg-type]
    assert parse_prereq(text) == tree
    assert format_prereq(parse_prereq(text)) == text

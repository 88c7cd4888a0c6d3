"""Looking programs and courses up from what a person types: codes in any case, aliases and
names; unknown courses answered with the closest codes; where a course counts."""

from __future__ import annotations

from typing import Any

import pytest

from agents.catalog import Catalog, load_catalog, parse_catalog
from agents.catalog.lookup import (
    ProgramUse,
    program_uses,
    resolve_course,
    resolve_program,
)
from agents.errors import (
    AmbiguousProgramError,
    UnknownCourseError,
    UnknownProgramError,
    UnknownReferenceError,
)
from tests.catalog_base import base_catalog

SAMPLE_CODES = (
    "BUS-MIN, CS-BS, CS-MIN, DS-MIN, ECON-BA, ECON-MIN, IS-BS, MATH-BS, MATH-MIN, PHIL-MIN, STAT-BS"
)


@pytest.fixture(scope="module")
def sample() -> Catalog:
    return load_catalog()


def _two_minors() -> Catalog:
    """The test catalog with a second minor whose aliases clash with the first's code,
    name and alias, and a course whose code has letters."""
    raw: dict[str, Any] = base_catalog()
    first = raw["programs"][0]
    first["aliases"] = ["cs minor"]
    second = {
        **first,
        "code": "CS-MIN2",
        "name": "Computing minor",
        "aliases": ["cs minor", "cs-min", "Computer Science minor"],
    }
    raw["programs"].append(second)
    raw["courses"].append(
        {
            "code": "MATH 301",
            "title": "Topics in Analysis",
            "units": 9,
            "department": "Mathematics",
            "level": 300,
            "offered": {"terms": ["fall"]},
        }
    )
    return parse_catalog(raw)


# --------------------------------------------------------------------------- programs


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("CS-MIN", "CS-MIN"),
        ("cs-min", "CS-MIN"),
        ("  Cs-Min  ", "CS-MIN"),
        ("business minor", "BUS-MIN"),
        ("Business Minor", "BUS-MIN"),
        ("minor  in   data science", "DS-MIN"),
        ("Statistics and Data Science", "STAT-BS"),
        ("statistics and data science", "STAT-BS"),
        ("math", "MATH-BS"),
        ("CS", "CS-BS"),
        ("B.A. in Economics", "ECON-BA"),
    ],
)
def test_resolve_program_accepts_code_alias_or_name(sample: Catalog, text: str, code: str) -> None:
    assert resolve_program(sample, text) == code


@pytest.mark.parametrize("text", ["computer", "CS-MINOR", "cs_min", "", "business"])
def test_resolve_program_unknown_lists_every_code(sample: Catalog, text: str) -> None:
    with pytest.raises(UnknownProgramError) as info:
        resolve_program(sample, text)
    assert str(info.value) == f"unknown program {text.strip()!r}; the catalog has: {SAMPLE_CODES}"
    assert info.value.known == SAMPLE_CODES.split(", ")


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("cs-min", "CS-MIN"),  # a code beats another program's alias
        ("computer science minor", "CS-MIN"),  # a name beats another program's alias
        ("Computing Minor", "CS-MIN2"),
        ("cs-min2", "CS-MIN2"),
    ],
)
def test_resolve_program_prefers_code_then_name_then_alias(text: str, code: str) -> None:
    assert resolve_program(_two_minors(), text) == code


def test_resolve_program_refuses_an_alias_two_programs_share() -> None:
    with pytest.raises(AmbiguousProgramError) as info:
        resolve_program(_two_minors(), " CS minor ")
    assert str(info.value) == (
        "program 'CS minor' could mean CS-MIN, CS-MIN2; give the program's code instead"
    )
    assert isinstance(info.value, UnknownProgramError)


# --------------------------------------------------------------------------- courses


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("15-112", "15-112"),
        (" 15-112\t", "15-112"),
        ("MATH 301", "MATH 301"),
        ("math 301", "MATH 301"),
        ("  Math 301 ", "MATH 301"),
        ("math301", "MATH 301"),
        ("Math-301", "MATH 301"),
        ("15112", "15-112"),
    ],
)
def test_resolve_course_ignores_case_and_surrounding_spaces(text: str, code: str) -> None:
    assert resolve_course(_two_minors(), text) == code


@pytest.mark.parametrize(
    ("text", "suggestions"),
    [
        ("15-11", ["15-110", "15-112", "15-131", "15-151", "15-411"]),
        ("15-11O", ["15-110", "15-112", "15-131", "15-151", "15-411"]),
        ("21 12", ["21-120", "21-122", "21-127", "21-128"]),
        ("xyz", []),
    ],
)
def test_unknown_course_suggests_close_codes(
    sample: Catalog, text: str, suggestions: list[str]
) -> None:
    with pytest.raises(UnknownCourseError) as info:
        resolve_course(sample, text)
    assert info.value.known == suggestions
    assert isinstance(info.value, UnknownReferenceError)


def test_unknown_course_message_says_how_to_find_courses(sample: Catalog) -> None:
    with pytest.raises(UnknownCourseError) as info:
        resolve_course(sample, " 15-11 ")
    assert str(info.value) == (
        "unknown course '15-11'; did you mean 15-110, 15-112, 15-131, 15-151, 15-411? "
        "find courses with 'advise catalog search TEXT'"
    )
    with pytest.raises(UnknownCourseError) as info:
        resolve_course(sample, "xyz")
    assert str(info.value) == (
        "unknown course 'xyz'; find courses with 'advise catalog search TEXT'"
    )


# --------------------------------------------------------------------------- uses


def test_program_uses_lists_named_courses_and_course_set_matches(sample: Catalog) -> None:
    assert program_uses(sample, "15-150") == [
        ProgramUse("CS-BS", "15-150", "", "named"),
        ProgramUse("MATH-BS", "math-related", "Related field", "course set"),
        ProgramUse("CS-MIN", "cs-min-intermediate-15-150", "", "named"),
    ]


def test_program_uses_of_the_test_catalog() -> None:
    cat = _two_minors()
    assert program_uses(cat, "15-112") == [
        ProgramUse("CS-MIN", "intro", "", "named"),
        ProgramUse("CS-MIN", "elective", "", "course set"),
        ProgramUse("CS-MIN2", "intro", "", "named"),
        ProgramUse("CS-MIN2", "elective", "", "course set"),
    ]
    assert program_uses(cat, "MATH 301") == []

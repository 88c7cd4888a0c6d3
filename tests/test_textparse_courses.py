"""The offline free-text reader, courses and interests: courses to include, avoid or leave
unresolved, and the interests a student names."""

from __future__ import annotations

import pytest

from agents.llm import parse_request_text
from tests.harrow_helpers import HARROW_BAY
from tests.textparse_helpers import parse

# --------------------------------------------------------------------------- courses


@pytest.mark.parametrize(
    ("text", "include", "avoid", "unresolved"),
    [
        ("I want to take 15-112", ["15-112"], [], []),
        ("please include 67-272 and 70-311", ["67-272", "70-311"], [], []),
        ("avoid 15-122", [], ["15-122"], []),
        ("I'd rather not take 15-213", [], ["15-213"], []),
        ("I already took 15-112", [], [], []),
        ("I loved 15-112", [], [], []),
        ("take 99-999", [], [], ["99-999"]),
        # A retake wished for after the course is named (issue #17, repeats).
        ("I failed 15-122 and want to retake it", ["15-122"], [], []),
        ("I got a C- in 21-120 and want to take it again", ["21-120"], [], []),
        ("I passed 15-112 and don't want to repeat it", [], [], []),
        ("I failed 15-122 the first time and passed it on the second try", [], [], []),
    ],
)
def test_course_phrasings(
    text: str, include: list[str], avoid: list[str], unresolved: list[str]
) -> None:
    got = parse(text)
    assert (got.include_courses, got.avoid_courses, got.unresolved) == (include, avoid, unresolved)


@pytest.mark.parametrize(
    ("text", "include", "unresolved"),
    [
        ("I want to retake CSCI 120 next trimester.", ["CSCI 120"], []),
        ("I got a B in MATH 220 and want to retake it.", ["MATH 220"], []),
        ("take CSCI120 and CHEM 121L", ["CSCI 120", "CHEM 121L"], []),
        ("take MATH 999", [], ["MATH 999"]),
        ("my SAT 1450 should help; take ECON 360", ["ECON 360"], []),
    ],
)
def test_subject_letter_codes_are_read_against_the_catalog(
    text: str, include: list[str], unresolved: list[str]
) -> None:
    """A catalog whose codes are subject letters and a number (Harrow Bay, most real
    catalogs): such codes are read, spelt as the catalog spells them; an unknown one is
    unresolved only when its subject is the catalog's."""
    got = parse_request_text(text, HARROW_BAY)
    assert (got.include_courses, got.unresolved) == (include, unresolved)


# --------------------------------------------------------------------------- interests


@pytest.mark.parametrize(
    ("text", "interests"),
    [
        ("interested in machine learning and security", ["machine learning", "security"]),
        ("I'm interested in AI, robotics, and ethics.", ["ai", "robotics", "ethics"]),
        ("I really like databases but hate mornings", ["databases"]),
        ("passionate about public policy", ["public policy"]),
        ("I'd like to finish early", []),
        ("interested in adding a minor", []),
        ("interested in the CS minor", []),
    ],
)
def test_interest_phrasings(text: str, interests: list[str]) -> None:
    assert parse(text).interests == interests

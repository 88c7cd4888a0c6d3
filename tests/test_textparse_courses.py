"""The offline free-text reader, courses and interests: courses to include, avoid or leave
unresolved, and the interests a student names."""

from __future__ import annotations

import pytest

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
    ],
)
def test_course_phrasings(
    text: str, include: list[str], avoid: list[str], unresolved: list[str]
) -> None:
    got = parse(text)
    assert (got.include_courses, got.avoid_courses, got.unresolved) == (include, avoid, unresolved)


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

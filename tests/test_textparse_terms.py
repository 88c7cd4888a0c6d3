"""The offline free-text reader, terms: graduation targets (absolute, relative to the start
term, unresolved without one), ``resolve_target_phrase``, and terms away from campus."""

from __future__ import annotations

import pytest

from agents.llm import (
    is_relative_target,
    resolve_target_phrase,
)
from tests.textparse_helpers import parse

# --------------------------------------------------------------------------- targets


@pytest.mark.parametrize(
    ("text", "start", "target", "phrase"),
    [
        ("graduate in 4 years", "F2025", "S2029", "in 4 years"),
        ("graduate in four years", "F2025", "S2029", "in four years"),
        ("finish in 3.5 years", "F2025", "F2028", "in 3.5 years"),
        ("finish in three and a half years", "F2025", "F2028", "in three and a half years"),
        ("graduate in 4 years", "S2026", "F2029", "in 4 years"),
        ("graduate a semester early", "F2025", "F2028", "a semester early"),
        ("graduate one year early", "F2025", "S2028", "one year early"),
        ("I'd like to graduate on time", "F2025", "S2029", "graduate on time"),
        ("graduate in two more years", None, "F2028", "in two more years"),
        ("graduate by spring 2028", None, "S2028", "spring 2028"),
        ("finish by Spring '28", None, "S2028", "Spring '28"),
        ("graduate in May 2028", None, "S2028", "May 2028"),
        ("graduate in December 2027", None, "F2027", "December 2027"),
        ("finish by F2027", None, "F2027", "F2027"),
        ("graduate in 2028", None, "S2028", "2028"),
        ("done by 2028 fall", None, "F2028", "2028 fall"),
    ],
)
def test_target_phrasings(text: str, start: str | None, target: str, phrase: str) -> None:
    got = parse(text, start_term=start)
    assert (got.target_graduation, got.target_phrase, got.unresolved) == (target, phrase, [])


@pytest.mark.parametrize(
    ("text", "unresolved"),
    [
        ("graduate in 4 years", ["in 4 years"]),
        ("graduate a semester early", ["a semester early"]),
        ("I want to graduate early", ["graduate early"]),
    ],
)
def test_relative_target_without_start_term_is_unresolved(text: str, unresolved: list[str]) -> None:
    got = parse(text)
    assert (got.target_graduation, got.unresolved) == (None, unresolved)


def test_years_without_a_graduation_word_are_not_a_target() -> None:
    assert parse("I worked for two years before college.", start_term="F2025").target_phrase == ""


@pytest.mark.parametrize(
    ("phrase", "start", "current", "expected"),
    [
        ("in 3.5 years", "F2025", "F2026", ("F2028", "3.5 years = 7 regular terms from F2025")),
        ("in 3 more years", None, "F2026", ("F2029", "6 more regular terms from S2027")),
        ("2 years from now", None, "S2027", ("S2029", "4 more regular terms from F2027")),
        (
            "a semester early",
            "F2023",
            "F2026",
            ("F2026", "7 regular terms from F2023 instead of 8"),
        ),
        ("in 3.5 years", None, "F2026", None),
        ("by spring 2028", "F2025", "F2026", None),
    ],
)
def test_resolve_target_phrase(
    phrase: str, start: str | None, current: str, expected: tuple[str, str] | None
) -> None:
    assert resolve_target_phrase(phrase, start_term=start, current_term=current) == expected
    assert is_relative_target(phrase) is (phrase != "by spring 2028")


# --------------------------------------------------------------------------- terms away


@pytest.mark.parametrize(
    ("text", "away", "unresolved"),
    [
        ("I'll be abroad in fall 2027", ["F2027"], []),
        ("study away spring 2028", ["S2028"], []),
        ("leave of absence in Spring 2028", ["S2028"], []),
        ("I'm taking fall 2027 off", ["F2027"], []),
        ("fall 2027 abroad, spring 2028 on an internship", ["F2027", "S2028"], []),
        ("studying abroad next fall", ["F2027"], []),
        ("abroad in F2027 and graduate by S2029", ["F2027"], []),
        ("I need a leave of absence", [], ["leave of absence"]),
        ("study abroad in the spring", [], ["study abroad in the spring"]),
    ],
)
def test_terms_away_phrasings(text: str, away: list[str], unresolved: list[str]) -> None:
    got = parse(text)
    assert (got.terms_away, got.unresolved) == (away, unresolved)


def test_next_semester_counts_from_the_current_term() -> None:
    assert parse("abroad next semester", current_term="S2027").terms_away == ["F2027"]
    assert parse("abroad next spring", current_term="S2027").terms_away == ["S2028"]

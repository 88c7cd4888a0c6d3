"""Terms in request text read in the catalog's own calendar: kind names and aliases,
"next <kind>", months, bare graduation years and year counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.catalog import Calendar, Catalog, load_catalog, use_calendar, use_catalog
from agents.llm.letters import letter_mentions
from agents.llm.textparse import parse_request_text
from tests.calendar_helpers import FOUR_ONE_FOUR, QUARTER, TRIMESTER

REPO = Path(__file__).resolve().parents[1]


def _read(cal: Calendar, text: str, current: str, start: str | None = None):  # type: ignore[no-untyped-def]
    catalog: Catalog = load_catalog().model_copy(update={"calendar": cal})
    with use_calendar(cal):
        return parse_request_text(text, catalog, current_term=current, start_term=start)


@pytest.mark.parametrize(
    ("cal", "text", "current", "target"),
    [
        (QUARTER, "I want to graduate by winter 2028.", "F2026", "W2028"),
        (QUARTER, "Can I finish by Winter Quarter 2028?", "F2026", "W2028"),
        (TRIMESTER, "I'd like to graduate in the fall trimester of 2028.", "T12026", "T12028"),
        (TRIMESTER, "Can I be done by T32028?", "T12026", "T32028"),
        (TRIMESTER, "I want to graduate in 2029.", "T12026", "T32029"),
        (QUARTER, "I want to graduate in 2029.", "F2026", "S2029"),
        (FOUR_ONE_FOUR, "Graduate by J-term 2029 please.", "F2026", "J2029"),
        (QUARTER, "I hope to graduate by May 2029.", "F2026", "S2029"),
    ],
)
def test_graduation_targets_in_the_calendar(
    cal: Calendar, text: str, current: str, target: str
) -> None:
    assert _read(cal, text, current).target_graduation == target


def test_years_count_the_calendar_s_regular_terms() -> None:
    got = _read(TRIMESTER, "Can I graduate in three years?", "T12026", start="T12026")
    assert got.target_graduation == "T32029"  # 9 regular trimesters from T1 2026
    got = _read(QUARTER, "I want to graduate on time.", "F2026", start="F2026")
    assert got.target_graduation == "S2030"  # 12 regular quarters


def test_next_kind_and_terms_away() -> None:
    got = _read(QUARTER, "I will study abroad next winter.", "F2026")
    assert got.terms_away == ["W2027"]
    got = _read(FOUR_ONE_FOUR, "I'll be away for the J-term 2027 on an internship.", "F2026")
    assert got.terms_away == ["J2027"]


def test_a_letter_s_terms_are_read_in_the_calendar() -> None:
    with use_calendar(TRIMESTER):
        found = letter_mentions(
            "You graduate in Spring Trimester 2029 (T32029); CS2410 is not a term."
        )
    assert found["terms"] == {"T32029"}


def test_a_course_code_is_not_read_as_a_program_name() -> None:
    catalog = load_catalog(REPO / "demos" / "harrow-bay")
    with use_catalog(catalog):
        got = parse_request_text(
            "I need to take MATH 220 and CSCI 220 next trimester.", catalog, current_term="T12026"
        )
        assert got.add_programs == [] and got.unresolved == []
        assert parse_request_text("Can I add the math minor?", catalog).add_programs == ["MATH-MIN"]

"""The offline free-text reader, schedule limits: per-term load caps in units or courses,
and free days and time-of-day bounds."""

from __future__ import annotations

import pytest

from tests.textparse_helpers import parse

# --------------------------------------------------------------------------- load caps


@pytest.mark.parametrize(
    ("text", "units", "courses"),
    [
        ("no more than 4 courses per term", None, 4),
        ("at most 45 units", 45.0, None),
        ("max 5 classes", None, 5),
        ("a maximum of 48 units a semester", 48.0, None),
        ("not more than four classes", None, 4),
        ("up to 36 credits", 36.0, None),
        ("4 courses max", None, 4),
        ("five classes or fewer", None, 5),
        ("limit it to 3 courses, at most 36 units", 36.0, 3),
        ("I can take more than 54 units", None, None),
        ("How many units can I take?", None, None),
    ],
)
def test_load_cap_phrasings(text: str, units: float | None, courses: int | None) -> None:
    got = parse(text)
    assert (got.max_units_per_term, got.max_courses_per_term) == (units, courses)


# --------------------------------------------------------------------------- days and times


@pytest.mark.parametrize(
    ("text", "days", "before", "after"),
    [
        ("no Friday classes", ["F"], None, None),
        ("Fridays off", ["F"], None, None),
        ("no classes on Mondays or Fridays", ["M", "F"], None, None),
        ("keep Tuesdays and Thursdays free", ["T", "R"], None, None),
        ("I work Wednesdays", ["W"], None, None),
        ("nothing before 10am", [], "10:00", None),
        ("no classes before 9:30 a.m.", [], "09:30", None),
        ("no classes after 4pm", [], None, "16:00"),
        ("no class after 16:30", [], None, "16:30"),
        ("done by 3 pm", [], None, "15:00"),
        ("mornings free", [], "12:00", None),
        ("no evening classes", [], None, "17:00"),
        ("no early classes", [], "10:00", None),
        ("free afternoons and nothing after 5pm", [], None, "12:00"),
        ("I met my advisor on Friday", [], None, None),
    ],
)
def test_day_and_time_phrasings(
    text: str, days: list[str], before: str | None, after: str | None
) -> None:
    got = parse(text)
    assert (got.free_days, got.not_before, got.not_after) == (days, before, after)

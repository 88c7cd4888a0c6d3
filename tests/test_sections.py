"""Next-term section selection: whole results for a clean choice, a clash with its
alternative, free-time wishes, a course without sections, and determinism."""

from __future__ import annotations

from typing import Any

import pytest

from agents.catalog import Meeting
from agents.planner import meetings_overlap, normalize_days, select_sections
from tests.planner_strategies import catalog, course, program

FS = ["fall", "spring"]


def sec(section: str, days: str, start: str, end: str) -> dict[str, Any]:
    return {
        "term": "S2027",
        "id": section,
        "meetings": [{"days": days, "start": start, "end": end}],
    }


def meet(days: str, start: str, end: str) -> dict[str, Any]:
    return {"days": days, "start": start, "end": end, "location": None}


CAT = catalog(
    [
        course(
            "15-112",
            12,
            FS,
            sections=[sec("A", "MWF", "09:00", "09:50"), sec("B", "MWF", "10:00", "10:50")],
        ),
        course("67-272", 9, FS, sections=[sec("A", "TR", "13:30", "14:50")]),
        course("70-311", 9, FS, sections=[sec("A", "TR", "13:30", "14:50")]),
        course("80-100", 9, FS, sections=[sec("A", "MW", "15:00", "16:20")]),
        course("21-120", 10, FS),
    ],
    [program("MAJ", {"kind": "course", "id": "x", "course": "15-112"})],
)


def result(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "term": "S2027",
        "status": "ok",
        "sections": {},
        "meetings": {},
        "clashes": [],
        "free_time_conflicts": [],
        "unscheduled": [],
        "alternative": None,
        "free_days": [],
        "not_before": None,
        "not_after": None,
        "timed_out": None,
    }
    base.update(changes)
    return base


def test_clean_request_takes_the_first_listed_sections() -> None:
    choice = select_sections(CAT, "S2027", ["15-112", "67-272"])
    assert choice.model_dump() == result(
        sections={"15-112": "A", "67-272": "A"},
        meetings={
            "15-112": [meet("MWF", "09:00", "09:50")],
            "67-272": [meet("TR", "13:30", "14:50")],
        },
    )


def test_clash_names_both_sections_and_offers_an_alternative_that_keeps_required() -> None:
    choice = select_sections(
        CAT,
        "Spring 2027",
        ["15-112", "67-272", "70-311"],
        required=["15-112", "67-272"],
        candidates=["80-100"],
    )
    assert choice.model_dump() == result(
        status="clash",
        sections={"15-112": "A", "67-272": "A", "70-311": "A"},
        meetings={
            "15-112": [meet("MWF", "09:00", "09:50")],
            "67-272": [meet("TR", "13:30", "14:50")],
            "70-311": [meet("TR", "13:30", "14:50")],
        },
        clashes=["67-272 A (TR 13:30-14:50) clashes with 70-311 A (TR 13:30-14:50)"],
        alternative=["15-112", "67-272", "80-100"],
    )


def test_alternative_drops_the_later_course_when_nothing_is_marked_required() -> None:
    choice = select_sections(CAT, "S2027", ["70-311", "67-272"])
    assert choice.alternative == ["70-311"]


def test_free_time_wish_picks_the_section_that_keeps_it() -> None:
    choice = select_sections(CAT, "S2027", ["15-112"], not_before="09:30")
    assert choice.model_dump() == result(
        sections={"15-112": "B"},
        meetings={"15-112": [meet("MWF", "10:00", "10:50")]},
        not_before="09:30",
    )


def test_unavoidable_free_day_is_reported_with_an_alternative() -> None:
    choice = select_sections(CAT, "S2027", ["15-112", "67-272"], free_days=["friday"])
    assert choice.model_dump() == result(
        sections={"15-112": "A", "67-272": "A"},
        meetings={
            "15-112": [meet("MWF", "09:00", "09:50")],
            "67-272": [meet("TR", "13:30", "14:50")],
        },
        free_time_conflicts=[
            "15-112 A (MWF 09:00-09:50): meets on F, a day you asked to keep free"
        ],
        alternative=["67-272"],
        free_days=["F"],
    )


def test_course_without_sections_is_unscheduled() -> None:
    choice = select_sections(CAT, "S2027", ["15-112", "21-120"])
    assert (choice.status, choice.unscheduled, choice.alternative) == (
        "no_sections",
        ["21-120"],
        ["15-112"],
    )


def test_same_request_twice_gives_the_same_choice() -> None:
    args = (CAT, "S2027", ["15-112", "67-272", "70-311", "80-100"])
    assert select_sections(*args) == select_sections(*args)


def test_meetings_touching_end_to_start_do_not_clash() -> None:
    a = Meeting(days="MW", start="09:00", end="10:00")
    assert not meetings_overlap(a, Meeting(days="M", start="10:00", end="11:00"))
    assert meetings_overlap(a, Meeting(days="W", start="09:59", end="11:00"))
    assert not meetings_overlap(a, Meeting(days="TR", start="09:00", end="10:00"))


def test_day_names_are_normalized_and_bad_ones_rejected() -> None:
    assert normalize_days(["fri", "M", "TR"]) == ["M", "T", "R", "F"]
    with pytest.raises(ValueError, match="not a day: 'someday'"):
        normalize_days(["someday"])

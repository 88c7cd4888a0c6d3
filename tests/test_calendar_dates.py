"""Term dates in the catalog calendar: published ``dates`` per term, a kind's
``typical_dates`` for the years no published calendar covers, the checks that catch a
mistyped entry (with the message and fix), and the authoring layout keeping both."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from agents.catalog import Calendar, TermSpan, load_catalog, parse_catalog
from agents.catalog.authoring import build_catalog, catalog_json, export_catalog
from agents.catalog.loader import default_catalog_path
from agents.errors import LayoutError
from tests.calendar_helpers import TRIMESTER
from tests.catalog_base import base_catalog

REPO = Path(__file__).resolve().parents[1]
D = dt.date


def _spans(calendar: Calendar, *codes: str) -> dict[str, TermSpan | None]:
    return {code: calendar.span(calendar.parse(code)) for code in codes}


def test_a_term_takes_its_published_dates_else_its_kinds_typical_dates() -> None:
    calendar = load_catalog().calendar
    assert _spans(calendar, "S2027", "F2027", "S2028", "U2028", "F2028") == {
        "S2027": TermSpan(D(2027, 1, 19), D(2027, 5, 7), "dates"),
        "F2027": TermSpan(D(2027, 8, 30), D(2027, 12, 10), "dates"),
        # The first Tuesday on or after January 16, for 16 weeks.
        "S2028": TermSpan(D(2028, 1, 18), D(2028, 5, 8), "typical_dates"),
        "U2028": TermSpan(D(2028, 5, 22), D(2028, 8, 6), "typical_dates"),
        # The first Monday on or after August 25, for 15 weeks (to the 15th Sunday).
        "F2028": TermSpan(D(2028, 8, 28), D(2028, 12, 10), "typical_dates"),
    }


def test_a_calendar_without_dates_has_no_span() -> None:
    assert _spans(TRIMESTER, "T12027") == {"T12027": None}


def test_harrow_bay_carries_its_published_2026_27_trimesters() -> None:
    calendar = load_catalog(REPO / "demos" / "harrow-bay").calendar
    assert _spans(calendar, "T12026", "T22027", "T32027", "U2027", "T12027") == {
        "T12026": TermSpan(D(2026, 9, 9), D(2026, 11, 20), "dates"),
        "T22027": TermSpan(D(2027, 1, 6), D(2027, 3, 19), "dates"),
        "T32027": TermSpan(D(2027, 3, 31), D(2027, 6, 11), "dates"),
        "U2027": TermSpan(D(2027, 6, 28), D(2027, 8, 20), "dates"),
        # documents/academic-calendar.md: "The Fall Trimester 2027 (T12027) begins on
        # September 8, 2027" - the first Wednesday on or after September 6.
        "T12027": TermSpan(D(2027, 9, 8), D(2027, 11, 23), "typical_dates"),
    }


def _semester(**change: Any) -> dict[str, Any]:
    return {
        "terms": [
            {"code": "S", "name": "Spring", "months": [1, 2, 3, 4, 5]},
            {"code": "U", "name": "Summer", "regular": False, "months": [6, 7, 8]},
            {"code": "F", "name": "Fall", "months": [9, 10, 11, 12]},
        ],
        "academic_year_starts": "F",
        **change,
    }


def _dates(term: str, start: str, end: str) -> dict[str, Any]:
    return {"dates": [{"term": term, "start": start, "end": end}]}


def _typical(start: str, weeks: int = 15, weekday: str | None = "M") -> dict[str, Any]:
    raw = _semester()
    raw["terms"][2]["typical_dates"] = {"start": start, "weekday": weekday, "weeks": weeks}
    return raw


@pytest.mark.parametrize(
    ("raw", "where", "message"),
    [
        (
            _semester(**_dates("F2027", "2027-12-10", "2027-08-30")),
            "dates.0",
            "term F2027: end 2027-08-30 is not after start 2027-12-10; the end is the "
            "term's last day",
        ),
        (
            _semester(**_dates("F2027", "2027-8-30", "2027-12-10")),
            "dates.0.start",
            "'2027-8-30' is not a date; write YYYY-MM-DD, e.g. '2027-08-30'",
        ),
        (
            _semester(**_dates("T12027", "2027-09-08", "2027-11-19")),
            "",
            "dates[0].term 'T12027' is not a term of this calendar; write a code such as "
            "'S2027', 'F2027' (kinds: S, U, F)",
        ),
        (
            _semester(
                dates=[
                    {"term": "F2027", "start": "2027-08-30", "end": "2027-12-10"},
                    {"term": "F2027", "start": "2027-08-31", "end": "2027-12-10"},
                ]
            ),
            "",
            "dates[1].term 'F2027' is listed twice; keep one",
        ),
        (
            # A year typed wrong: no day of it is in the fall months of 2027.
            _semester(**_dates("F2027", "2026-08-31", "2026-12-11")),
            "",
            "dates[0]: F2027 runs 2026-08-31 to 2026-12-11, which has no day in months 9, "
            "10, 11, 12 of 2027; check the year and the kind of term",
        ),
        (
            # Spring dates filed under summer.
            _semester(**_dates("U2027", "2027-01-19", "2027-05-07")),
            "",
            "dates[0]: U2027 runs 2027-01-19 to 2027-05-07, which has no day in months 6, "
            "7, 8 of 2027; check the year and the kind of term",
        ),
        (
            _typical("02-30"),
            "terms.2.typical_dates.start",
            "'02-30' is not a day of the year (MM-DD)",
        ),
        (
            _typical("02-29"),
            "terms.2.typical_dates.start",
            "'02-29' is not a day every year; use '02-28' or '03-01'",
        ),
        (
            _typical("01-10", weeks=4),
            "",
            "term kind F: typical_dates starting 01-10 for 4 weeks have no day in its "
            "months (9, 10, 11, 12); check start and weeks",
        ),
    ],
)
def test_mistyped_term_dates_are_refused_with_the_fix(
    raw: dict[str, Any], where: str, message: str
) -> None:
    with pytest.raises(ValidationError) as info:
        Calendar.model_validate(raw)
    [err] = info.value.errors()
    assert (".".join(map(str, err["loc"])), err["msg"].removeprefix("Value error, ")) == (
        where,
        message,
    )


def test_a_fall_term_that_starts_in_late_august_fits_its_kinds_months() -> None:
    # Real fall semesters begin a week before September; a day in the kind's months is
    # what the check asks for, not every day.
    calendar = Calendar.model_validate(_semester(**_dates("F2027", "2027-08-23", "2027-12-10")))
    assert calendar.span(calendar.parse("F2027")) == TermSpan(
        D(2027, 8, 23), D(2027, 12, 10), "dates"
    )


def _dated(raw: dict[str, Any]) -> dict[str, Any]:
    raw["calendar"] = _semester(**_dates("F2027", "2027-08-30", "2027-12-10"))
    raw["calendar"]["terms"][0]["typical_dates"] = {"start": "01-16", "weekday": "T", "weeks": 16}
    raw["calendar"]["terms"][2]["typical_dates"] = {"start": "09-01", "weeks": 14}
    return raw


def test_term_dates_survive_the_layout(tmp_path: Path) -> None:
    original = parse_catalog(_dated(base_catalog()))
    export_catalog(original, tmp_path / "cat")
    built, data = build_catalog(tmp_path / "cat")
    assert built == original
    assert data == catalog_json(original)
    assert data["calendar"]["dates"] == [
        {"term": "F2027", "start": "2027-08-30", "end": "2027-12-10"}
    ]


def test_unquoted_yaml_dates_read_as_the_dates_they_are(tmp_path: Path) -> None:
    original = parse_catalog(_dated(base_catalog()))
    export_catalog(original, tmp_path / "cat")
    head = tmp_path / "cat" / "institution.yaml"
    text = head.read_text("utf-8")
    assert "start: '2027-08-30'" in text
    head.write_text(text.replace("'2027-08-30'", "2027-08-30"), "utf-8")
    assert build_catalog(tmp_path / "cat")[0] == original


def test_a_mistyped_date_in_the_layout_is_one_problem_naming_the_field(tmp_path: Path) -> None:
    export_catalog(parse_catalog(_dated(base_catalog())), tmp_path / "cat")
    head = tmp_path / "cat" / "institution.yaml"
    head.write_text(head.read_text("utf-8").replace("'2027-12-10'", "2027-07-10"), "utf-8")
    with pytest.raises(LayoutError) as info:
        build_catalog(tmp_path / "cat")
    # The courses are still read with the calendar's kinds: no problem per course.
    assert info.value.problems == [
        "institution.yaml: calendar.dates.0: term F2027: end 2027-07-10 is not after start "
        "2027-08-30; the end is the term's last day - see 'calendar' in "
        "docs/catalog-guide.md"
    ]


def test_the_sample_catalog_publishes_its_calendar_year() -> None:
    raw = json.loads(default_catalog_path().read_text("utf-8"))
    assert [d["term"] for d in raw["calendar"]["dates"]] == ["F2026", "S2027", "U2027", "F2027"]
    assert all("typical_dates" in kind for kind in raw["calendar"]["terms"])

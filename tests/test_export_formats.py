"""The export formats' details: iCalendar text escaping and folding, the first meeting day,
a trimester school's plan (Harrow Bay, term dates from its catalog directory), its class
times in the catalog's time zone and its holidays left out of the weekly series, the
counter-proposal exported when the target is infeasible, and a next-term course whose
section has no meetings."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from dateutil.rrule import rruleset, rrulestr
from icalendar import Calendar as ICalendar

from agents.artifacts import Recommendation
from agents.catalog import Calendar, Catalog, load_catalog
from agents.catalog.loader import default_catalog_path
from agents.writing.export_csv import plan_csv
from agents.writing.export_ics import first_meeting_day, plan_ics
from agents.writing.export_plan import plan_export
from pipeline.cli import main
from pipeline.logs import configure_logging
from pipeline.store import CheckpointStore
from tests.shared_helpers import HARROW, SECTIONS, TOO_LATE, copy_workspace

STAMP = dt.datetime(2026, 11, 20, 15, 30, tzinfo=dt.UTC)


@pytest.fixture(autouse=True)
def _reset_logging() -> Iterator[None]:
    yield
    configure_logging("warning", stream=sys.stderr)


@pytest.fixture
def harrow(plans: Path) -> Path:
    """The session's finished plans (tests/conftest.py), for the tests that only read them."""
    return plans


@pytest.fixture
def exports(plans: Path, tmp_path: Path) -> Path:
    """A copy of them for a test that exports into ``out/``."""
    return copy_workspace(plans, tmp_path / "ws")


def _dirs(root: Path) -> list[str]:
    return ["--state-dir", str(root / "state"), "--out-dir", str(root / "out"),
            "--catalog", str(HARROW)]  # fmt: skip


def _rec(root: Path, rid: str) -> Recommendation:
    ctx = CheckpointStore(root / "state").load(rid)
    assert ctx is not None and ctx.recommendation is not None
    return ctx.recommendation


# --------------------------------------------------------------------------- RFC 5545 text


def test_text_is_escaped_and_long_lines_folded(harrow: Path) -> None:
    rec = _rec(harrow, SECTIONS)
    name = "Zoë O'Brien; Économie, séminaire \\ " * 3  # escaped characters, 2-octet ones
    data = plan_ics(rec.model_copy(update={"student_name": name}), load_catalog(HARROW),
                    stamp=STAMP).encode("utf-8")  # fmt: skip
    physical = data.split(b"\r\n")[:-1]
    assert all(len(p) <= 75 and b"\n" not in p for p in physical)
    raw = b"\r\n".join(physical).replace(b"\r\n ", b"").decode("utf-8")
    written = "Zo\u00eb O'Brien\\; \u00c9conomie\\, s\u00e9minaire \\\\ "
    assert f"X-WR-CALNAME:{written * 3}: plan ({SECTIONS})" in raw
    assert ICalendar.from_ical(data).walk("VEVENT")  # and the whole file parses


@pytest.mark.parametrize(
    ("days", "first"),
    [("MWF", dt.date(2027, 1, 20)), ("TR", dt.date(2027, 1, 19)), ("U", dt.date(2027, 1, 24))],
)
def test_the_first_meeting_is_the_first_meeting_day_on_or_after_the_term_start(
    days: str, first: dt.date
) -> None:
    assert first_meeting_day(dt.date(2027, 1, 19), days) == first  # a Tuesday


# --------------------------------------------------------------------------- Harrow Bay


def test_a_trimester_plan_repeats_until_the_published_end_of_the_trimester(
    exports: Path,
) -> None:
    assert main(["export", SECTIONS, "--format", "ics", *_dirs(exports)]) == 0
    cal = ICalendar.from_ical((exports / "out" / f"{SECTIONS}.ics").read_bytes())
    rec = _rec(exports, SECTIONS)
    assert rec.next_term is not None and rec.next_term.term == "T22027"
    series = [e for e in cal.walk("VEVENT") if "RRULE" in e]
    assert len(series) == sum(len(p.meetings) for p in rec.next_term.sections) > 0
    # documents/academic-calendar.md: T22027 runs from January 6 to March 19, 2027.
    assert {e["RRULE"]["UNTIL"][0] for e in series} == {dt.datetime(2027, 3, 19, 23, 59, 59)}
    starts = [e.decoded("DTSTART").date() for e in series]
    assert min(starts) >= dt.date(2027, 1, 6) and max(starts) < dt.date(2027, 1, 13)
    summaries = [str(e["SUMMARY"]) for e in cal.walk("VEVENT") if "RRULE" not in e]
    assert summaries[0].startswith("Spring Trimester 2027: ")
    assert summaries[0].endswith(" credits")  # the catalog's word for units


def test_an_infeasible_target_exports_the_counter_proposal(
    exports: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = _rec(exports, TOO_LATE)
    assert rec.outcome == "infeasible" and rec.counter_proposal is not None
    assert main(["export", TOO_LATE, "--format", "csv", *_dirs(exports)]) == 0
    target = exports / "out" / f"{TOO_LATE}.csv"
    assert capsys.readouterr().out == (
        f"{TOO_LATE}: wrote {target} (the counter-proposal graduating "
        f"{rec.counter_proposal.graduation_term}: the requested T22027 is not feasible)\n"
    )
    rows = list(csv.DictReader(io.StringIO(target.read_text("utf-8"))))
    planned = [(t.term, c.course) for t in rec.counter_proposal.terms for c in t.courses]
    assert [(r["term"], r["course"]) for r in rows] == planned
    # No sections were picked for it: the counter-proposal plans terms, not sections.
    assert {(r["status"], r["section"], r["days"]) for r in rows} == {("planned", "", "")}


def test_a_next_term_course_without_meetings_is_listed_in_the_terms_event(
    harrow: Path,
) -> None:
    rec = _rec(harrow, SECTIONS)
    assert rec.next_term is not None
    online = rec.next_term.sections[0].model_copy(update={"meetings": ["no meetings"]})
    picks = [online, *rec.next_term.sections[1:]]
    rec = rec.model_copy(update={"next_term": rec.next_term.model_copy(update={"sections": picks})})
    catalog = load_catalog(HARROW)
    cal = ICalendar.from_ical(plan_ics(rec, catalog, stamp=STAMP))
    events = cal.walk("VEVENT")
    [term_event] = [e for e in events if e.decoded("DTSTART") == dt.date(2027, 1, 6)]
    assert rec.plan[0].term == "T22027"
    next_courses = [c.course for c in rec.plan[0].courses]
    assert str(term_event["DESCRIPTION"]).count("\n") == len(next_courses) - 1
    assert online.course in str(term_event["DESCRIPTION"])
    assert {str(e["DTSTAMP"].to_ical().decode()) for e in events} == {"20261120T153000Z"}
    row = next(c for c in plan_export(rec, catalog).courses if c.course == online.course)
    assert (row.section, row.meetings) == (online.section, ())
    assert f",{online.section},,,," in plan_csv(rec, catalog)


# --------------------------------------------------------------------------- zone, holidays

HOLIDAYS = [
    {"name": "Founders' Day", "start": "2027-01-18"},  # a Monday of T22027
    {"name": "Reading week", "start": "2027-02-15", "end": "2027-02-19"},
    {"name": "Canada Day", "start": "2027-07-01"},  # outside the term: no effect
]


def _with(catalog: Catalog, **fields: object) -> Catalog:
    raw = {**catalog.calendar.model_dump(), **fields}
    return catalog.model_copy(update={"calendar": Calendar.model_validate(raw)})


def test_class_times_are_in_the_catalogs_time_zone(harrow: Path) -> None:
    rec = _rec(harrow, SECTIONS)
    catalog = _with(load_catalog(HARROW), timezone="America/Vancouver")
    cal = ICalendar.from_ical(plan_ics(rec, catalog, stamp=STAMP))
    [zone] = cal.walk("VTIMEZONE")
    assert str(zone["TZID"]) == "America/Vancouver"
    assert str(cal["X-WR-TIMEZONE"]) == "America/Vancouver"
    series = [e for e in cal.walk("VEVENT") if "RRULE" in e]
    assert series
    for e in series:
        assert e["DTSTART"].params["TZID"] == "America/Vancouver"
        start = e.decoded("DTSTART")
        assert start.utcoffset() == dt.timedelta(hours=-8)  # PST in January
        # UNTIL is in UTC with a zoned start: the term's last day, 23:59:59 in Vancouver,
        # which is daylight time (UTC-7) by March 19.
        assert e["RRULE"]["UNTIL"] == [dt.datetime(2027, 3, 20, 6, 59, 59, tzinfo=dt.UTC)]
    floating = ICalendar.from_ical(plan_ics(rec, load_catalog(HARROW), stamp=STAMP))
    assert not floating.walk("VTIMEZONE")
    plain = [e.decoded("DTSTART") for e in floating.walk("VEVENT") if "RRULE" in e]
    assert [s.replace(tzinfo=None) for s in (e.decoded("DTSTART") for e in series)] == plain
    assert {s.tzinfo for s in plain} == {None}


@pytest.mark.parametrize("zone", [None, "America/Vancouver"])
def test_holidays_are_left_out_of_the_weekly_series(harrow: Path, zone: str | None) -> None:
    rec = _rec(harrow, SECTIONS)
    catalog = _with(load_catalog(HARROW), timezone=zone, holidays=HOLIDAYS)
    off = {d for h in catalog.calendar.holidays for d in h.days()}
    cal = ICalendar.from_ical(plan_ics(rec, catalog, stamp=STAMP))
    series = [e for e in cal.walk("VEVENT") if "RRULE" in e]
    assert len(series) == sum(len(p.meetings) for p in rec.next_term.sections)  # type: ignore[union-attr]
    excluded = 0
    for e in series:
        start = e.decoded("DTSTART")
        rules = rruleset()
        rules.rrule(rrulestr(e["RRULE"].to_ical().decode(), dtstart=start))
        exdates = e.get("EXDATE", [])
        for listed in exdates if isinstance(exdates, list) else [exdates]:
            for when in listed.dts:
                assert when.dt.date() in off and when.dt.time() == start.time()
                rules.exdate(when.dt)
                excluded += 1
        every = [o.date() for o in rrulestr(e["RRULE"].to_ical().decode(), dtstart=start)]
        kept = [o.date() for o in rules]
        assert not off & set(kept)  # no class on a holiday
        assert set(every) - set(kept) == off & set(every)  # and no other day is lost
        assert start.date() != dt.date(2027, 1, 18) and start.date() >= dt.date(2027, 1, 6)
    assert excluded > 0


def test_a_bad_time_zone_or_holiday_is_a_clear_error() -> None:
    catalog = load_catalog(HARROW)
    with pytest.raises(ValueError, match="'Harrow/Bay' is not an IANA time zone name; write "):
        _with(catalog, timezone="Harrow/Bay")
    with pytest.raises(ValueError, match="holiday 'Break': end 2027-02-01 is before start"):
        _with(catalog, holidays=[{"name": "Break", "start": "2027-02-03", "end": "2027-02-01"}])
    with pytest.raises(ValueError, match="'Feb 3' is not a date; write YYYY-MM-DD"):
        _with(catalog, holidays=[{"name": "Break", "start": "Feb 3"}])


def test_the_zone_and_holidays_are_catalog_format_version_3() -> None:
    raw = json.loads(default_catalog_path().read_text("utf-8"))
    raw["calendar"] |= {"timezone": "America/New_York", "holidays": HOLIDAYS[:1]}
    assert Catalog.model_validate({**raw, "schema_version": 3}).calendar.timezone
    with pytest.raises(ValueError, match=(
        "timezone and holidays are new in catalog format version 3; set schema_version to 3"
    )):  # fmt: skip
        Catalog.model_validate({**raw, "schema_version": 2})

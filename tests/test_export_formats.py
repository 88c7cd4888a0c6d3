"""The export formats' details: iCalendar line folding and text escaping, the first
meeting day, a trimester school's plan (Harrow Bay, term dates from its catalog directory),
the counter-proposal exported when the target is infeasible, and a next-term course whose
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
from icalendar import Calendar as ICalendar

from agents.artifacts import Recommendation
from agents.catalog import load_catalog
from agents.writing.export_csv import plan_csv
from agents.writing.export_ics import escape, first_meeting_day, fold, plan_ics
from agents.writing.export_plan import plan_export
from pipeline.cli import main
from pipeline.logs import configure_logging
from pipeline.store import CheckpointStore

REPO = Path(__file__).resolve().parents[1]
HARROW = REPO / "demos" / "harrow-bay"
SECTIONS = "hb-add-math-minor-csci"  # a T22027 plan with sections
TOO_LATE = "hb-add-data-minor-too-late"  # infeasible by T22027: a counter-proposal
STAMP = dt.datetime(2026, 11, 20, 15, 30, tzinfo=dt.UTC)


@pytest.fixture(autouse=True)
def _reset_logging() -> Iterator[None]:
    yield
    configure_logging("warning", stream=sys.stderr)


@pytest.fixture(scope="module")
def harrow(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("harrow")
    lines = [
        line
        for line in (HARROW / "requests.jsonl").read_text("utf-8").splitlines()
        if json.loads(line)["request_id"] in (SECTIONS, TOO_LATE)
    ]
    (root / "requests.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    code = main(["batch", str(root / "requests.jsonl"), *_dirs(root), "--log-dir",
                 str(root / "logs"), "-q"])  # fmt: skip
    configure_logging("warning", stream=sys.stderr)
    assert code == 0
    return root


def _dirs(root: Path) -> list[str]:
    return ["--state-dir", str(root / "state"), "--out-dir", str(root / "out"),
            "--catalog", str(HARROW)]  # fmt: skip


def _rec(root: Path, rid: str) -> Recommendation:
    ctx = CheckpointStore(root / "state").load(rid)
    assert ctx is not None and ctx.recommendation is not None
    return ctx.recommendation


# --------------------------------------------------------------------------- RFC 5545 text


def test_fold_keeps_lines_within_75_octets_without_splitting_a_character() -> None:
    line = "DESCRIPTION:" + "Économie politique – séminaire; " * 6
    folded = fold(line)
    physical = folded.split("\r\n")
    assert [len(p.encode("utf-8")) <= 75 for p in physical] == [True] * len(physical)
    assert len(physical) == 4
    assert all(p.startswith(" ") for p in physical[1:])
    assert folded.replace("\r\n ", "") == line
    assert fold("SUMMARY:short") == "SUMMARY:short"


def test_escape_writes_text_values_as_rfc5545_requires() -> None:
    assert escape("Lab; room 2, C\\D\nsecond line\r\nthird") == (
        "Lab\\; room 2\\, C\\\\D\\nsecond line\\nthird"
    )


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
    harrow: Path,
) -> None:
    assert main(["export", SECTIONS, "--format", "ics", *_dirs(harrow)]) == 0
    cal = ICalendar.from_ical((harrow / "out" / f"{SECTIONS}.ics").read_bytes())
    rec = _rec(harrow, SECTIONS)
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
    harrow: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = _rec(harrow, TOO_LATE)
    assert rec.outcome == "infeasible" and rec.counter_proposal is not None
    assert main(["export", TOO_LATE, "--format", "csv", *_dirs(harrow)]) == 0
    target = harrow / "out" / f"{TOO_LATE}.csv"
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

"""``advise export``: real requests run offline into a temp dir, then exported as CSV,
iCalendar and PDF; the files are read back (the .ics with the independent ``icalendar``
parser) and compared with the plan, the catalog's sections and its calendar's dates. A
request that is unknown, unfinished or awaiting approval, a term without dates and a
missing browser are refused with what to run or add.

The Chromium PDF test skips only outside CI when Chromium is missing, as
tests/test_browser.py; the PDF laid out without a browser is tests/test_export_pdf.py.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from dateutil.rrule import rrulestr
from icalendar import Calendar as ICalendar

from agents.artifacts import Recommendation
from agents.catalog import Catalog, load_catalog
from agents.catalog.loader import default_catalog_path
from pipeline.cli import main
from pipeline.context import State, WorkflowContext
from pipeline.logs import configure_logging
from pipeline.store import CheckpointStore
from tests.test_browser import _chromium

REPO = Path(__file__).resolve().parents[1]
PLANNED = "overload-low-gpa"  # a four-year CS plan; registered here for 15-213 in S2027
WAITING = "overload-high-gpa"  # stops for the LOAD-OVERLOAD approval
BYDAY = {"M": "MO", "T": "TU", "W": "WE", "R": "TH", "F": "FR", "S": "SA", "U": "SU"}


@pytest.fixture(autouse=True)
def _reset_logging() -> Iterator[None]:
    yield
    configure_logging("warning", stream=sys.stderr)


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A batch of two real requests, run once for the module."""
    root = tmp_path_factory.mktemp("export")
    lines = []
    for line in (REPO / "demos" / "requests.jsonl").read_text("utf-8").splitlines():
        request = json.loads(line)
        if request["request_id"] == PLANNED:
            request["student"]["registered"] = [{"course": "15-213", "term": "S2027"}]
        if request["request_id"] in (PLANNED, WAITING):
            lines.append(json.dumps(request))
    (root / "requests.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    dirs = ["--state-dir", str(root / "state"), "--out-dir", str(root / "out")]
    code = main(["batch", str(root / "requests.jsonl"), *dirs, "--log-dir", str(root / "logs"),
                 "-q"])  # fmt: skip
    configure_logging("warning", stream=sys.stderr)
    assert code == 4  # done, and one awaiting approval
    return root


def _export(ws: Path, rid: str, fmt: str, *extra: str) -> int:
    dirs = ["--state-dir", str(ws / "state"), "--out-dir", str(ws / "out")]
    return main(["export", rid, "--format", fmt, *dirs, *extra])


def _ctx(ws: Path, rid: str = PLANNED) -> WorkflowContext:
    ctx = CheckpointStore(ws / "state").load(rid)
    assert ctx is not None
    return ctx


def _rec(ws: Path) -> Recommendation:
    rec = _ctx(ws).recommendation
    assert rec is not None and rec.next_term is not None and rec.next_term.sections
    return rec


def _meeting(text: str) -> tuple[str, str, str]:
    days, times = text.split(" ")
    start, end = times.split("-")
    return days, start, end


def _expected_rows(rec: Recommendation, catalog: Catalog) -> list[dict[str, str]]:
    """The CSV rows the plan should give, read from the recommendation and catalog."""
    assert rec.next_term is not None
    picks = {p.course: p for p in rec.next_term.sections}
    out = []
    for term in rec.plan:
        for c in term.courses:
            pick = picks.get(c.course) if term.term == rec.next_term.term else None
            meetings = [_meeting(m) for m in pick.meetings] if pick else []
            rooms = [
                m.location or ""
                for s in catalog.course(c.course).sections_in(term.term)
                if pick and s.id == pick.section
                for m in s.meetings
            ]
            registered = (c.course, term.term) == ("15-213", "S2027")
            out.append({
                "term": term.term, "term_name": term.label, "course": c.course,
                "title": c.title, "units": f"{c.units:g}",
                "counts_toward": "; ".join(
                    rec.requirement_titles.get(r, r) for r in c.satisfies
                ),
                "status": "registered" if registered else "planned",
                "section": pick.section if pick else "",
                "days": "; ".join(m[0] for m in meetings),
                "start": "; ".join(m[1] for m in meetings),
                "end": "; ".join(m[2] for m in meetings),
                "location": "; ".join(rooms),
                "requirement_ids": "; ".join(c.satisfies),
            })  # fmt: skip
    return out


def test_csv_has_one_row_per_planned_course_and_the_next_terms_sections(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _export(ws, PLANNED, "csv") == 0
    target = ws / "out" / f"{PLANNED}.csv"
    assert capsys.readouterr().out == f"{PLANNED}: wrote {target}\n"
    data = target.read_bytes()
    assert data.startswith(
        b"term,term_name,course,title,units,counts_toward,status,section,days,start,end,"
        b"location,requirement_ids\r\n"
    )
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
    expected = _expected_rows(_rec(ws), load_catalog())
    assert rows == expected
    # People read titles; the ids are the last column, for tools joining with the JSON.
    ids = {i for r in rows for i in r["requirement_ids"].split("; ")} - {"free elective"}
    assert ids and ids <= set(_rec(ws).requirement_titles)
    assert not ids & {t for r in rows for t in r["counts_toward"].split("; ")}
    assert sum(r["status"] == "registered" for r in rows) == 1
    assert all(r["location"] for r in rows if r["section"])  # the sample has every room
    assert _export(ws, PLANNED, "csv") == 0
    assert target.read_bytes() == data  # deterministic


def _ics(ws: Path) -> tuple[bytes, ICalendar]:
    assert _export(ws, PLANNED, "ics") == 0
    data = (ws / "out" / f"{PLANNED}.ics").read_bytes()
    return data, ICalendar.from_ical(data)


def test_ics_is_rfc5545_text_with_stable_uids_and_the_plans_revision_time(ws: Path) -> None:
    data, cal = _ics(ws)
    assert data.endswith(b"END:VCALENDAR\r\n")
    lines = data.split(b"\r\n")[:-1]
    assert all(b"\n" not in line and b"\r" not in line for line in lines)
    assert max(len(line) for line in lines) <= 75
    assert any(line.startswith(b" ") for line in lines)  # long descriptions are folded
    assert (str(cal["VERSION"]), str(cal["PRODID"])) == (
        "2.0", "-//Advising Pipeline//advise export//EN"
    )  # fmt: skip
    events = cal.walk("VEVENT")
    uids = [str(e["UID"]) for e in events]
    assert len(set(uids)) == len(uids)
    stamp = _ctx(ws).updated_at.astimezone(dt.UTC)
    assert {e.decoded("DTSTAMP") for e in events} == {stamp.replace(microsecond=0)}
    assert _ics(ws)[0] == data  # the same plan exports the same bytes


def test_ics_has_one_weekly_series_per_meeting_within_the_catalogs_term_dates(ws: Path) -> None:
    _data, cal = _ics(ws)
    rec, catalog = _rec(ws), load_catalog()
    assert rec.next_term is not None
    span = catalog.calendar.span(catalog.calendar.parse(rec.next_term.term))
    assert span is not None and (span.start, span.end) == (
        dt.date(2027, 1, 19),
        dt.date(2027, 5, 7),
    )
    series = [e for e in cal.walk("VEVENT") if "RRULE" in e]
    expected = sorted(
        (f"{p.course} {catalog.course(p.course).title}", *_meeting(m))
        for p in rec.next_term.sections
        for m in p.meetings
    )
    found = []
    for e in series:
        start, end, rule = e.decoded("DTSTART"), e.decoded("DTEND"), e["RRULE"]
        assert start.tzinfo is None and "TZID" not in e["DTSTART"].params  # floating time
        days = [d for d, code in BYDAY.items() if code in rule["BYDAY"]]
        assert rule["FREQ"] == ["WEEKLY"]
        assert rule["UNTIL"] == [dt.datetime.combine(span.end, dt.time(23, 59, 59))]
        # The first meeting on or after the term's first day, on one of the BYDAY days.
        assert "MTWRFSU"[start.weekday()] in days
        assert span.start <= start.date() < span.start + dt.timedelta(days=7)
        assert all(
            "MTWRFSU"[(span.start + dt.timedelta(days=n)).weekday()] not in days
            for n in range((start.date() - span.start).days)
        )
        occurrences = list(rrulestr(e["RRULE"].to_ical().decode(), dtstart=start))
        assert occurrences[-1].date() <= span.end < occurrences[-1].date() + dt.timedelta(days=7)
        assert {"MTWRFSU"[o.weekday()] for o in occurrences} == set(days)
        found.append((str(e["SUMMARY"]), "".join(days), f"{start:%H:%M}", f"{end:%H:%M}"))
        assert str(e["LOCATION"])  # every sample section has its room
    assert sorted(found) == expected


def test_ics_lists_each_later_term_as_one_free_all_day_event(ws: Path) -> None:
    _data, cal = _ics(ws)
    rec, calendar = _rec(ws), load_catalog().calendar
    spans = [e for e in cal.walk("VEVENT") if "RRULE" not in e]
    assert rec.next_term is not None
    later = [t for t in rec.plan if t.term != rec.next_term.term and t.courses]
    assert len(spans) == len(later)
    for term, event in zip(later, spans, strict=True):
        span = calendar.span(calendar.parse(term.term))
        assert span is not None
        assert (event.decoded("DTSTART"), event.decoded("DTEND")) == (
            span.start, span.end + dt.timedelta(days=1)
        )  # fmt: skip
        assert str(event["TRANSP"]) == "TRANSPARENT"
        units = sum(c.units for c in term.courses)
        assert str(event["SUMMARY"]) == (
            f"{term.label}: {len(term.courses)} planned courses, {units:g} units"
        )
        described = str(event["DESCRIPTION"]).split("\n")
        assert [d.split(" - ")[0] for d in described] == [
            f"{c.course} {c.title}" for c in term.courses
        ]


@pytest.mark.slow
def test_a_term_without_dates_names_the_term_and_the_catalog_field(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = json.loads(default_catalog_path().read_text("utf-8"))
    for kind in raw["calendar"]["terms"]:
        kind.pop("typical_dates")
    (tmp_path / "undated.json").write_text(json.dumps(raw), "utf-8")
    capsys.readouterr()
    assert _export(ws, PLANNED, "ics", "--catalog", str(tmp_path / "undated.json")) == 2
    published = {"F2026", "S2027", "U2027", "F2027"}
    missing = [t for t in _rec(ws).plan if t.courses and t.term not in published]
    assert [t.term for t in missing] == ["S2028", "F2028", "S2029"]
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"note: '{PLANNED}' was planned with catalog ")
    assert err[1:] == [
        "error: the catalog calendar has no dates for terms S2028 (Spring 2028), F2028 "
        "(Fall 2028), S2029 (Spring 2029), which the plan uses; add each to calendar.dates "
        "as {term: S2028, start: YYYY-MM-DD, end: YYYY-MM-DD}, or give "
        "calendar.terms[0].typical_dates, calendar.terms[2].typical_dates as {start: MM-DD, "
        "weekday: M, weeks: 15} (see 'calendar' in docs/catalog-guide.md)"
    ]


@pytest.mark.slow
def test_pdf_engine_chromium_prints_the_html_report(ws: Path, tmp_path: Path) -> None:
    _chromium()
    target = tmp_path / "pdf" / "plan.pdf"
    assert _export(ws, PLANNED, "pdf", "-o", str(target), "--pdf-engine", "chromium") == 0
    data = target.read_bytes()
    assert data.startswith(b"%PDF-") and b"%%EOF" in data[-1024:]
    assert len(data) > 20_000  # the report's text and fonts, not a blank page
    assert b"Advising recommendation" in data  # the document title, from the report


def test_pdf_without_a_browser_says_how_to_install_one(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hint = (
        "install Chromium (Debian/Ubuntu: apt-get install chromium; macOS: brew install "
        "--cask chromium) or pass --chromium PATH"
    )
    missing = str(tmp_path / "no-such-browser")
    assert _export(ws, PLANNED, "pdf", "--chromium", missing) == 2
    assert capsys.readouterr().err == (
        f"error: --chromium {missing!r} is not an executable file or a command on PATH; {hint}\n"
    )
    monkeypatch.setenv("PATH", str(tmp_path))
    assert _export(ws, PLANNED, "pdf", "--pdf-engine", "chromium") == 2
    assert capsys.readouterr().err == (
        "error: --pdf-engine chromium prints the HTML report with headless Chromium, and none "
        "was found on PATH (looked for chromium, chromium-browser, google-chrome, "
        f"google-chrome-stable); {hint}, or leave out --pdf-engine chromium for the PDF laid "
        "out without a browser\n"
    )


def test_an_unknown_or_unfinished_request_says_what_to_run(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = str(ws / "state")
    assert _export(ws, "nobody", "csv") == 2
    assert capsys.readouterr().err == (
        f"error: no request 'nobody' in {state!r}: run it first ('advise run REQUEST.json' "
        "or 'advise batch FILE'), check the id with 'advise status', or pass the "
        "--state-dir it ran with\n"
    )
    assert _export(ws, WAITING, "ics") == 2
    assert capsys.readouterr().err == (
        f"error: request {WAITING!r} is awaiting approval of LOAD-OVERLOAD; 'advise approve "
        f"{WAITING} LOAD-OVERLOAD --by NAME --reason TEXT' (or 'advise deny ...'), then "
        f"'advise resume {WAITING}', then export\n"
    )
    store = CheckpointStore(tmp_path / "state")
    ctx = _ctx(ws)
    store.save(ctx.model_copy(update={"state": State.critique}))
    args = ["--state-dir", str(tmp_path / "state"), "--out-dir", str(tmp_path / "out")]
    assert main(["export", PLANNED, "--format", "csv", *args]) == 2
    assert capsys.readouterr().err == (
        f"error: request {PLANNED!r} is not finished (next stage: 'critique' in "
        f"{str(tmp_path / 'state')!r}); finish it with 'advise resume {PLANNED}', then export\n"
    )
    store.save(ctx.model_copy(update={"state": State.failed, "failed_stage": State.scheduling}))
    assert main(["export", PLANNED, "--format", "pdf", *args]) == 2
    assert capsys.readouterr().err == (
        f"error: request {PLANNED!r} failed at stage 'scheduling'; it has no plan to export - "
        f"fix the cause ('advise show {PLANNED}') and 'advise resume {PLANNED}', then export\n"
    )
    store.save(ctx)
    assert main(["export", PLANNED, "--format", "pdf", "--pdf-engine", "chromium", *args]) == 2
    html = str(tmp_path / "out" / f"{PLANNED}.html")
    assert capsys.readouterr().err == (
        f"error: no HTML report {html!r} for request {PLANNED!r}: pass the --out-dir it ran "
        f"with, or write it again with 'advise resume {PLANNED} --force'\n"
    )
    assert not (tmp_path / "out").exists()  # nothing is written on a refusal


def test_output_goes_where_o_says(ws: Path, tmp_path: Path) -> None:
    target = tmp_path / "for" / "student.ics"
    assert _export(ws, PLANNED, "ics", "-o", str(target)) == 0
    assert target.read_bytes() == _ics(ws)[0]

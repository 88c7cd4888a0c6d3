"""The catalog's own words in what the pipeline writes (issue #27, item 9): a request run
end to end on Quarry College (quarters, credits counted in courses) gets a report headed
"Quarter plan" with terms of "3 courses" and "1 course", a letter, CSV and iCalendar
exports and CLI output in those words; Harrow Bay (trimesters, credits) gets "Trimester
plan"; no output says "Semester plan" or "units" on either.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pipeline.cli import main
from pipeline.logs import configure_logging
from tests.harrow_helpers import REPO
from tests.test_catalog_words import quarry_raw, quarry_student

PLAN = "quarry-plan"
EARLY = "quarry-too-early"


@pytest.fixture(autouse=True)
def _reset_logging() -> Iterator[None]:
    yield
    configure_logging("warning", stream=sys.stderr)


def _request(request_id: str, passed: int, **more: Any) -> dict[str, Any]:
    return {"request_id": request_id, "student": quarry_student(passed), **more}


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two Quarry requests run once for the module: a student with 4 of 10 courses left
    (QC 107 and the chain QC 108 -> QC 109 -> QC 110: 2, 1 and 1 course a quarter), and a
    first-year's target no load can meet."""
    root = tmp_path_factory.mktemp("words")
    (root / "catalog.json").write_text(json.dumps(quarry_raw()), "utf-8")
    requests = [
        _request(PLAN, 6, text="Plan my degree."),
        _request(EARLY, 0, text="Plan my degree.", target_graduation="S2027"),
    ]
    (root / "requests.jsonl").write_text("".join(json.dumps(r) + "\n" for r in requests))
    main(["batch", str(root / "requests.jsonl"), *_dirs(root), "--log-dir", str(root / "logs"),
          "-q"])  # fmt: skip
    return root


def _dirs(root: Path) -> list[str]:
    return ["--state-dir", str(root / "state"), "--out-dir", str(root / "out"),
            "--catalog", str(root / "catalog.json")]  # fmt: skip


def _out(ws: Path, request_id: str, ext: str) -> str:
    return (ws / "out" / f"{request_id}.{ext}").read_text("utf-8")


def _no_units(text: str) -> None:
    """No 'unit(s)' as a word outside machine-read names: the stylesheet, tags and their
    attributes (class="units"), ids such as total-units."""
    words = re.sub(r"(?s)<style>.*?</style>|<[^>]*>|[\w-]+-units?\b", "", text)
    found = re.search(r"(?s).{0,60}\bunits?\b.{0,20}", words, re.I)
    assert found is None, found.group()


def test_report_is_headed_by_the_term_word_and_counts_courses(ws: Path) -> None:
    html = _out(ws, PLAN, "html")
    md = _out(ws, PLAN, "md")
    assert "Quarter plan" in html and "Semester plan" not in html
    assert '<h3>Fall 2027</h3><p class="units">1 course</p>' in html
    assert re.search(r"^### Winter 2027 \(2 courses\)$", md, re.M)
    assert re.search(r"^### \w+ 20\d\d \(1 course\)$", md, re.M)
    _no_units(html)
    _no_units(md)


def test_letter_speaks_in_courses(ws: Path) -> None:
    letter = json.loads(_out(ws, PLAN, "json"))["letter"]
    assert "(2 courses)" in letter and "(1 course)" in letter
    _no_units(letter)


def test_infeasible_reason_counts_courses_and_quarters(ws: Path) -> None:
    rec = json.loads(_out(ws, EARLY, "json"))
    assert rec["outcome"] == "infeasible"
    text = _out(ws, EARLY, "md")
    assert "10 remaining courses need 4 terms at 3 courses" in text
    _no_units(text)
    _no_units(rec["letter"])


def test_exports_speak_in_courses(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", PLAN, "--format", "ics", *_dirs(ws)]) == 0
    ics = (ws / "out" / f"{PLAN}.ics").read_text("utf-8")
    assert re.search(r"^SUMMARY:Fall 2027: 1 planned course\\, 1 course\r?$", ics, re.M)
    assert "DESCRIPTION:Winter 2027\\, section 1\\nQC 107 Study 107 - 1 course - " in ics
    _no_units(ics)
    assert main(["export", PLAN, "--format", "csv", *_dirs(ws)]) == 0
    header = (ws / "out" / f"{PLAN}.csv").read_text("utf-8").splitlines()[0]
    assert "units" in header  # a machine-read column keeps its name
    capsys.readouterr()


def test_cli_audit_speaks_in_courses(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    student = ws / "student.json"
    student.write_text(json.dumps(quarry_student(9)), "utf-8")
    assert main(["audit", str(student), "--catalog", str(ws / "catalog.json")]) == 0
    out = capsys.readouterr().out
    assert "10 courses required; 9 counted (9 earned" in out
    assert "needs 1 course" in out
    _no_units(out)


def test_harrow_bay_report_is_a_trimester_plan(tmp_path: Path) -> None:
    line = (REPO / "demos" / "harrow-bay" / "requests.jsonl").read_text("utf-8").splitlines()[0]
    request = tmp_path / "request.json"
    request.write_text(line, "utf-8")
    hb = str(REPO / "demos" / "harrow-bay")
    dirs = ["--state-dir", str(tmp_path / "s"), "--out-dir", str(tmp_path / "o"),
            "--log-dir", str(tmp_path / "l"), "--catalog", hb]  # fmt: skip
    main(["run", str(request), *dirs])
    rid = json.loads(line)["request_id"]
    html = (tmp_path / "o" / f"{rid}.html").read_text("utf-8")
    assert "Trimester plan" in html and "Semester plan" not in html

"""What the project writes for people cannot act on their tools (issue #25, item 8): a CSV
cell a spreadsheet would run as a formula is neutralized; nothing printed can drive the
terminal (control characters from a student's name are shown as escapes); with ``--json``
stdout carries only the JSON, whatever a worker prints."""

from __future__ import annotations

import csv
import io
import json
import shutil
import sys
from pathlib import Path

import pytest
import structlog

from agents.catalog import load_catalog
from agents.writing.export_csv import inert, plan_csv
from pipeline.cli import main
from pipeline.logs import configure_logging
from pipeline.store import CheckpointStore
from pipeline.terminal import PrintableStream, one_line, printable, printable_output, raw
from tests.fake_stages import request_dict, write_catalog
from tests.shared_helpers import HARROW, SECTIONS

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

FAKE = ["--catalog", "catalog.json", "--stages", "tests.fake_stages:FAKE", "--quiet"]


@pytest.mark.parametrize(
    ("cell", "shown"),
    [
        ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'),
        ("+1+1", "'+1+1"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=1", "'\t=1"),
        ("Calculus I", "Calculus I"),
        ("T22027", "T22027"),
        ("", ""),
    ],
)
def test_a_cell_a_spreadsheet_would_run_is_written_as_text(cell: str, shown: str) -> None:
    assert inert(cell) == shown


def test_formula_titles_and_locations_from_the_catalog_are_neutralized_in_the_csv(
    plans: Path, tmp_path: Path
) -> None:
    # The plan as ``advise batch --catalog demos/harrow-bay`` made it (tests/conftest.py).
    ctx = CheckpointStore(plans / "state").load(SECTIONS)
    assert ctx is not None and ctx.recommendation is not None and ctx.recommendation.next_term
    rec = ctx.recommendation
    section = rec.next_term.sections[0]  # type: ignore[union-attr]
    hostile = tmp_path / "hostile"  # a catalog whose rooms are formulas
    shutil.copytree(HARROW, hostile)
    sections = (hostile / "sections.csv").read_text("utf-8").splitlines()
    sections = [
        ",".join([*s.split(",")[:6], "@SUM(1+1)", *s.split(",")[7:]])
        if s.startswith(f"{section.course},") else s
        for s in sections
    ]  # fmt: skip
    (hostile / "sections.csv").write_text("\n".join(sections) + "\n", "utf-8")
    titled = [  # and a plan whose course title is one
        t.model_copy(update={"courses": [
            c.model_copy(update={"title": '=HYPERLINK("http://evil")'})
            if c.course == section.course else c
            for c in t.courses
        ]})
        for t in rec.plan
    ]  # fmt: skip
    rec = rec.model_copy(update={"plan": titled})

    rows = list(csv.DictReader(io.StringIO(plan_csv(rec, load_catalog(hostile)))))

    mine = [r for r in rows if r["course"] == section.course]
    assert mine and {r["title"] for r in mine} == {'\'=HYPERLINK("http://evil")'}
    assert "'@SUM(1+1)" in mine[0]["location"]
    assert all(not v.startswith(("=", "+", "-", "@")) for r in rows for v in r.values())


def test_control_characters_are_shown_as_escapes() -> None:
    assert printable("Ana\x1b[31m\r\nB\x07\x9b\tC\n") == (
        "Ana\\u001b[31m\\u000d\nB\\u0007\\u009b\tC\n"
    )


def test_a_value_shown_inside_a_line_stays_on_it() -> None:
    assert one_line("Eve\r\nstate: done\t\x1b") == "Eve\\u000d\\u000astate: done\t\\u001b"


def test_show_and_status_never_print_a_raw_control_character(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    # Paths status prints: control characters, and no rich markup ('[/b]' closes no tag).
    hostile = "[/b]\x1b[31m\r\n"
    catalog = write_catalog(tmp_path / f"c{hostile}", "c.json")
    name = "Eve\x1b]0;pwned\x07\x1b[2J\r\nroot#\x9b"
    student = {**request_dict("x")["student"], "name": name}
    (tmp_path / "in.jsonl").write_text(json.dumps(request_dict("r1", student=student)) + "\n")
    fake = ["--catalog", str(catalog), *FAKE[2:], "--state-dir", hostile]
    assert main(["batch", "in.jsonl", *fake]) == 0
    capsys.readouterr()
    shown: dict[str, str] = {}
    for argv in (["show", "r1"], ["status"], ["status", "--json"], ["show", "r1", "--json"]):
        assert main([*argv, "--state-dir", hostile]) == 0
        out, err = capsys.readouterr()
        assert [c for c in out + err if c in "\x1b\x07\r\x9b"] == [], argv
        shown[" ".join(argv)] = out
    assert shown["show r1"].startswith(  # the name on the report's first line, not two
        "request r1 - Eve\\u001b]0;pwned\\u0007\\u001b[2J\\u000d\\u000aroot#\\u009b (s-1)\n"
    )
    assert shown["status"].startswith("1 checkpoint(s) in [/b]\\u001b[31m\\u000d\n: stale 1\n")
    listed = json.loads(shown["status --json"])["requests"]  # JSON escapes are exact
    assert [r["catalog"] for r in listed] == [str(catalog)]
    whole = json.loads(shown["show r1 --json"])
    assert whole["request"]["student"]["name"] == name


def test_errors_and_console_logs_show_control_characters_as_escapes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with printable_output():
        configure_logging("warning")
        structlog.get_logger("test").warning("hostile Eve\x1b[2J\rX")  # the event as is
        print("error: Eve\x1b[2J\rX", file=sys.stderr)
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\r" not in err
    assert err.count("Eve\\u001b[2J\\u000dX") == 2


def test_the_progress_bar_writes_its_own_escapes_to_the_stream_underneath() -> None:
    underneath = io.StringIO()
    assert raw(PrintableStream(underneath)) is underneath  # type: ignore[arg-type]
    assert raw(underneath) is underneath


def test_json_stdout_carries_only_the_json_whatever_a_worker_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write_catalog(tmp_path)
    lines = [json.dumps(request_dict(f"r{i}", "fake:print")) for i in range(3)]
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    assert main(["batch", "in.jsonl", *FAKE, "--json", "--workers", "2"]) == 0
    out, err = capfd.readouterr()
    assert json.loads(out)["status"] == {"done": 3}
    assert err.count("printed by a stage") == 6  # Python's print and a write to fd 1

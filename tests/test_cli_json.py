"""``--json`` on the commands that lacked it: ``student import``, ``catalog export`` and
``migrate``, ``export`` (in tests/test_workspace_config.py) and ``diagram``: one JSON object
on stdout, nothing else, with what the text said."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.cli import main

ROOT = Path(__file__).resolve().parents[1]
TRANSCRIPT = ROOT / "demos" / "transcripts" / "cs-junior-ap.xml"


def test_student_import_json_holds_the_record_or_names_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["student", "import", str(TRANSCRIPT), "--json"]) == 0
    printed = capsys.readouterr()
    got = json.loads(printed.out)
    assert printed.err == ""
    assert got["output"] is None and got["clean"] is True and got["left_out"] == []
    assert got["summary"].startswith(f"{got['record']['id']} ({got['record']['name']})")
    assert got["derived"] and all(isinstance(line, str) for line in got["derived"])
    target = tmp_path / "student.json"
    assert main(["student", "import", str(TRANSCRIPT), "--json", "-o", str(target)]) == 0
    written = json.loads(capsys.readouterr().out)
    assert (written["output"], written["record"]) == (str(target), None)
    assert json.loads(target.read_text(encoding="utf-8")) == got["record"]


def test_catalog_export_and_migrate_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundled = ROOT / "agents" / "data" / "catalog.json"
    out = tmp_path / "layout"
    assert main(["catalog", "export", str(bundled), str(out), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert (got["directory"], got["source"]) == (str(out), str(bundled))
    assert sorted(got["files"]) == sorted(str(p) for p in out.rglob("*") if p.is_file())
    assert main(["catalog", "migrate", str(out), "--json"]) == 0
    migrated = json.loads(capsys.readouterr().out)
    assert (migrated["source"], migrated["output"]) == (str(out), None)
    assert isinstance(migrated["done"], list) and migrated["done"]


def test_diagram_json_is_the_mermaid_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagram"]) == 0
    text = capsys.readouterr().out
    assert main(["diagram", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"mermaid": text.removesuffix("\n")}

"""The pipeline commands of ``advise``: run, batch, resume, status, show, diagram - their
output, exit codes and error messages (fake stages, in process)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pipeline.cli import build_parser, main
from pipeline.logs import configure_logging
from tests.fake_stages import request_dict, write_catalog


@pytest.fixture(autouse=True)
def _reset_logging() -> Iterator[None]:
    yield
    configure_logging("warning", stream=sys.stderr)


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A workspace: the test catalog, and state/out/logs created by the commands."""
    write_catalog(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FAKE_STAGE_LOG", str(tmp_path / "stages.jsonl"))
    return tmp_path


ENGINE = ["--catalog", "catalog.json", "--stages", "tests.fake_stages:FAKE"]


def _write(path: Path, value: Any) -> str:
    path.write_text(json.dumps(value), encoding="utf-8")
    return str(path)


def test_run_writes_outputs_and_prints_the_outcome(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    req = _write(ws / "r1.json", request_dict("r1", "fake:reject=1"))
    assert main(["run", req, *ENGINE]) == 0
    assert capsys.readouterr().out == "r1: approved after 2 round(s) -> out/r1.json\n"
    assert sorted(p.name for p in (ws / "out").iterdir()) == ["r1.html", "r1.json", "r1.md"]
    [log] = list((ws / "logs").iterdir())
    assert log.name.startswith("run-r1-") and log.suffix == ".jsonl"
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    stage_events = [e for e in events if e["event"] == "stage.done"]
    assert [e["stage"] for e in stage_events][:3] == ["intake", "requirements", "scheduling"]
    assert all({"request_id", "stage", "duration_ms", "outcome"} <= e.keys() for e in stage_events)


def test_run_json_and_failed_exit_code(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    req = _write(ws / "r1.json", request_dict("r1", "fake:fail=synthesis"))
    assert main(["run", req, *ENGINE, "--json"]) == 1
    assert json.loads(capsys.readouterr().out) == {
        "id": "r1",
        "state": "failed",
        "outcome": None,
        "rounds": 1,
        "outputs": [],
        "error": "synthesis: fake synthesis failure for 'r1'",
        "degraded": {},
    }


def test_run_missing_file_is_a_usage_error(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "nope.json", *ENGINE]) == 2
    assert capsys.readouterr().err == (
        "error: request file 'nope.json' does not exist; pass a PlanRequest JSON file\n"
    )


def test_run_invalid_request_names_the_field(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = request_dict("r1")
    bad["student"]["current_term"] = "Fall 26"  # 'Fall 2026' is read as F2026 (#30)
    req = _write(ws / "bad.json", bad)
    assert main(["run", req, *ENGINE]) == 2
    assert capsys.readouterr().err.startswith(
        f"error: {req}: $.student.current_term: 'Fall 26' is not a term code; write a kind and "
    )


def test_batch_prints_a_table_and_exits_1_when_some_fail(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [request_dict("b1"), request_dict("b2", "fake:fail=intake"), {"request_id": "b3"}]
    (ws / "in.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    assert main(["batch", "in.jsonl", *ENGINE]) == 1
    out = capsys.readouterr().out
    assert "status done" in out and "status failed" in out and "status invalid" in out
    assert "failed: b2 (line 2): intake: FakeStageError: fake intake failure for 'b2'" in out
    assert (
        "invalid: b3 (line 3): $.student: required field missing; add 'student' (the student's "
        "academic record)" in out
    )

    assert main(["batch", "in.jsonl", *ENGINE, "--json"]) == 1
    summary = json.loads(capsys.readouterr().out)
    assert summary["status"] == {"failed": 1, "invalid": 1, "skipped": 1}
    assert summary["exit_code"] == 1


def test_batch_missing_input_exits_2(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["batch", "missing.jsonl", *ENGINE]) == 2
    assert capsys.readouterr().err == (
        "error: batch input 'missing.jsonl' does not exist; pass a JSONL file, a directory of "
        "JSON files, or '-' to read JSON lines from stdin\n"
    )


def test_status_show_and_resume(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [request_dict("s1", "fake:reject=1"), request_dict("s2", "fake:fail=critique")]
    (ws / "in.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    main(["batch", "in.jsonl", *ENGINE, "--json"])
    capsys.readouterr()

    assert main(["status", "--json", *ENGINE]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["counts"] == {"done": 1, "failed": 1}
    assert [(r["id"], r["state"], r["failed_stage"]) for r in status["requests"]] == [
        ("s1", "done", None),
        ("s2", "failed", "critique"),
    ]
    assert main(["status", *ENGINE]) == 0
    assert capsys.readouterr().out.startswith("2 checkpoint(s) in state: done 1, failed 1\n")

    assert main(["show", "s1"]) == 0
    shown = capsys.readouterr().out
    assert "state done, outcome approved, round 2" in shown
    assert "critique rejected -> revised" in shown
    assert "change max_units_per_term: 63.0 -> 45.0 (LOAD-MAX: load)" in shown
    assert main(["show", "s1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["negotiation"][1]["resolution"] == "approved"

    assert main(["resume", "s2", *ENGINE]) == 1
    assert "s2: failed at critique: fake critique failure for 's2'" in capsys.readouterr().out
    assert main(["resume", "--all", *ENGINE, "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["status"] == {"failed": 1}


def test_status_lists_broken_checkpoints_as_unreadable_and_leaves_them(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = ws / "state"
    state.mkdir()
    (state / "u1.json").write_text("{", encoding="utf-8")
    (state / "u2.json").write_text(
        '{"state": "weird", "round": "r", "updated_at": "2026-01-02T03:04:05Z"}', "utf-8"
    )
    assert main(["status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "counts": {"unreadable": 2},
        "requests": [
            {"id": "u1", "state": "unreadable", "outcome": None, "round": None,
             "failed_stage": None, "updated_at": "", "catalog": "(not recorded)"},
            {"id": "u2", "state": "unreadable", "outcome": None, "round": None,
             "failed_stage": None, "updated_at": "2026-01-02 03:04:05",
             "catalog": "(not recorded)"},
        ],
        "outputs_missing": [],
    }  # fmt: skip
    assert sorted(p.name for p in state.iterdir()) == ["u1.json", "u2.json"]


def test_resume_errors(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resume", *ENGINE]) == 2
    assert capsys.readouterr().err == (
        "error: give a request id or --all (not both); see 'advise status'\n"
    )
    assert main(["resume", "ghost", *ENGINE]) == 2
    assert capsys.readouterr().err == (
        "error: no checkpoint for request 'ghost' in 'state'; check the id with "
        "'advise status' or pass --state-dir\n"
    )
    assert main(["show", "../x"]) == 2
    assert capsys.readouterr().err.startswith("error: unsafe request id '../x': ")


def test_corrupt_checkpoint_on_show_exits_1(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (ws / "state").mkdir()
    (ws / "state" / "c1.json").write_text("{", encoding="utf-8")
    assert main(["show", "c1"]) == 1
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("error: checkpoint 'state/c1.json' is corrupt (not valid JSON: ")
    assert last.endswith(
        "moved it aside to 'state/c1.json.corrupt-1' - rerun to start the "
        "request from the beginning"
    )


def test_diagram_prints_mermaid(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagram"]) == 0
    out = capsys.readouterr().out
    assert "stateDiagram-v2" in out
    assert "critique --> refinement: advance [wants_refinement & !awaits_approval]" in out
    assert "awaiting_approval --> critique: decide [decided]" in out


@pytest.mark.parametrize("command", ["run", "batch", "resume", "status", "show", "diagram"])
def test_every_command_help_has_an_example(command: str) -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    text = sub.choices[command].format_help()  # type: ignore[attr-defined]
    assert "example" in text
    assert f"advise {command}" in text


def test_logs_never_hold_a_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import structlog

    monkeypatch.setenv("GEMINI_API_KEY", "AIzaSy-test-secret-123")
    path = tmp_path / "logs" / "run.jsonl"
    configure_logging("error", json_path=path)
    structlog.get_logger("pipeline.test").info(
        "llm.call",
        request_id="r1",
        api_key="AIzaSy-test-secret-123",
        headers={"x-goog-api-key": "abc", "Authorization": "Bearer xyz"},
        url="https://example.invalid/v1?key=AIzaSy-test-secret-123",
        input_tokens=12,
        tokens=30,
    )
    [event] = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    event.pop("timestamp")
    assert event == {
        "event": "llm.call",
        "level": "info",
        "logger": "pipeline.test",
        "request_id": "r1",
        "api_key": "[REDACTED]",
        "headers": {"x-goog-api-key": "[REDACTED]", "Authorization": "[REDACTED]"},
        "url": "https://example.invalid/v1?key=[REDACTED]",
        "input_tokens": 12,
        "tokens": 30,
    }

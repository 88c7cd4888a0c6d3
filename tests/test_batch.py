"""The batch driver: streamed input from JSONL, a directory or stdin; invalid and duplicate
requests recorded while the others go on; reruns skip finished requests and resume the
rest; worker processes; the summary file and the exit code."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from pipeline.batch import run_batch
from pipeline.batch_input import input_items, iter_input
from pipeline.errors import ExitCode, RequestInputError
from pipeline.jobs import RunOptions
from pipeline.results import JobResult, percentile
from pipeline.runner import GracefulStop
from tests.fake_stages import Harness, request_dict

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

FAKE_SPEC = "tests.fake_stages:FAKE"


def _opts(h: Harness, **kw: Any) -> RunOptions:
    return RunOptions(
        state_dir=h.store.root, out_dir=h.out, catalog=str(h.catalog), stages=FAKE_SPEC, **kw
    )


def _summary(h: Harness) -> list[dict[str, Any]]:
    lines = (h.out / "batch-summary.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    for row in rows:
        assert isinstance(row.pop("ms"), float)
    return rows


def _jsonl(path: Path, lines: list[Any]) -> Path:
    text = "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines)
    path.write_text(text, encoding="utf-8")
    return path


def _row(rid: str | None, source: str, status: str, **kw: Any) -> dict[str, Any]:
    row = {"id": rid, "source": source, "status": status, "state": None, "outcome": None}
    row |= {"rounds": None, "llm_calls": None, "tokens": None, "error": None}
    return row | kw


def _done(rid: str, line: int, outcome: str = "approved", rounds: int = 1) -> dict[str, Any]:
    return _row(rid, f"line {line}", "done", state="done", outcome=outcome, rounds=rounds) | {
        "llm_calls": 0,
        "tokens": 0,
    }


def test_invalid_and_duplicate_requests_are_recorded_and_the_rest_go_on(h: Harness) -> None:
    bad_gpa = request_dict("r2")
    bad_gpa["student"]["gpa"] = 5
    path = _jsonl(
        h.root / "in.jsonl",
        [
            request_dict("r1"),
            bad_gpa,
            '{"request_id": ',
            "",
            request_dict("r1", "again"),
            request_dict("r3", "fake:reject=1"),
            request_dict("r4", "fake:fail=critique"),
        ],
    )
    report = run_batch(iter_input(str(path)), _opts(h), stop=GracefulStop())
    assert _summary(h) == [
        _done("r1", 1),
        _row("r2", "line 2", "invalid", error="$.student.gpa: expected a number <= 4.3, got 5"),
        _row(None, "line 3", "invalid", error="not valid JSON at column 15: Expecting value"),
        _row("r1", "line 5", "invalid", error="duplicate request id 'r1' (first at line 1)"),
        _done("r3", 6, rounds=2),
        _row(
            "r4",
            "line 7",
            "failed",
            state="failed",
            rounds=1,
            llm_calls=0,
            tokens=0,
            error="critique: FakeStageError: fake critique failure for 'r4'",
        ),
    ]
    assert report.status == {"done": 2, "invalid": 3, "failed": 1}
    assert report.outcomes == {"approved": 2}
    assert report.exit_code is ExitCode.FAILED
    assert report.invalid[0] == "r2 (line 2): $.student.gpa: expected a number <= 4.3, got 5"
    assert sorted(p.name for p in h.out.iterdir()) == [
        "batch-summary.jsonl",
        "index.html",
        "r1.html",
        "r1.json",
        "r1.md",
        "r3.html",
        "r3.json",
        "r3.md",
        "summaries",
    ]


def test_summary_lines_keep_their_keys_in_order(h: Harness) -> None:
    path = _jsonl(h.root / "in.jsonl", [request_dict("k1"), "{"])
    run_batch(iter_input(str(path)), _opts(h), stop=GracefulStop())
    lines = (h.out / "batch-summary.jsonl").read_text(encoding="utf-8").splitlines()
    keys = ["id", "source", "status", "state", "outcome", "rounds", "llm_calls", "tokens"]
    assert [list(json.loads(line)) for line in lines] == [[*keys, "ms", "error"]] * 2
    assert lines[1] == (
        '{"id": null, "source": "line 2", "status": "invalid", "state": null, "outcome": null, '
        '"rounds": null, "llm_calls": null, "tokens": null, "ms": 0.0, '
        '"error": "not valid JSON at column 2: Expecting property name enclosed in double quotes"}'
    )


def test_job_result_refuses_unknown_fields_and_statuses() -> None:
    with pytest.raises(ValidationError) as err:
        JobResult(id="r1", source="line 1", status="done", stage="intake")  # type: ignore[call-arg]
    assert err.value.errors()[0]["msg"] == "Extra inputs are not permitted"
    with pytest.raises(ValidationError):
        JobResult(id="r1", source="line 1", status="finished")  # type: ignore[arg-type]


class StopWhen:
    def __init__(self, h: Harness, marker: str) -> None:
        self.h = h
        self.marker = marker

    def is_set(self) -> bool:
        return self.marker in [f"{e['id']}:{e['stage']}" for e in _side(self.h)]


def _side(h: Harness) -> list[dict[str, Any]]:
    from tests.fake_stages import read_side_log

    return read_side_log(h.side_log)


def test_rerun_skips_finished_requests_and_resumes_unfinished_ones(h: Harness) -> None:
    path = _jsonl(h.root / "in.jsonl", [request_dict(f"r{i}") for i in range(1, 4)])
    first = run_batch(iter_input(str(path)), _opts(h), stop=StopWhen(h, "r2:scheduling"))
    assert first.status == {"done": 1, "interrupted": 1}
    assert first.exit_code is ExitCode.INTERRUPTED

    second = run_batch(iter_input(str(path)), _opts(h), stop=GracefulStop())
    assert [(r["id"], r["status"]) for r in _summary(h)] == [
        ("r1", "skipped"),
        ("r2", "done"),
        ("r3", "done"),
    ]
    assert second.exit_code is ExitCode.OK
    runs = [f"{e['id']}:{e['stage']}" for e in _side(h)]
    assert runs.count("r1:intake") == 1
    assert runs.count("r2:scheduling") == 1
    assert runs.count("r2:critique") == 1

    third = run_batch(iter_input(str(path)), _opts(h), stop=GracefulStop())
    assert third.status == {"skipped": 3}
    assert _summary(h)[0] == _row(
        "r1", "line 1", "skipped", state="done", outcome="approved", rounds=1
    ) | {"llm_calls": 0, "tokens": 0}


def test_directory_of_json_files_is_a_batch(h: Harness) -> None:
    d = h.root / "requests"
    d.mkdir()
    (d / "b.json").write_text(json.dumps(request_dict("rb")), encoding="utf-8")
    (d / "a.json").write_text(json.dumps(request_dict("ra")), encoding="utf-8")
    (d / "notes.txt").write_text("ignored", encoding="utf-8")
    items, total = input_items(str(d))
    assert total == 2
    run_batch(items, _opts(h), stop=GracefulStop())
    assert [(r["id"], r["source"], r["status"]) for r in _summary(h)] == [
        ("ra", "a.json", "done"),
        ("rb", "b.json", "done"),
    ]


def test_stdin_is_read_line_by_line(h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    data = (json.dumps(request_dict("s1")) + "\n\xff\n").encode("latin-1")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    items, total = input_items("-")
    assert total is None
    run_batch(items, _opts(h), stop=GracefulStop())
    assert [(r["id"], r["status"], r["error"]) for r in _summary(h)] == [
        ("s1", "done", None),
        (
            None,
            "invalid",
            "not UTF-8 text (byte 0xff at byte 1 of the line); save the file as UTF-8",
        ),
    ]


def test_missing_input_is_a_clear_error() -> None:
    with pytest.raises(RequestInputError) as err:
        input_items("no/such/requests.jsonl")
    assert str(err.value) == (
        "batch input 'no/such/requests.jsonl' does not exist; pass a JSONL file, a directory "
        "of JSON files, or '-' to read JSON lines from stdin"
    )


def test_two_workers_run_every_request_exactly_once(h: Harness) -> None:
    path = _jsonl(
        h.root / "in.jsonl",
        [request_dict(f"w{i}", "fake:reject=1" if i % 2 else "") for i in range(8)],
    )
    report = run_batch(iter_input(str(path)), _opts(h, workers=2), stop=GracefulStop())
    assert report.status == {"done": 8}
    runs = [(e["id"], e["stage"], e["round"]) for e in _side(h)]
    assert len(runs) == len(set(runs)) == 4 * 5 + 4 * 8
    assert len({e["pid"] for e in _side(h)}) <= 2
    assert report.peak_rss_mb_worker > 0


def test_percentile_is_nearest_rank() -> None:
    assert percentile([], 50) == 0.0
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 50) == 3.0
    assert percentile([float(i) for i in range(1, 101)], 95) == 95.0

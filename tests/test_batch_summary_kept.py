"""Issue #12, defect 3: a batch summary never loses the lines of earlier work.

``advise resume --all`` used to truncate ``out/batch-summary.jsonl`` to 0 lines and two
batches overwrote each other's summary. Now every batch run writes its own
``out/summaries/<run-id>.jsonl`` and ``out/batch-summary.jsonl`` is rewritten atomically
from all of them, the latest line per request id winning (real files, the CLI entry point,
fake stages).
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
from pipeline.summaries import merge_summaries
from tests.fake_stages import request_dict, write_catalog

ENGINE = ["--catalog", "catalog.json", "--stages", "tests.fake_stages:FAKE"]
RUN_ID = re.compile(r"^\d{8}T\d{12}Z-[0-9a-f]{6}\.jsonl$")


@pytest.fixture(autouse=True)
def _reset_logging() -> Iterator[None]:
    yield
    configure_logging("warning", stream=sys.stderr)


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write_catalog(tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _jsonl(path: Path, requests: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in requests), encoding="utf-8")
    return str(path)


def _rows(path: Path) -> list[tuple[Any, ...]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [(r["id"], r["status"]) for r in map(json.loads, lines)]


def _batch(capsys: pytest.CaptureFixture[str], *args: str) -> int:
    code = main([*args, *ENGINE, "--json"])
    capsys.readouterr()
    return code


def test_resume_all_with_nothing_to_do_keeps_the_summary(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = _jsonl(ws / "in.jsonl", [request_dict("a1"), request_dict("a2")])
    assert _batch(capsys, "batch", batch) == 0
    summary = ws / "out" / "batch-summary.jsonl"
    assert _rows(summary) == [("a1", "done"), ("a2", "done")]

    assert _batch(capsys, "resume", "--all") == 0  # nothing unfinished
    assert _rows(summary) == [("a1", "done"), ("a2", "done")]  # was: 0 lines


def test_resume_all_updates_only_the_requests_it_resumed(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = _jsonl(ws / "in.jsonl", [request_dict("a1"), request_dict("a2", "fake:fail=critique")])
    assert _batch(capsys, "batch", batch) == 1
    summary = ws / "out" / "batch-summary.jsonl"
    assert _rows(summary) == [("a1", "done"), ("a2", "failed")]
    assert _batch(capsys, "resume", "--all") == 1  # a2 fails again
    assert _rows(summary) == [("a1", "done"), ("a2", "failed")]
    [first, second] = sorted((ws / "out" / "summaries").glob("*.jsonl"))
    assert _rows(first) == [("a1", "done"), ("a2", "failed")]
    assert _rows(second) == [("a2", "failed")]


def test_two_batches_keep_each_others_lines(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = _jsonl(ws / "one.jsonl", [request_dict("a1"), request_dict("a2")])
    two = _jsonl(ws / "two.jsonl", [request_dict("b1"), request_dict("a2")])
    assert _batch(capsys, "batch", one) == 0
    assert _batch(capsys, "batch", two) == 0
    # a2's latest line (the second batch: skipped) wins; a1 from the first batch is kept.
    assert _rows(ws / "out" / "batch-summary.jsonl") == [
        ("a1", "done"),
        ("a2", "skipped"),
        ("b1", "done"),
    ]
    runs = sorted(p.name for p in (ws / "out" / "summaries").iterdir() if p.suffix == ".jsonl")
    assert len(runs) == 2 and all(RUN_ID.match(name) for name in runs)


def test_each_run_names_its_own_summary_file(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    batch = _jsonl(ws / "in.jsonl", [request_dict("a1")])
    main(["batch", batch, *ENGINE])
    out = capsys.readouterr().out
    [run] = (ws / "out" / "summaries").glob("*.jsonl")
    assert f"summary: out/batch-summary.jsonl (this run: out/summaries/{run.name})" in (
        out.replace("\n", "")
    )


def test_merge_picks_up_a_run_that_was_killed_and_skips_its_torn_line(ws: Path) -> None:
    runs = ws / "out" / "summaries"
    runs.mkdir(parents=True)
    line = {"id": "k1", "source": "line 1", "status": "done"}
    (runs / "20260101T000000000000Z-aaaaaa.jsonl").write_text(
        json.dumps(line) + '\n{"id": "k2", "sou', encoding="utf-8"
    )
    merged = merge_summaries(ws / "out")
    assert _rows(merged) == [("k1", "done")]
    assert not list((ws / "out").glob(".*.tmp"))


def test_a_summary_from_before_per_run_files_is_kept(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (ws / "out").mkdir()
    old = {"id": "old1", "source": "line 1", "status": "done"}
    (ws / "out" / "batch-summary.jsonl").write_text(json.dumps(old) + "\n", encoding="utf-8")
    assert _batch(capsys, "batch", _jsonl(ws / "in.jsonl", [request_dict("a1")])) == 0
    assert _rows(ws / "out" / "batch-summary.jsonl") == [("old1", "done"), ("a1", "done")]

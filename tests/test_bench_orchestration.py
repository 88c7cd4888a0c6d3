"""The orchestration benchmark (``eval.bench_orchestration``): the project's engine and store
beside LangGraph with SqliteSaver on the same recorded stage sequence; without LangGraph it
says which extra to install (and the benchmark's own test is skipped)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from eval import bench_orchestration

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

STAGES = ["intake", "requirements", "scheduling", "critique", "synthesis"]


def test_without_langgraph_the_benchmark_names_the_extra_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "langgraph.graph", None)
    assert bench_orchestration.main(["--requests", "1", "--repeats", "1"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "error: the orchestration benchmark needs LangGraph and its SQLite checkpointer: "
        "pip install -e '.[bench]'  (langgraph, langgraph-checkpoint-sqlite); missing "
        "module: 'langgraph.graph'\n"
    )


@pytest.mark.slow
def test_the_engines_run_the_same_recorded_stages_and_are_compared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("langgraph.graph", reason="the bench extra is not installed")
    pytest.importorskip("langgraph.checkpoint.sqlite", reason="the bench extra is not installed")
    argv = ["--requests", "2", "--repeats", "1", "--scenario", "approved", "--no-no-fsync-too",
            "--dir", str(tmp_path), "--json"]  # fmt: skip
    assert bench_orchestration.main(argv) == 0
    result = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert (result["requests"], result["repeats"]) == (2, 1)
    entry = result["scenarios"]["approved"]
    # The recorded path (a solver's wall-clock safety net firing on a loaded machine can
    # change it); both engines replay it or the benchmark stops with the difference.
    assert entry["request"] == "add-cs-minor"
    assert entry["stage_runs"][:4] == STAGES[:4] and entry["stage_runs"][-1] == "synthesis"
    assert "no_fsync" not in entry
    figures = entry["fsync"]
    assert figures["langgraph_pragmas"] == {"journal_mode": "wal", "synchronous": 2}
    for name in bench_orchestration.ENGINES:
        assert figures[name]["wall_ms"] > 0 and figures[name]["cpu_ms"] > 0
    assert figures["langgraph_fastest"] in bench_orchestration.LANGGRAPH
    assert figures["ratio_wall_vs_fastest"] == round(
        figures["project"]["wall_ms"] / figures[figures["langgraph_fastest"]]["wall_ms"], 3
    )
    # A journal line per stage, the compacted checkpoint once: far less than 5 whole files.
    project = figures["project"]
    assert abs(project["checkpoint_bytes"] - entry["final_checkpoint_bytes"]) < 100  # ids, ms
    assert project["bytes_written_per_request"] < 3 * project["checkpoint_bytes"]
    assert list(tmp_path.iterdir()) == []  # the temporary state is gone

"""Crash safety around the approval stop, with real subprocesses and the real stages: a run
waiting for approval, approved, then ``advise resume`` SIGKILLed at random moments and run
again, loses nothing - the decision stays recorded, no stage before the critique runs
again, and the outputs equal those of an uninterrupted approve-and-resume."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.context import State
from pipeline.logs import configure_logging
from pipeline.store import CheckpointStore

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

REPO = Path(__file__).resolve().parents[1]
RID = "overload-high-gpa"
APPROVE = ["approve", RID, "LOAD-OVERLOAD", "--by", "Dr. Rivera", "--reason", "strong record"]


def _request() -> str:
    for line in (REPO / "demos" / "requests.jsonl").read_text(encoding="utf-8").splitlines():
        if json.loads(line)["request_id"] == RID:
            return line
    raise AssertionError("demos/requests.jsonl lost overload-high-gpa")


def _advise(ws: Path, *args: str, logs: bool = False) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli", *args],
        cwd=ws,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE if logs else subprocess.DEVNULL,
        start_new_session=True,
    )


def _kill_after(proc: subprocess.Popen[bytes], event: bytes, delay: float) -> bool:
    """SIGKILL ``proc`` ``delay`` s after its log shows ``event``; False if it ended first."""
    assert proc.stderr is not None
    for line in proc.stderr:
        if event in line:
            time.sleep(delay)
            break
    killed = proc.poll() is None
    if killed:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stderr.close()
    return killed


def _outputs(ws: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((ws / "out").glob(f"{RID}.*"))}


def _reference(ws: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    ws.mkdir()
    (ws / "req.json").write_text(_request(), encoding="utf-8")
    monkeypatch.chdir(ws)
    try:
        assert main(["run", "req.json"]) == 4
        assert main(APPROVE) == 0
        assert main(["resume", RID]) == 0
    finally:
        configure_logging("warning", stream=sys.stderr)
    return _outputs(ws)


def test_resume_killed_after_an_approval_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reference = _reference(tmp_path / "reference", monkeypatch)
    ws = tmp_path / "crash"
    ws.mkdir()
    (ws / "req.json").write_text(_request(), encoding="utf-8")
    assert _advise(ws, "run", "req.json").wait() == 4
    assert _advise(ws, *APPROVE).wait() == 0
    store = CheckpointStore(ws / "state")
    rng = random.Random(20261123)
    kills = 0
    # Kill points: just after the decision moved the run on, in or after the critique,
    # in the synthesis or while the outputs are written.
    for event in (b"run.decided", b"run.decided", b"stage.done", b"stage.done"):
        proc = _advise(ws, "resume", RID, "-v", logs=True)
        kills += _kill_after(proc, event, rng.uniform(0.0, 0.06))
        ctx = store.load(RID)  # never half-written
        assert ctx is not None
        assert [(a.decision, a.by) for a in ctx.approvals] == [("approved", "Dr. Rivera")]
        if ctx.state is State.done:
            break
        assert ctx.state in (State.awaiting_approval, State.critique, State.synthesis)
    assert kills >= 1, "every resume finished before its kill; the test proved nothing"
    assert _advise(ws, "resume", RID).wait() == 0
    ctx = store.load(RID)
    assert ctx is not None and ctx.state is State.done
    assert {s.value: n for s, n in ctx.attempts.items()}["intake"] == 1
    assert [ctx.attempts[s] for s in (State.requirements, State.scheduling)] == [1, 1]
    assert _outputs(ws) == reference

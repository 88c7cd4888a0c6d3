"""The Ray engine (``advise batch --engine ray``) on a local Ray instance: the same outputs
as worker processes, byte for byte; a Ray worker SIGKILLed in the middle of a request is
restarted and the request resumed from its checkpoint (done once, identical outputs); the
JSON-lines log carries the request, node and worker ids; without Ray, a clear error.

Ray batches run as real ``advise batch`` subprocesses (each starts and stops its own local
Ray instance, as a user's would); the reference runs are in-process worker-process runs.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agents.case import Case
from pipeline.batch import run_batch
from pipeline.batch_input import iter_input
from pipeline.context import State
from pipeline.jobs import RunOptions
from pipeline.runner import GracefulStop
from tests.fake_stages import FAKE, read_side_log, request_dict, write_catalog
from tests.shared_helpers import DemoBatch
from tests.test_crash_safety import _committed

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

REPO = Path(__file__).resolve().parents[1]
SPY_SPEC = "tests.test_ray_engine:SPY"
# fake:print: a stage that prints to stdout, which must not reach the driver's --json stdout
TEXTS = ["fake:print", "fake:reject=1", "fake:reject=2", "fake:conditional fake:norevise",
         "fake:reject=9"]  # fmt: skip
RAY_ID = re.compile(r"[0-9a-f]{40,}")

needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None,
    reason="ray is not installed (optional extra; CI installs it): pip install -e '.[ray]'",
)


class _SpyIntake:
    """The fake intake, noting which process and ``ADVISE_WORKER_ID`` ran it."""

    def run(self, case: Case, tools: Any) -> Any:
        path = os.environ.get("SPY_LOG")
        if path:
            line = {"id": case.request.request_id, "pid": os.getpid(),
                    "worker": os.environ.get("ADVISE_WORKER_ID")}  # fmt: skip
            with open(path, "a", encoding="utf-8") as f:
                f.write(json.dumps(line) + "\n")
        return FAKE.agents[State.intake].run(case, tools)


SPY = FAKE.with_agent(State.intake, _SpyIntake())


# --------------------------------------------------------------------------- helpers


def _fake_inputs(ws: Path, n: int) -> Path:
    write_catalog(ws)
    lines = [json.dumps(request_dict(f"req-{i:02d}", TEXTS[i % len(TEXTS)])) for i in range(n)]
    path = ws / "in.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _reference(ws: Path, inputs: Path, stages: str, catalog: Path | None) -> Path:
    """The same batch on the process engine, in process (one worker)."""
    ref = ws / "reference"
    opts = RunOptions(state_dir=ref / "state", out_dir=ref / "out", stages=stages,
                      catalog=str(catalog) if catalog else None)  # fmt: skip
    report = run_batch(iter_input(str(inputs)), opts, stop=GracefulStop())
    assert report.exit_code in (0, 4), report.as_json()
    return ref


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FAKE_STAGE", "SPY_"))}
    env.update(PYTHONPATH=str(REPO), **extra)
    return env


def _ray_batch_cmd(inputs: Path, stages: str, catalog: Path | None, workers: int = 2) -> list[str]:
    cmd = [sys.executable, "-m", "pipeline.cli", "batch", str(inputs), "--engine", "ray",
           "--workers", str(workers), "--stages", stages, "--json", "-q"]  # fmt: skip
    return [*cmd, "--catalog", str(catalog)] if catalog else cmd


def _outputs(directory: Path) -> dict[str, bytes]:
    # Per-run summaries differ run to run; the index is rebuilt from them at every merge.
    skip = {"batch-summary.jsonl", "summaries", "index.html"}
    return {p.name: p.read_bytes() for p in directory.iterdir() if p.name not in skip}


def _assert_same_outputs(got_dir: Path, want_dir: Path) -> None:
    got, want = _outputs(got_dir), _outputs(want_dir)
    assert sorted(got) == sorted(want)
    assert [name for name in got if got[name] != want[name]] == []


def _report(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(done.stdout)  # stdout is the JSON and nothing else
    return report


def _log_lines(log_dir: Path) -> list[dict[str, Any]]:
    (path,) = log_dir.glob("*.jsonl")
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]


# --------------------------------------------------------------------------- fake stages


@pytest.fixture(scope="module")
def fake_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One ray batch of 10 fake-stage requests and its in-process reference."""
    ws = tmp_path_factory.mktemp("ray-fake")
    inputs = _fake_inputs(ws, 10)
    ref = _reference(ws, inputs, SPY_SPEC, ws / "catalog.json")
    cmd = _ray_batch_cmd(inputs, SPY_SPEC, Path("catalog.json"))
    done = subprocess.run(cmd, cwd=ws, env=_env(SPY_LOG=str(ws / "spy.jsonl")),
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return {"ws": ws, "ref": ref, "report": _report(done), "stderr": done.stderr}


@needs_ray
def test_ray_batch_outputs_are_byte_identical_to_the_process_engine(
    fake_run: dict[str, Any],
) -> None:
    ws, ref = fake_run["ws"], fake_run["ref"]
    assert fake_run["report"]["status"] == {"done": 10}
    assert fake_run["report"]["workers"] == 2
    _assert_same_outputs(ws / "out", ref / "out")
    assert _committed(ws / "state") == _committed(ref / "state")
    summary = (ws / "out" / "batch-summary.jsonl").read_text("utf-8").splitlines()
    assert sorted(json.loads(line)["id"] for line in summary) == [f"req-{i:02d}" for i in range(10)]


@needs_ray
def test_ray_json_stdout_is_only_the_report_what_workers_print_goes_to_stderr(
    fake_run: dict[str, Any],
) -> None:
    assert fake_run["report"]["requests"] == 10  # _report read all of stdout as one JSON
    printed = re.findall(r"printed by a stage \((print|fd 1)\) for (req-\d+)", fake_run["stderr"])
    assert sorted(set(printed)) == [
        ("fd 1", "req-00"), ("fd 1", "req-05"), ("print", "req-00"), ("print", "req-05"),
    ]  # fmt: skip


@needs_ray
def test_ray_worker_logs_carry_request_node_and_worker_ids(fake_run: dict[str, Any]) -> None:
    lines = _log_lines(fake_run["ws"] / "logs")
    started = [e for e in lines if e["event"] == "ray.worker_started"]
    assert len(started) == 2
    stages = [e for e in lines if e["event"] in ("stage.done", "run.finished")]
    assert len(stages) > 10
    for event in stages:
        assert RAY_ID.fullmatch(event["node_id"]), event
        assert RAY_ID.fullmatch(event["worker_id"]), event
        assert event["request_id"].startswith("req-"), event
    workers = {e["worker_id"] for e in started}
    assert {e["worker_id"] for e in stages} <= workers
    # ADVISE_WORKER_ID (the lease holder's id) is the worker id, in the process that ran it.
    pid_of = {e["worker_id"]: e["pid"] for e in started}
    spied = read_side_log(fake_run["ws"] / "spy.jsonl")
    assert len(spied) == 10
    assert all(pid_of[s["worker"]] == s["pid"] for s in spied)


_TASKS_RUN = """
from pathlib import Path
from pipeline.batch import run_batch
from pipeline.batch_input import iter_input
from pipeline.jobs import RunOptions
from pipeline.runner import GracefulStop

opts = RunOptions(state_dir=Path("tasks/state"), out_dir=Path("tasks/out"), workers=2,
                  catalog="catalog.json", stages=%r, engine="ray", ray_mode="tasks")
report = run_batch(iter_input("in.jsonl"), opts, stop=GracefulStop())
print(dict(report.status))
"""


@needs_ray
def test_ray_tasks_mode_outputs_are_byte_identical_too(fake_run: dict[str, Any]) -> None:
    ws = fake_run["ws"]
    done = subprocess.run([sys.executable, "-c", _TASKS_RUN % SPY_SPEC], cwd=ws, env=_env(),
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert done.stdout.splitlines()[-1:] == ["{'done': 10}"], done.stderr[-3000:]
    _assert_same_outputs(ws / "tasks" / "out", fake_run["ref"] / "out")


# --------------------------------------------------------------------------- real stages


@needs_ray
def test_ray_batch_with_real_stages_matches_the_process_engine(
    tmp_path: Path, demo_batch: DemoBatch
) -> None:
    # Every demo request, none excused (the solver's budgets are deterministic).
    inputs = tmp_path / "in.jsonl"
    shutil.copy(REPO / "demos" / "requests.jsonl", inputs)
    ref, want = demo_batch.root, demo_batch.report.as_json()  # the process engine's run
    done = subprocess.run(_ray_batch_cmd(inputs, "real", None), cwd=tmp_path, env=_env(),
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    report = _report(done)
    assert report["status"] == want["status"], done.stderr[-3000:]
    _assert_same_outputs(tmp_path / "out", ref / "out")


# --------------------------------------------------------------------------- crash safety


def _work_for(ms: float) -> int:
    """sha256 rounds that take about ``ms`` here (the fake stages burn them)."""
    rounds, digest = 20000, b"x"
    started = time.perf_counter()
    for _ in range(rounds):
        digest = hashlib.sha256(digest).digest()
    per_ms = rounds / ((time.perf_counter() - started) * 1000)
    return int(per_ms * ms)


def _wait_for_stage(side_log: Path, proc: subprocess.Popen[str], not_pids: set[int]) -> int:
    """The pid of a worker that just finished a stage (and so is running the next one)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the batch ended before the kill"
        text = side_log.read_text("utf-8") if side_log.exists() else ""
        complete = text[: text.rfind("\n") + 1].splitlines()  # a line may be half-written
        for line in reversed(complete):
            pid = int(json.loads(line)["pid"])
            if pid not in not_pids:
                return pid
        time.sleep(0.02)
    raise AssertionError("no stage ran within 60 s")


@needs_ray
def test_ray_worker_killed_mid_request_is_retried_from_its_checkpoint(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    inputs = _fake_inputs(ws, 12)
    ref = _reference(tmp_path, inputs, "tests.fake_stages:FAKE", ws / "catalog.json")
    side_log = ws / "stages.jsonl"
    env = _env(FAKE_STAGE_LOG=str(side_log), FAKE_STAGE_WORK=str(_work_for(40)))
    cmd = _ray_batch_cmd(inputs, "tests.fake_stages:FAKE", Path("catalog.json"))
    proc = subprocess.Popen(cmd, cwd=ws, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)  # fmt: skip
    killed: set[int] = set()
    try:
        for _ in range(2):  # one worker, then the restarted one or the other
            pid = _wait_for_stage(side_log, proc, killed)
            os.kill(pid, signal.SIGKILL)
            killed.add(pid)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:  # SIGTERM first: the batch shuts its Ray instance down
            proc.terminate()
            try:
                proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
    assert proc.returncode == 0, stderr[-3000:]
    report = json.loads(stdout.strip().splitlines()[-1])
    assert report["status"] == {"done": 12}

    _assert_same_outputs(ws / "out", ref / "out")
    assert _committed(ws / "state") == _committed(ref / "state")
    leftovers = [p.name for d in ("state", "out") for p in (ws / d).iterdir()]
    assert [name for name in leftovers if name.endswith(".tmp")] == []
    executions = read_side_log(side_log)
    pids = {e["pid"] for e in executions}
    assert killed < pids and len(pids) >= 3  # the restarted worker did the rest
    started = Counter(e["actor_id"] for e in _log_lines(ws / "logs")
                      if e["event"] == "ray.worker_started")  # fmt: skip
    assert len(started) == 2 and sum(started.values()) == 2 + len(killed)  # restarts
    # Every committed stage ran; a kill redid at most the stage its worker was running
    # and the one whose checkpoint write was still in flight.
    distinct = Counter((e["id"], e["stage"], e["round"]) for e in executions)
    committed = _committed(ref / "state").values()
    reference = sum(sum(attempts.values()) for _, attempts, _, _ in committed)
    assert len(distinct) == reference
    assert len(executions) <= reference + 2 * len(killed)


# --------------------------------------------------------------------------- without ray


def test_engine_ray_without_ray_installed_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pipeline.cli import main

    inputs = _fake_inputs(tmp_path, 1)
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    monkeypatch.delitem(sys.modules, "pipeline.ray_engine", raising=False)
    code = main(["batch", str(inputs), "--engine", "ray", "--state-dir", str(tmp_path / "s"),
                 "--out-dir", str(tmp_path / "o"), "--log-dir", str(tmp_path / "l")])  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert "error: --engine ray needs Ray, which cannot be imported" in err
    assert err.rstrip().endswith("install the ray extra: pip install -e '.[ray]'")
    assert not (tmp_path / "s").exists() and not (tmp_path / "l").exists()  # nothing started
    with pytest.raises(ImportError, match=re.escape("pip install -e '.[ray]'")):
        import pipeline.ray_engine  # noqa: F401


def test_ray_address_without_engine_ray_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pipeline.cli import main

    inputs = _fake_inputs(tmp_path, 1)
    code = main(["batch", str(inputs), "--ray-address", "auto", "--state-dir", str(tmp_path)])
    assert code == 2
    assert capsys.readouterr().err == "error: --ray-address 'auto' needs --engine ray\n"


@needs_ray
def test_ray_driver_forwards_every_worker_line_without_deduplication() -> None:
    # Ray's default deduplication holds back lines that differ only in request ids and
    # drops them when the batch ends within its 5 s window.
    code = ("import pipeline.ray_engine, ray._private.ray_logging as r; "
            "print(r.RAY_DEDUP_LOGS, r.stdout_deduplicator.deduplicate is not None)")  # fmt: skip
    env = {k: v for k, v in _env().items() if k != "RAY_DEDUP_LOGS"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120, check=True)  # fmt: skip
    assert done.stdout.split() == ["False", "True"]
    env["RAY_DEDUP_LOGS"] = "1"  # a user's explicit choice is kept
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120, check=True)  # fmt: skip
    assert done.stdout.split() == ["True", "True"]

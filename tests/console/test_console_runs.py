"""Runs started from the console: a resume on the worker pool, a CLI batch at the same time
that never runs a request twice (both take the request's lease), and the sample overload
request approved and resumed with the real stages."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pipeline.console.access import AccessLog
from pipeline.errors import RunInterrupted
from pipeline.store import CheckpointStore
from tests.console.helpers import _StopNow, copy_template, make_app, sign_in
from tests.fake_stages import Harness, make_request, read_side_log
from tests.shared_helpers import copy_workspace

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The children the console starts import this tree and log the fake stages they run."""
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    monkeypatch.setenv("FAKE_STAGE_LOG", str(tmp_path / "stages.jsonl"))
    return tmp_path / "stages.jsonl"


def test_resume_from_the_console_finishes_a_stopped_request(
    template: Path, tmp_path: Path, env: Path
) -> None:
    copy_template(template, tmp_path)
    app = make_app(tmp_path)
    client, token = sign_in(app, "advisor")
    r = client.post("/requests/stopped-1/run", data={"csrf": token, "kind": "resume"})
    assert "stopped-1: resume started" in r.text
    app.state.jobs.drain()
    job = app.state.jobs.current("stopped-1")
    assert (job.state, job.exit_code, job.by) == ("finished", 0, "advisor"), job.output
    ctx = CheckpointStore(tmp_path / "state").load("stopped-1")
    assert ctx is not None and ctx.state.value == "done"
    assert (tmp_path / "out" / "stopped-1.html").is_file()
    page = client.get("/requests/stopped-1").text
    assert "Last run from the console: resume by advisor" in page and "finished" in page
    [run] = [e for e in AccessLog(tmp_path / "state").entries() if e["action"] == "resume"]
    assert (run["user"], run["request_id"]) == ("advisor", "stopped-1")


def test_rerun_from_the_console_runs_a_finished_request_again(
    template: Path, tmp_path: Path, env: Path
) -> None:
    copy_template(template, tmp_path)
    app = make_app(tmp_path)
    client, token = sign_in(app, "admin")
    client.post("/requests/done-1/run", data={"csrf": token, "kind": "rerun"})
    app.state.jobs.drain()
    assert app.state.jobs.current("done-1").exit_code == 0
    assert (tmp_path / "out" / "done-1.json.prev").is_file()  # the previous outputs kept
    assert next(e["stage"] for e in read_side_log(env) if e["id"] == "done-1") == "intake"


def test_a_cli_batch_and_the_console_never_run_one_request_twice(
    tmp_path: Path, env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_STAGE_WORK", "20000")  # each stage takes a while: runs overlap
    h = Harness(tmp_path)
    ids = [f"req-{i:02d}" for i in range(10)]
    for rid in ids:  # checkpoints saved before their first stage: both sides resume them
        with contextlib.suppress(RunInterrupted):
            h.run(make_request(rid, "fake:reject=1"), stop=_StopNow())
    env.unlink(missing_ok=True)
    from pipeline.console.users import UserStore

    UserStore(tmp_path / "state").add("advisor", "advisor", "correct horse battery")
    app = make_app(tmp_path, workers=2)
    client, token = sign_in(app, "advisor")
    cli = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pipeline.cli",
            "resume",
            "--all",
            "--workers",
            "2",
            "-q",
            "--state-dir",
            "state",
            "--out-dir",
            "out",
            "--stages",
            "tests.fake_stages:FAKE",
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    for rid in reversed(ids):  # from the other end, so the two meet in the middle
        client.post(f"/requests/{rid}/run", data={"csrf": token, "kind": "resume"})
    _out, err = cli.communicate(timeout=300)
    app.state.jobs.drain()
    assert cli.returncode in (0, 1), err  # 1: a request was held by the console
    runs = Counter((e["id"], e["stage"], e["round"]) for e in read_side_log(env))
    assert runs and max(runs.values()) == 1, [k for k, n in runs.items() if n > 1]
    owners = {rid: {e["pid"] for e in read_side_log(env) if e["id"] == rid} for rid in ids}
    assert all(len(pids) == 1 for pids in owners.values()), owners  # one runner each
    assert {rid for rid, stage, _ in runs if stage == "synthesis"} == set(ids)
    store = CheckpointStore(tmp_path / "state")
    assert {rid: store.load(rid).state.value for rid in ids} == dict.fromkeys(ids, "done")
    refused = [app.state.jobs.current(r) for r in ids]
    for job in refused:  # a console run that came second was refused by the lease
        if job is not None and job.exit_code not in (0, None):
            assert "is being worked by another runner" in job.output, job.output


def test_the_sample_overload_request_is_approved_and_resumed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, awaiting_approval: Path
) -> None:
    from pipeline.console.users import UserStore

    monkeypatch.setenv("PYTHONPATH", str(REPO))
    monkeypatch.chdir(tmp_path)
    copy_workspace(awaiting_approval, tmp_path)  # `advise run` of the sample request: exit 4
    UserStore(tmp_path / "state").add("rivera", "advisor", "correct horse battery")
    from pipeline.console import ConsoleConfig, create_app

    app: Any = create_app(
        ConsoleConfig(
            state_dir=tmp_path / "state", out_dir=tmp_path / "out", log_dir=tmp_path / "logs"
        )
    )
    from starlette.testclient import TestClient

    from tests.console.helpers import csrf_of

    client = TestClient(app)
    token = csrf_of(client.get("/login").text)
    client.post(
        "/login", data={"name": "rivera", "password": "correct horse battery", "csrf": token}
    )
    page = client.get("/requests/overload-high-gpa").text
    assert "LOAD-OVERLOAD (S2027, F2027): awaiting advisor approval" in page
    r = client.post(
        "/requests/overload-high-gpa/decide",
        data={
            "csrf": csrf_of(page),
            "rule": "LOAD-OVERLOAD",
            "verdict": "approve",
            "reason": "strong record, light lab load",
            "resume": "1",
        },
    )
    assert "overload-high-gpa: resume started" in r.text
    app.state.jobs.drain()
    job = app.state.jobs.current("overload-high-gpa")
    assert job.exit_code == 0, job.output
    page = client.get("/requests/overload-high-gpa").text
    assert 'class="state done">Finished</span>' in page
    report = client.get("/requests/overload-high-gpa/report").text
    assert "strong record, light lab load" in report and "rivera" in report


def test_rerender_writes_the_outputs_again_from_the_checkpoint(
    template: Path, tmp_path: Path, env: Path
) -> None:
    copy_template(template, tmp_path)
    ran = len(read_side_log(env))
    before = {p.name: p.read_bytes() for p in (tmp_path / "out").glob("done-1.*")}
    (tmp_path / "out" / "done-1.html").unlink()
    app = make_app(tmp_path)
    client, token = sign_in(app, "advisor")
    assert "Re-render the report" in client.get("/requests/done-1").text
    client.post("/requests/done-1/run", data={"csrf": token, "kind": "rerender"})
    app.state.jobs.drain()
    job = app.state.jobs.current("done-1")
    assert (job.kind, job.exit_code) == ("rerender", 0), job.output
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").glob("done-1.*")} == before
    assert len(read_side_log(env)) == ran  # no stage ran


def test_rerender_refuses_an_unfinished_request_and_a_held_one(
    template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pipeline.cli import main

    copy_template(template, tmp_path)
    state, out = str(tmp_path / "state"), str(tmp_path / "out")
    args = ["--state-dir", state, "--out-dir", out, "--stages", "tests.fake_stages:FAKE", "--json"]
    for rid, status in (("stopped-1", "unfinished"), ("no-such", "unknown")):
        assert main(["render", rid, *args]) == 1
        assert json.loads(capsys.readouterr().out)["requests"][0]["status"] == status
    with CheckpointStore(tmp_path / "state").lock("done-1"):
        assert main(["render", "done-1", *args]) == 1
    assert json.loads(capsys.readouterr().out)["requests"][0]["status"] == "locked"

"""Progress of ``advise batch`` on stderr: a rich bar on a terminal, a line every
``--progress-every`` seconds otherwise, nothing with ``--quiet``; the counts, rate and ETA
they show (``pipeline.progress``)."""

from __future__ import annotations

import hashlib
import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, get_args

import pytest

from pipeline.progress import BUCKETS, ProgressSnapshot, ProgressTally, hms, start_progress
from pipeline.results import JobStatus
from tests.fake_stages import request_dict, write_catalog

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

REPO = Path(__file__).resolve().parents[1]
ENGINE = ["--catalog", "catalog.json", "--stages", "tests.fake_stages:FAKE"]
REQUESTS = [request_dict("b1"), request_dict("b2", "fake:fail=intake"), {"request_id": "b3"},
            request_dict("b4")]  # fmt: skip
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.mark.parametrize(
    ("snapshot", "line"),
    [
        (ProgressSnapshot(76, 13.0, done=35, failed=2, invalid=3),
         "progress: 40/76 (done 35, failed 2, invalid 3), 3.1 requests/s, ETA 0:12"),
        (ProgressSnapshot(10, 2.0, done=3, awaiting_approval=1),
         "progress: 4/10 (done 3, failed 0, invalid 0, awaiting approval 1), 2.0 requests/s, "
         "ETA 0:03"),
        (ProgressSnapshot(None, 4.0, done=7, invalid=1),
         "progress: 8 (done 7, failed 0, invalid 1), 2.0 requests/s"),
        (ProgressSnapshot(76, 0.0), "progress: 0/76 (done 0, failed 0, invalid 0), 0.0 requests/s"),
        (ProgressSnapshot(76, 5.0), "progress: 0/76 (done 0, failed 0, invalid 0), 0.0 requests/s"),
        (ProgressSnapshot(5000, 10.0, failed=4),
         "progress: 4/5000 (done 0, failed 4, invalid 0), 0.4 requests/s, ETA 3:28:10"),
    ],
)  # fmt: skip
def test_progress_line_shows_counts_rate_and_eta_only_with_a_total(
    snapshot: ProgressSnapshot, line: str
) -> None:
    assert snapshot.line() == line


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0:00"), (59.4, "0:59"), (59.6, "1:00"), (725, "12:05"), (3723, "1:02:03")],
)
def test_hms(seconds: float, text: str) -> None:
    assert hms(seconds) == text


def test_tally_counts_every_status_in_one_bucket_and_times_with_its_clock() -> None:
    assert set(BUCKETS) == set(get_args(JobStatus))
    now = [100.0]
    tally = ProgressTally(13, clock=lambda: now[0])
    for status in get_args(JobStatus):
        tally.add(status)
    now[0] = 103.0
    assert tally.snapshot().fields() == {
        "processed": 12, "total": 13, "done": 4, "failed": 6, "invalid": 1,
        "awaiting_approval": 1, "rate": 4.0, "eta_s": 0.2,
    }  # fmt: skip


def test_progress_off_starts_nothing() -> None:
    assert start_progress(False, 3) is None
    assert start_progress("off", None) is None


# --------------------------------------------------------------------------- the CLI


def _work_for(ms: float) -> int:
    """sha256 rounds that take about ``ms`` here (each fake stage burns them)."""
    rounds, digest = 20000, b"x"
    started = time.perf_counter()
    for _ in range(rounds):
        digest = hashlib.sha256(digest).digest()
    return int(rounds / ((time.perf_counter() - started) * 1000) * ms)


def _env(ws: Path) -> dict[str, str]:
    overrides = ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")
    env = {k: v for k, v in os.environ.items() if k not in overrides}
    # ~0.5 s of stage work in all (about 13 stage runs), so 0.1 s lines have time to come.
    env.update(PYTHONPATH=str(REPO), FAKE_STAGE_LOG=str(ws / "stages.jsonl"),
               FAKE_STAGE_WORK=str(_work_for(40)), TERM="xterm", COLUMNS="160")  # fmt: skip
    return env


def _in_terminal(cmd: list[str], ws: Path) -> str:
    """Run ``cmd`` with stdin, stdout and stderr on a pseudo-terminal; all it wrote."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, cwd=ws, env=_env(ws), stdin=slave, stdout=slave, stderr=slave)
    os.close(slave)
    chunks = []
    while select.select([master], [], [], 60)[0]:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the command exited and the terminal closed
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait(timeout=60) == 1  # b2 failed, b3 invalid
    return ANSI.sub("", b"".join(chunks).decode("utf-8", "replace").replace("\r", "\n"))


def _piped(cmd: list[str], ws: Path, stdin: str | None) -> str:
    done = subprocess.run(cmd, cwd=ws, env=_env(ws), input=stdin, capture_output=True,
                          text=True, timeout=60, check=False)  # fmt: skip
    assert done.returncode == 1, done.stderr
    return done.stderr


BAR = re.compile(
    r"requests ━+ 4/4 \d:\d\d:\d\d done 2, failed 1, invalid 1 \| \d+\.\d requests/s, ETA 0:00"
)
LINE = re.compile(
    r"progress: (?P<n>\d)(?P<total>/4)? \(done \d, failed \d, invalid \d\), \d+\.\d requests/s"
    r"(?P<eta>, ETA 0:\d\d)?"
)


@pytest.mark.parametrize(
    ("terminal", "args", "shown"),
    [
        (True, ["in.jsonl"], "bar"),
        (True, ["in.jsonl", "--quiet"], None),
        (False, ["in.jsonl", "--progress-every", "0.1"], "lines"),
        (False, ["-", "--progress-every", "0.1"], "lines"),
        (False, ["in.jsonl", "--progress-every", "0.1", "-q"], None),
    ],
    ids=["terminal", "terminal-quiet", "pipe", "stdin", "pipe-quiet"],
)
def test_batch_shows_progress_on_stderr(
    tmp_path: Path, terminal: bool, args: list[str], shown: str | None
) -> None:
    write_catalog(tmp_path)
    text = "".join(json.dumps(r) + "\n" for r in REQUESTS)
    (tmp_path / "in.jsonl").write_text(text, encoding="utf-8")
    cmd = [sys.executable, "-m", "pipeline.cli", "batch", *args, *ENGINE]
    if terminal:
        err = _in_terminal(cmd, tmp_path)
    else:
        err = _piped(cmd, tmp_path, text if args[0] == "-" else None)
    lines = [line for line in err.splitlines() if line.startswith("progress:")]
    bars = [line for line in err.splitlines() if line.startswith("requests ━")]

    if shown == "bar":
        assert not lines and BAR.search(err), err
    elif shown == "lines":
        assert lines and not bars, err
        known_total = args[0] != "-"
        for line in lines:
            match = LINE.fullmatch(line)
            assert match, line
            assert bool(match["total"]) == known_total
            assert bool(match["eta"]) == (known_total and match["n"] != "0")
        assert _progress_events(tmp_path)[-1]["total"] == (4 if known_total else None)
    else:
        assert not lines and not bars, err
        assert _progress_events(tmp_path) == []


def _progress_events(ws: Path) -> list[dict[str, Any]]:
    [log] = (ws / "logs").iterdir()
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    progress = [e for e in events if e["event"] == "batch.progress"]
    for event in progress:
        assert set(event) == {"event", "level", "logger", "timestamp", "processed", "total",
                              "done", "failed", "invalid", "awaiting_approval", "rate",
                              "eta_s"}  # fmt: skip
    return progress

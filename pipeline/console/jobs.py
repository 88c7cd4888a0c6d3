"""Runs started from the console: ``advise resume ID`` (``--force`` for a rerun from the
start), or ``advise run FILE`` for a new request, in a child process, on a small pool of
worker threads inside the server.

The child is the command line itself, so a run from the console takes the request's lease
exactly as a CLI run or batch does (``pipeline.leases``): whichever comes second is refused
("is being worked by another runner ..."), never run twice. A child that crashes cannot take
the server down, and its output is kept for the request page.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import structlog

log = structlog.get_logger(__name__)

JobKind = Literal["resume", "rerun", "run", "rerender"]
JobState = Literal["queued", "running", "finished", "failed"]
OUTPUT_LIMIT = 4000


@dataclass
class Job:
    request_id: str
    kind: JobKind
    by: str
    state: JobState = "queued"
    started: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    exit_code: int | None = None
    output: str = ""
    request_file: Path | None = None  # a new request's file ("run")
    catalog: str | None = None  # a new request's catalog, when the admin chose one ("run")


@dataclass(frozen=True)
class Workspace:
    """The directories every console run uses (those of ``advise batch``)."""

    state_dir: Path
    out_dir: Path
    log_dir: Path
    stages: str = "real"  # tests only: a fake stage set, as the CLI's hidden --stages
    templates: Path | None = None  # the office's report templates (--templates)
    # The console's own settings, passed on so a run it starts reads the same workspace as
    # the console (its flags win over the run's environment and advise.toml, as they did).
    catalog: str | None = None
    settings_file: Path | None = None


def command(ws: Workspace, job: Job) -> list[str]:
    templates = ["--templates", str(ws.templates)] if ws.templates is not None else []
    settings = ["--config", str(ws.settings_file)] if ws.settings_file is not None else []
    chosen = job.catalog if job.kind == "run" and job.catalog is not None else ws.catalog
    catalog = ["--catalog", chosen] if chosen is not None else []
    where = [
        *settings,
        *catalog,
        "--state-dir",
        str(ws.state_dir),
        "--out-dir",
        str(ws.out_dir),
        "--log-dir",
        str(ws.log_dir),
        "--stages",
        ws.stages,
        *templates,
    ]
    if job.kind == "rerender":  # from the checkpoint, nothing run: advise render
        return [sys.executable, "-m", "pipeline.cli", "render", job.request_id, *where]
    if job.kind == "run":
        return [sys.executable, "-m", "pipeline.cli", "run", str(job.request_file), *where]
    args = [sys.executable, "-m", "pipeline.cli", "resume", job.request_id, *where]
    return [*args, "--force"] if job.kind == "rerun" else args


class JobRunner:
    def __init__(self, ws: Workspace, workers: int = 2) -> None:
        self.ws = ws
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="console-job")
        self._lock = threading.Lock()
        self._jobs: dict[str, Job] = {}
        self._futures: list[Future[None]] = []

    def current(self, request_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(request_id)

    def submit(
        self,
        request_id: str,
        kind: JobKind,
        by: str,
        request_file: Path | None = None,
        catalog: str | None = None,
    ) -> Job | None:
        """Queue a run; None if the console already has one queued or running for it."""
        with self._lock:
            held = self._jobs.get(request_id)
            if held is not None and held.state in ("queued", "running"):
                return None
            job = Job(request_id, kind, by, request_file=request_file, catalog=catalog)
            self._jobs[request_id] = job
        future = self._pool.submit(self._run, job)
        with self._lock:
            self._futures = [f for f in self._futures if not f.done()] + [future]
        return job

    def _run(self, job: Job) -> None:
        job.state = "running"
        log.info("console.job_started", request_id=job.request_id, kind=job.kind, by=job.by)
        try:
            done = subprocess.run(
                command(self.ws, job),
                capture_output=True,
                text=True,
                check=False,
                stdin=subprocess.DEVNULL,
            )
            job.exit_code = done.returncode
            job.output = (done.stdout + done.stderr)[-OUTPUT_LIMIT:]
        except OSError as exc:
            job.exit_code, job.output = -1, str(exc)
        # 0 done, 4 awaiting approval again: the run itself went as it should.
        job.state = "finished" if job.exit_code in (0, 4) else "failed"
        log.info("console.job_ended", request_id=job.request_id, exit_code=job.exit_code)

    def drain(self) -> None:
        """Wait until every run queued so far has ended (tests, and the server's shutdown)."""
        with self._lock:
            futures = list(self._futures)
        wait(futures)

    def close(self) -> None:
        self._pool.shutdown(wait=True)

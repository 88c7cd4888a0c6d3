"""The Ray engine: ``advise batch --engine ray [--ray-address ADDR] [--workers N]``.

The batch driver (``pipeline.batch.run_batch``) is the same as with worker processes:
it streams the input, keeps at most ``2 * N`` requests in flight and streams results to
the run's summary and report. Only where a request runs changes: on one of ``N`` Ray
actors, each keeping a ``pipeline.jobs.WorkerState`` (catalog, toolbox and agents loaded
once per actor), placed by Ray on any node of the cluster.

Plain Ray tasks, each building a ``WorkerState`` of its own, are kept as
``ray_mode="tasks"`` for the benchmark (``python -m eval.bench_pipeline --engine ray``).
On 2 cores with local Ray, real agents, 2 workers, both ran as fast as the process pool
(11.6-11.9 requests/s each: the agents' CPU is the limit); on requests whose stages do
nothing, actors added 0.3-1.0 ms per request to the process pool's 8.2-9.0 ms, tasks
2.5-4.7 ms (a toolbox and fingerprints per request; the parsed catalog stays cached in
a reused worker process). Actors are the default: less overhead, and a channel to stop
them at a stage boundary, where a task can only be cancelled in the middle of one.

Crash safety is the checkpoints' and Ray's together: a worker process that dies in the
middle of a request (SIGKILL, the OOM killer, a lost node) is restarted by Ray
(``max_restarts``) and its requests are retried (``max_task_retries``, ``max_retries``
for tasks); a retry runs through ``pipeline.runner.run_request`` like any rerun, so it
resumes from the request's checkpoint. The dead worker's request lock is freed by the
kernel (flock) or taken over as a lease whose holder is gone (at once on the same host;
from another host once the lease expires - until then the retry is ``locked``). A
request that kills its worker on every attempt ends ``failed`` after ``RETRIES``
retries; the batch goes on.

Logs: each worker writes the same JSON-lines log as the driver (``opts.log_path``; on
another node, the same path on that node), every event bound to the request id, the Ray
node id and worker id (and actor id); the worker id is also ``ADVISE_WORKER_ID``, which
names the holder of a request's lease.

Ray is an optional extra: importing this module without it raises
``RayUnavailableError``, which says how to install it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import structlog

from pipeline.errors import RayUnavailableError
from pipeline.jobs import Job, RayMode, RunOptions, WorkerState
from pipeline.results import JobResult, JobStatus

# Every line a worker prints reaches the driver: Ray's log deduplication (on by default)
# holds back lines that differ only in words with digits - request ids - for 5 s and
# drops them if the batch ends sooner. Read once, when Ray is imported; a user's
# RAY_DEDUP_LOGS=1 is kept.
os.environ.setdefault("RAY_DEDUP_LOGS", "0")
LOG_GRACE_S = 1.0  # seconds the log monitor gets to forward workers' last lines (close)

try:
    import ray
except ImportError as exc:
    raise RayUnavailableError(str(exc)) from exc

log = structlog.get_logger(__name__)

RETRIES = 2  # retries of a request whose worker died; a third death fails the request
WORKER_ID_ENV = "ADVISE_WORKER_ID"


def _request_id(job: Job) -> str | None:
    """The job's request id, for the log context (the driver validated the JSON)."""
    if job.resume_id is not None:
        return job.resume_id
    rid = json.loads(job.request_json or "{}").get("request_id")
    return rid if isinstance(rid, str) else None


def _worker_ids(actor: bool) -> dict[str, str]:
    """This Ray worker's ids for the log context; ``ADVISE_WORKER_ID`` set to its id."""
    runtime = ray.get_runtime_context()
    ids = {"node_id": runtime.get_node_id(), "worker_id": runtime.get_worker_id()}
    if actor:
        ids["actor_id"] = runtime.get_actor_id() or ""
    os.environ[WORKER_ID_ENV] = ids["worker_id"]
    return ids


_LOGGING: tuple[str, Path | None] | None = None  # this worker process's logging setup


def _configure_logging(opts: RunOptions) -> None:
    from pipeline.logs import configure_logging

    _stdout_to_stderr()
    global _LOGGING
    if (opts.console_level, opts.log_path) != _LOGGING:
        configure_logging(opts.console_level, json_path=opts.log_path)
        _LOGGING = (opts.console_level, opts.log_path)


def _stdout_to_stderr() -> None:
    """A worker's stdout is its stderr: Ray forwards a worker's stdout to the driver's,
    which with ``--json`` must carry only the JSON (anything a library prints goes to the
    driver's stderr instead)."""
    if sys.stdout is not sys.stderr:
        sys.stdout.flush()
        with contextlib.suppress(OSError):
            os.dup2(2, 1)
        sys.stdout = sys.stderr


@ray.remote(concurrency_groups={"control": 1})  # type: ignore[call-overload]
class Worker:
    """One worker process's ``WorkerState``. Requests run one at a time (the default
    concurrency group); ``stop`` is answered at once, on a thread of its own."""

    def __init__(self, opts: RunOptions) -> None:
        _configure_logging(opts)
        self._ids = _worker_ids(actor=True)
        self._stop = threading.Event()
        self._state = WorkerState(opts, self._stop)
        log.info("ray.worker_started", pid=os.getpid(), **self._ids)

    def process(self, job: Job) -> JobResult:
        with structlog.contextvars.bound_contextvars(request_id=_request_id(job), **self._ids):
            return self._state.process(job)

    @ray.method(concurrency_group="control")
    def stop(self) -> None:
        """Stop at the next stage boundary (the batch was asked to stop)."""
        self._stop.set()


class _NeverStop:
    def is_set(self) -> bool:
        return False


@ray.remote(max_retries=RETRIES)
def run_task(opts: RunOptions, job: Job) -> JobResult:
    """One request as a plain Ray task: a ``WorkerState`` of its own (the parsed catalog
    stays cached in the worker process, the toolbox does not). A stop cancels the task."""
    _configure_logging(opts)
    ids = _worker_ids(actor=False)
    with structlog.contextvars.bound_contextvars(request_id=_request_id(job), **ids):
        return WorkerState(opts, _NeverStop()).process(job)


def _absolute(opts: RunOptions) -> RunOptions:
    """Paths resolved here: a worker may start in another directory (or on another node,
    where they must name shared storage)."""

    def resolve(p: Path | None) -> Path | None:
        return None if p is None else p.resolve()

    catalog = opts.catalog
    if catalog is not None:
        catalog = str(Path(catalog).resolve())
    return replace(opts, state_dir=opts.state_dir.resolve(), out_dir=opts.out_dir.resolve(),
                   catalog=catalog, exceptions_dir=resolve(opts.exceptions_dir),
                   templates=resolve(opts.templates), log_path=resolve(opts.log_path))  # fmt: skip


def connect(opts: RunOptions) -> bool:
    """Connect to the cluster at ``opts.ray_address``, or start a local Ray instance with
    ``opts.workers`` CPUs; True if this call did (and ``shutdown`` should undo it). An
    already initialized Ray (a caller's) is used as it is."""
    if ray.is_initialized():
        return False
    quiet: dict[str, Any] = {"logging_level": logging.ERROR, "log_to_driver": True}
    # What a worker prints reaches the driver's stderr (``_stdout_to_stderr``) as plain
    # lines: Ray's colour codes would be shown as escapes there (``pipeline.terminal``).
    os.environ.setdefault("RAY_COLOR_PREFIX", "0")
    if opts.ray_address:
        ray.init(address=opts.ray_address, **quiet)
    else:
        # A batch phones nowhere: no usage statistics from a local instance unless the
        # environment opts in (RAY_USAGE_STATS_ENABLED=1).
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        ray.init(num_cpus=opts.workers, include_dashboard=False, **quiet)
    return True


class RayPool:
    """The batch's requests on Ray: the same ``submit``/``drain``/``close`` as the
    process pool, with at most ``2 * workers`` requests in flight."""

    def __init__(self, opts: RunOptions, stop: Any, mode: RayMode | None = None) -> None:
        self._opts = _absolute(opts)
        self._stop = stop
        self._stopping = False
        self.mode: RayMode = mode or opts.ray_mode
        self._window = 2 * opts.workers
        self._pending: dict[Any, tuple[Job, int]] = {}  # result ref -> (job, actor index)
        self._actors: list[Any] = []
        self._load = [0] * opts.workers  # requests in flight per actor
        self._started = connect(opts)
        # ray.init installs its own SIGTERM handler; the batch's GracefulStop comes first.
        if hasattr(stop, "rearm"):
            stop.rearm()
        try:
            self._start_workers()
        except BaseException:
            if self._started:
                ray.shutdown()
            raise

    def _start_workers(self) -> None:
        workers = self._opts.workers
        cpus = ray.cluster_resources().get("CPU", 0)
        if cpus < workers:  # an actor takes one CPU: the others wait for a free one
            log.warning("ray.too_few_cpus", workers=workers, cluster_cpus=cpus)
        if self.mode == "actors":
            options = {"num_cpus": 1, "max_restarts": -1, "max_task_retries": RETRIES}
            worker = Worker.options(**options)  # type: ignore[attr-defined]
            self._actors = [worker.remote(self._opts) for _ in range(workers)]
        else:
            self._opts_ref = ray.put(self._opts)
        log.info("ray.pool_started", mode=self.mode, workers=workers,
                 address=self._opts.ray_address or "local", nodes=len(ray.nodes()))  # fmt: skip

    def submit(self, job: Job) -> list[JobResult]:
        out: list[JobResult] = []
        while len(self._pending) >= self._window:
            out.extend(self._collect())
        if self.mode == "actors":
            index = min(range(len(self._actors)), key=self._load.__getitem__)
            ref = self._actors[index].process.remote(job)
            self._load[index] += 1
        else:
            index, ref = -1, run_task.remote(self._opts_ref, job)
        self._pending[ref] = (job, index)
        return out

    def drain(self) -> list[JobResult]:
        out: list[JobResult] = []
        while self._pending:
            out.extend(self._collect())
        return out

    def _collect(self) -> list[JobResult]:
        # A short timeout, so a stop requested by a signal reaches the workers promptly.
        refs = list(self._pending)
        done, rest = ray.wait(refs, num_returns=1, timeout=0.2)
        if done and rest:
            more, _ = ray.wait(rest, num_returns=len(rest), timeout=0)
            done += more
        if self._stop.is_set() and not self._stopping:
            self._stopping = True
            self._signal_stop()
        return [self._result(ref) for ref in done]

    def _signal_stop(self) -> None:
        if self.mode == "actors":
            for actor in self._actors:
                actor.stop.remote()
        else:  # a task has no channel: cancelled, it abandons its stage (checkpoint kept)
            for ref in self._pending:
                ray.cancel(ref)

    def _result(self, ref: Any) -> JobResult:
        job, index = self._pending.pop(ref)
        if index >= 0:
            self._load[index] -= 1
        try:
            result: JobResult = ray.get(ref)
            return result
        except ray.exceptions.RayError as exc:
            # Its worker died RETRIES + 1 times (RayActorError, WorkerCrashedError), or a
            # stop cancelled it; a rerun resumes it from its checkpoint.
            status: JobStatus = "interrupted" if self._stopping else "failed"
            first = (str(exc).strip().splitlines() or [""])[0]
            error = f"lost on Ray: {type(exc).__name__}: {first}"
            rid = _request_id(job)
            log.warning("ray.job_lost", request_id=rid, source=job.source, error=error)
            return JobResult(id=rid, source=job.source, status=status, error=error)

    def close(self, abandon: bool) -> None:
        """Free the workers (with ``abandon``, in the middle of their stages: checkpoints
        are atomic) and shut down the Ray instance or connection this pool started. Before
        a normal close, ``LOG_GRACE_S`` lets Ray's log monitor forward what the workers
        printed last: shut down at once, it drops the lines it has not read yet (seen on a
        loaded machine: a request's printed lines missing from the driver's stderr)."""
        if not abandon and self._actors:
            time.sleep(LOG_GRACE_S)
        for actor in self._actors:
            ray.kill(actor, no_restart=True)
        if self.mode == "tasks":
            for ref in self._pending:
                ray.cancel(ref, force=abandon)
        self._pending.clear()
        if self._started:
            ray.shutdown()

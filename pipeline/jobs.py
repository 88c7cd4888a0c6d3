"""Batch jobs: the options a batch runs with, one job per request, and the worker-process
state that runs jobs through ``pipeline.runner.run_request`` (one catalog load per
worker, the parent's stop flag, and death with the parent)."""

from __future__ import annotations

import gc
import os
import resource
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import structlog

from agents.artifacts import PlanRequest
from agents.catalog import Calendar
from agents.errors import AdvisingError, StorageError
from agents.toolbox import Settings
from pipeline.checkpoint_summary import CheckpointSummary
from pipeline.context import State
from pipeline.errors import (
    CatalogSourceMissingError,
    CheckpointMissingError,
    LockHeldError,
    RunInterrupted,
    StaleResultError,
)
from pipeline.machine import StageSet, load_stages
from pipeline.outputs import outputs_present
from pipeline.results import JobResult
from pipeline.runner import STOP_SIGNALS, RequestOptions, StopFlag, ToolboxFactory, run_request
from pipeline.stale import Fingerprints
from pipeline.startup import pause_gc, resume_gc
from pipeline.store import CheckpointStore
from pipeline.workspace import CatalogFingerprints, catalog_for, source_of

log = structlog.get_logger(__name__)

Engine = Literal["process", "ray"]
RayMode = Literal["actors", "tasks"]


# --------------------------------------------------------------------------- jobs


@dataclass(frozen=True)
class RunOptions:
    """Everything a run, a batch or ``resume --all`` needs besides its requests."""

    state_dir: Path = Path("state")
    out_dir: Path = Path("out")
    catalog: str | None = None
    backend: str = "offline"
    model: str | None = None
    settings: Settings = field(default_factory=Settings)
    stages: str = "real"
    workers: int = 1
    force: bool = False
    rerun_stale: bool = True
    no_wait: bool = False  # approvals a run asks for are denied instead of awaited
    exceptions_dir: Path | None = None  # <dir>/<student id>.json merged into each record
    alternatives: int | None = None  # --alternatives: for requests that do not set their own
    templates: Path | None = None  # an office's report templates (agents.reports)
    calendar: Calendar | None = None  # the catalog's, for term-code hints in input errors
    current: Fingerprints | None = None  # of the catalog and configuration; None: computed
    console_level: str = "warning"
    log_path: Path | None = None
    progress_every_s: float = 10.0  # between progress lines when stderr is not a terminal
    engine: Engine = "process"  # where a batch's requests run (pipeline.ray_engine for ray)
    ray_address: str | None = None  # the Ray cluster to connect to; None: start a local one
    ray_mode: RayMode = "actors"  # one WorkerState per actor, or per task (benchmark only)

    def for_request(
        self,
        store: CheckpointStore,
        factory: ToolboxFactory,
        stages: StageSet,
        stop: StopFlag | None,
    ) -> RequestOptions:
        """What ``run_request`` needs from these options, with the store, the toolbox
        factory, the stages and the stop flag of the process that runs the request."""
        return RequestOptions(
            store=store,
            toolbox_factory=factory,
            settings=self.settings,
            force=self.force,
            stages=stages,
            out_dir=self.out_dir,
            stop=stop,
            rerun_stale=self.rerun_stale,
            no_wait=self.no_wait,
            templates=self.templates,
        )


@dataclass(frozen=True)
class Job:
    """One unit of batch work: a validated request (as JSON), or a checkpoint to resume."""

    source: str
    request_json: str | None = None
    resume_id: str | None = None


class _AnyStop:
    def __init__(self, *flags: StopFlag) -> None:
        self._flags = flags

    def is_set(self) -> bool:
        return any(f.is_set() for f in self._flags)


class ParentWatch:
    """Set once the parent process is gone, so an orphaned worker stops at the next stage
    boundary instead of holding request locks for a batch nobody is waiting for."""

    def __init__(self, parent_pid: int) -> None:
        self._parent = parent_pid

    def is_set(self) -> bool:
        return os.getppid() != self._parent


class WorkerState:
    """Runs jobs in one process; loads each catalog and the agents once, on first use.

    A request runs against the catalog the options name, else its checkpoint's own
    catalog, else the bundled sample (``pipeline.workspace``); each catalog's toolbox is
    kept for the worker's life."""

    def __init__(self, opts: RunOptions, stop: StopFlag) -> None:
        self.opts = opts
        self.stop = stop
        self.store = CheckpointStore(opts.state_dir, background=True)
        self._factories: dict[str, ToolboxFactory] = {}
        self._stages: StageSet | None = None
        self._fingerprints: CatalogFingerprints | None = None

    def _tools(self, catalog: str | None) -> tuple[ToolboxFactory, StageSet]:
        source = source_of(catalog)
        if self._stages is None:
            self._stages = load_stages(self.opts.stages)
        if source not in self._factories:
            self._factories[source] = ToolboxFactory(
                catalog_path=catalog, backend=self.opts.backend, model=self.opts.model
            )
            # The catalog, its indexes and the loaded modules live as long as the worker:
            # keep them out of every later garbage collection (done once per catalog).
            gc.freeze()
            resume_gc()  # a pool worker's start-up ran without it (init_worker)
        return self._factories[source], self._stages

    def _known(self) -> CatalogFingerprints:
        """Fingerprints by catalog, seeded with those the parent computed."""
        if self._fingerprints is None:
            current = self.opts.current
            if current is None or current.catalog is None or current.config is None:
                factory, stages = self._tools(self.opts.catalog)
                config = factory.run_config(self.opts.settings, stages.name).fingerprint()
                current = Fingerprints(factory.catalog_fingerprint, config)
            self._fingerprints = CatalogFingerprints.of_command(current, self.opts.catalog)
        return self._fingerprints

    def _check(
        self, request: PlanRequest, summary: CheckpointSummary | None, current: Fingerprints
    ) -> tuple[CheckpointSummary | None, bool]:
        """(the checkpoint, read fast, if the request can be skipped: done, outputs present,
        same fingerprints, not forced, not degraded; whether it is stale: done under other
        fingerprints)."""
        if (
            summary is None
            or summary.state is not State.done
            or summary.request != request.model_dump(mode="json")
        ):
            return None, False
        if summary.fingerprints.differs(current):
            return None, True
        if self.opts.force or not outputs_present(self.opts.out_dir, request.request_id):
            return None, False
        if summary.degraded:  # its LLM backend failed last time: redo those stages
            return None, False
        return summary, False

    def _rerender(self, rid: str, catalog: str | None) -> None:
        """Write a skipped (finished) request's outputs again with the batch's templates,
        replacing only the files that change (``pipeline.rerender``); no stage runs."""
        from agents.reports import use_templates
        from pipeline.rerender import rerender_loaded

        factory, stages = self._tools(catalog)
        with self.store.lock(rid), use_templates(self.opts.templates):
            ctx = self.store.load(rid)
            if ctx is not None and ctx.state is State.done:
                written = rerender_loaded(ctx, factory.catalog, stages, self.opts.out_dir)
                log.info("job.rerendered", request_id=rid, files=[str(p) for p in written])

    def process(self, job: Job) -> JobResult:
        """Run one job; never raises for a request's own problems (they go in the result)."""
        started = time.perf_counter()
        bytes0, ms0, io0 = self.store.bytes_written, self.store.write_ms, self.store.io_ms
        rid = job.resume_id
        try:
            if job.resume_id is not None:
                resumed = self.store.load(job.resume_id)
                if resumed is None:
                    raise CheckpointMissingError(job.resume_id, self.opts.state_dir)
                request = resumed.request
            else:
                request = PlanRequest.model_validate_json(job.request_json or "")
            rid = request.request_id
            saved = self.store.summary(rid)
            own = saved.catalog_source if saved is not None else None
            catalog = catalog_for(rid, own, self.opts.catalog)
            summary, stale = self._check(request, saved, self._known().of(catalog))
            if summary is not None:
                if self.opts.templates is not None:  # an office's templates: its reports too
                    self._rerender(rid, catalog)
                return JobResult.skipped(summary, source=job.source)
            if source_of(catalog) not in self._factories:  # loading is not any request's time
                setup = time.perf_counter()
                self._tools(catalog)
                started += time.perf_counter() - setup
            factory, stages = self._tools(catalog)
            ctx = run_request(
                request, self.opts.for_request(self.store, factory, stages, self.stop)
            )
            result = JobResult.finished(ctx, source=job.source)
            if stale and result.status == "done" and not self.opts.force:
                result.status = "rerun_stale"
        except StaleResultError as exc:
            result = JobResult(id=rid, source=job.source, status="stale", error=str(exc))
        except CatalogSourceMissingError as exc:
            result = JobResult(id=rid, source=job.source, status="catalog_missing",
                               error=str(exc))  # fmt: skip
        except StorageError as exc:
            log.error("job.unwritable", request_id=rid, source=job.source, error=str(exc))
            result = JobResult(id=rid, source=job.source, status="unwritable", error=str(exc))
        except LockHeldError as exc:
            result = JobResult(id=rid, source=job.source, status="locked", error=str(exc))
        except RunInterrupted as exc:
            result = JobResult(
                id=rid,
                source=job.source,
                status="interrupted",
                state=State(exc.state),
                error=str(exc),
            )
        except AdvisingError as exc:
            result = JobResult(id=rid, source=job.source, status="failed", error=str(exc))
        except Exception as exc:  # an engine bug must not sink the whole batch
            log.exception("job.crashed", request_id=rid, source=job.source)
            error = f"{type(exc).__name__}: {exc}"
            result = JobResult(id=rid, source=job.source, status="failed", error=error)
        result.ms = round((time.perf_counter() - started) * 1000, 3)
        result.checkpoint_bytes = self.store.bytes_written - bytes0
        result.checkpoint_ms = self.store.write_ms - ms0
        result.checkpoint_io_ms = self.store.io_ms - io0
        result.rss_mb = peak_rss_mb()
        release_free_memory()
        return result


def peak_rss_mb() -> float:
    """This process's peak resident memory. Linux's VmHWM, because getrusage's maxrss also
    counts the parent's memory copied before ``exec`` (a subprocess of a big process)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def release_free_memory() -> None:
    """Hand the heap pages a request freed back to the OS (glibc's ``malloc_trim``, ~0.3
    ms), so a worker's resident memory is what it keeps, not what its largest request
    once needed (~4 MB less per worker); a no-op where the C library has no such call."""
    global _TRIM
    if _TRIM is None:
        try:
            import ctypes

            _TRIM = ctypes.CDLL(None).malloc_trim
        except (OSError, AttributeError):
            _TRIM = False
    if _TRIM:
        _TRIM(0)


_TRIM: Any = None  # libc's malloc_trim once looked up; False where there is none
_WORKER: WorkerState | None = None


def _die_with_parent() -> None:
    """Ask Linux to SIGKILL this worker when the batch process dies, so a crashed batch
    leaves no orphan blocked on its task queue. Safe: checkpoints are atomic."""
    try:
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: ParentWatch still stops busy workers
        pass


def init_worker(opts: RunOptions, event: StopFlag, parent_pid: int) -> None:
    """Pool initializer: logging, the stop flag and the worker's state.

    Workers are born with SIGINT and SIGTERM blocked (the batch blocks them while it
    starts workers, and the mask survives exec): a terminal's Ctrl-C reaches the whole
    process group, but only the batch decides - it sets ``event`` on the first signal and
    kills the workers on the second. Blocking also keeps native code (CP-SAT) from acting
    on a Ctrl-C in the middle of a solve."""
    from pipeline.logs import configure_logging

    global _WORKER
    pause_gc()  # until the agents and the catalog are loaded (WorkerState._tools)
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    _die_with_parent()
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(1)
    configure_logging(opts.console_level, json_path=opts.log_path)
    _WORKER = WorkerState(opts, _AnyStop(event, ParentWatch(parent_pid)))


def run_job(job: Job) -> JobResult:
    if _WORKER is None:  # pragma: no cover - only without init_worker
        raise RuntimeError("run_job called in a process without init_worker")
    return _WORKER.process(job)

"""The batch driver: run validated requests on N worker processes (or N Ray actors,
``pipeline.ray_engine``) and summarize.

Memory stays flat: the input is read one request at a time (``pipeline.batch_input``), at
most ``2 * workers`` requests are in flight, per-request results are streamed to this
run's ``summaries/<run-id>.jsonl`` (merged into ``batch-summary.jsonl`` at the end, see
``pipeline.summaries``) and only counters, a duplicate-id map and a list of durations are
kept (``pipeline.results``). Rerunning the same command skips requests that are done with
their outputs present and the same fingerprints, reruns stale ones (``pipeline.stale``)
and resumes the rest. Progress goes to stderr (``pipeline.progress``).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

import structlog

from agents.errors import StorageError
from agents.files import check_writable
from pipeline.batch_input import (
    InputItem,
    Invalid,
    RequestValidator,
)
from pipeline.jobs import Job, RunOptions, WorkerState, init_worker, peak_rss_mb, run_job
from pipeline.progress import ProgressMode, start_progress
from pipeline.results import BatchReport, JobResult, JobStatus
from pipeline.runner import STOP_SIGNALS
from pipeline.summaries import SummaryWriter

log = structlog.get_logger(__name__)


def run_batch(
    items: Iterator[InputItem],
    opts: RunOptions,
    *,
    stop: Any,
    total: int | None = None,
    progress: bool | ProgressMode = False,
    clock: Callable[[], float] = time.monotonic,
) -> BatchReport:
    """Process ``items``; ``stop.is_set()`` ends the batch cleanly (remaining: not started).

    ``total`` (the number of items, if known) gives the progress an ETA; ``progress`` is a
    ``ProgressMode`` (``True`` means ``"bar"``, ``False`` ``"off"``); ``clock`` times the
    progress's rate and ETA."""
    started = time.perf_counter()
    report = BatchReport(workers=opts.workers)
    validator = RequestValidator(
        opts.exceptions_dir, calendar=opts.calendar, alternatives=opts.alternatives
    )
    seen: dict[str, str] = {}
    check_writable(opts.state_dir)  # a read-only or full state/ is said before any work
    summary = SummaryWriter(opts.out_dir, state_dir=opts.state_dir)
    report.run_summary = summary.path
    # With -v the console shows the batch.progress events: no second line for each.
    echo = opts.console_level not in ("info", "debug")
    meter = start_progress(progress, total, every_s=opts.progress_every_s, echo=echo, clock=clock)

    def emit(result: JobResult) -> None:
        report.add(result)
        if result.status == "unwritable" and report.storage_error is None:
            report.storage_error = result.error
        try:
            summary.write(result)
        except StorageError as exc:  # whole lines or none (see SummaryWriter.write)
            report.storage_error = report.storage_error or str(exc)
        if meter:
            meter.advance(result.status)

    log.info("batch.started", workers=opts.workers, requests=total, state_dir=str(opts.state_dir),
             engine=opts.engine)  # fmt: skip
    pool = _pool(opts, stop)
    inline = None if pool else WorkerState(opts, stop)
    abandon = True
    try:
        for item in items:
            if stop.is_set() or report.storage_error is not None:
                break  # out of space or not writable: the next requests would fail alike
            job = _validate(item, validator, seen)
            if isinstance(job, JobResult):
                emit(job)
            elif pool is not None:
                for result in pool.submit(job):
                    emit(result)
            else:
                assert inline is not None
                emit(inline.process(job))
        if pool is not None:
            for result in pool.drain():
                emit(result)
        abandon = False
    finally:
        if pool is not None:
            pool.close(abandon)
        try:
            summary.close()
        except StorageError as exc:
            report.storage_error = report.storage_error or str(exc)
        if meter:
            meter.close()
    if report.storage_error is not None:
        log.error("batch.storage", error=report.storage_error,
                  note="requests not started were left for a rerun")  # fmt: skip
    report.wall_s = time.perf_counter() - started
    report.peak_rss_mb_parent = peak_rss_mb()
    report.stopped = stop.is_set()
    log.info("batch.finished", **report.as_json())
    return report


def _validate(
    item: InputItem, validator: RequestValidator, seen: dict[str, str]
) -> Job | JobResult:
    """The job to run for ``item``, or its ``invalid`` result."""
    if item.resume_id is not None:
        return Job(source=item.source, resume_id=item.resume_id)
    checked = validator.check(item)
    if isinstance(checked, Invalid):
        return _invalid(checked.request_id, item.source, checked.message)
    rid = checked.request_id
    if rid in seen:
        return _invalid(rid, item.source, f"duplicate request id {rid!r} (first at {seen[rid]})")
    seen[rid] = item.source
    return Job(source=item.source, request_json=checked.model_dump_json())


def _invalid(rid: str | None, source: str, error: str) -> JobResult:
    """An invalid request's result, logged with every problem (the printed table lists
    only the first few requests; the log and the summary line have them all)."""
    log.info("batch.invalid", request_id=rid, source=source, error=error)
    return JobResult(id=rid, source=source, status="invalid", error=error)


class _Engine(Protocol):
    """Where requests run: ``_Pool`` here, or ``pipeline.ray_engine.RayPool``."""

    def submit(self, job: Job) -> list[JobResult]: ...
    def drain(self) -> list[JobResult]: ...
    def close(self, abandon: bool) -> None: ...


def _pool(opts: RunOptions, stop: Any) -> _Engine | None:
    """The engine ``opts`` asks for; None: run requests in this process (one worker)."""
    if opts.engine == "ray":
        from pipeline.ray_engine import RayPool  # Ray is an optional extra

        return RayPool(opts, stop)
    return _Pool(opts, stop) if opts.workers > 1 else None


class _Pool:
    """Worker processes with a bounded window of requests in flight."""

    def __init__(self, opts: RunOptions, stop: Any) -> None:
        import multiprocessing as mp

        # spawn: workers start clean (no inherited threads or locks), load the catalog once.
        self._mp = mp.get_context("spawn")
        self._opts = opts
        self._event = self._mp.Event()
        self._stop = stop
        self._window = 2 * opts.workers
        self._pending: dict[Future[JobResult], Job] = {}
        self._executor = self._start()

    def _start(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self._opts.workers,
            mp_context=self._mp,
            initializer=init_worker,
            initargs=(self._opts, self._event, os.getpid()),
        )

    def _collect(self) -> list[JobResult]:
        # A short timeout, so a stop requested by a signal reaches the workers promptly.
        done, _ = wait(self._pending, timeout=0.2, return_when=FIRST_COMPLETED)
        if self._stop.is_set():
            self._event.set()
        out: list[JobResult] = []
        for future in done:
            job = self._pending.pop(future)
            try:
                out.append(future.result())
            except Exception as exc:  # a worker died (OOM killer, a native crash): all its
                # pool's pending jobs fail with it; a rerun resumes them from checkpoints
                status: JobStatus = "interrupted" if self._stop.is_set() else "failed"
                error = f"worker process died: {exc}"
                out.append(
                    JobResult(id=job.resume_id, source=job.source, status=status, error=error)
                )
        if any(isinstance(f.exception(), BrokenProcessPool) for f in done):
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = self._start()
        return out

    def submit(self, job: Job) -> list[JobResult]:
        out: list[JobResult] = []
        while len(self._pending) >= self._window:
            out.extend(self._collect())
        # Workers are started inside submit and inherit this mask: they never see
        # SIGINT/SIGTERM (see jobs.init_worker); pending signals arrive when unblocked.
        old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            self._pending[self._executor.submit(run_job, job)] = job
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        return out

    def drain(self) -> list[JobResult]:
        out: list[JobResult] = []
        while self._pending:
            out.extend(self._collect())
        return out

    def close(self, abandon: bool) -> None:
        self._event.set()
        if abandon:  # a second signal: do not wait for stages; checkpoints are atomic
            for process in list(getattr(self._executor, "_processes", {}).values()):
                process.kill()
        self._executor.shutdown(wait=True, cancel_futures=True)

"""The batch driver: stream requests from a JSONL file, a directory of JSON files or stdin,
validate each, run them on N worker processes, and summarize.

Memory stays flat: the input is read one request at a time, at most ``2 * workers``
requests are in flight, per-request results are streamed to ``batch-summary.jsonl`` and
only counters, a duplicate-id map and a list of durations are kept. Rerunning the same
command skips requests that are done with their outputs present and resumes the rest.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, BinaryIO, Literal, TextIO

import structlog
from pydantic import ValidationError

from agents.artifacts import PlanRequest, artifact_schema
from agents.catalog import json_path, schema_problems
from pipeline.errors import ExitCode, RequestInputError, UnsafeRequestIdError
from pipeline.jobs import Job, RunOptions, WorkerState, init_worker, peak_rss_mb, run_job
from pipeline.runner import STOP_SIGNALS, outputs_present
from pipeline.store import CheckpointStore, check_request_id

log = structlog.get_logger(__name__)

Status = Literal["done", "skipped", "failed", "invalid", "locked", "interrupted"]
MAX_LISTED = 10  # failures and invalid requests listed in the printed table


@dataclass
class BatchReport:
    """Counters and timings of one batch run (no per-request objects are kept)."""

    status: dict[str, int] = field(default_factory=dict)
    outcomes: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)
    llm_calls: int = 0
    tokens: int = 0
    durations_ms: list[float] = field(default_factory=list)
    stage_ms: dict[str, list[float]] = field(default_factory=dict)
    checkpoint_bytes: int = 0
    checkpoint_ms: float = 0.0  # on the request's critical path
    checkpoint_io_ms: float = 0.0  # writing files (overlapping stages when in the background)
    wall_s: float = 0.0
    peak_rss_mb_parent: float = 0.0
    peak_rss_mb_worker: float = 0.0
    workers: int = 1
    stopped: bool = False  # a stop was requested: requests after it were not started

    @property
    def requests(self) -> int:
        return sum(self.status.values())

    def count(self, status: str) -> int:
        return self.status.get(status, 0)

    @property
    def exit_code(self) -> ExitCode:
        if self.stopped or self.count("interrupted"):
            return ExitCode.INTERRUPTED
        if self.count("failed") or self.count("invalid") or self.count("locked"):
            return ExitCode.FAILED
        return ExitCode.OK

    def add(self, line: dict[str, Any]) -> None:
        status = line["status"]
        self.status[status] = self.status.get(status, 0) + 1
        if line.get("outcome"):
            self.outcomes[line["outcome"]] = self.outcomes.get(line["outcome"], 0) + 1
        where = f"{line['id'] or '?'} ({line['source']}): {line['error']}"
        if status == "invalid" and len(self.invalid) < MAX_LISTED:
            self.invalid.append(where)
        elif status in ("failed", "locked") and len(self.failures) < MAX_LISTED:
            self.failures.append(where)
        self.llm_calls += line.get("llm_calls", 0)
        self.tokens += line.get("tokens", 0)
        if status not in ("skipped", "invalid"):
            self.durations_ms.append(line.get("ms", 0.0))
        for stage, ms in line.get("stage_ms", {}).items():
            self.stage_ms.setdefault(stage, []).append(ms)
        self.checkpoint_bytes += line.get("checkpoint_bytes", 0)
        self.checkpoint_ms += line.get("checkpoint_ms", 0.0)
        self.checkpoint_io_ms += line.get("checkpoint_io_ms", 0.0)
        self.peak_rss_mb_worker = max(self.peak_rss_mb_worker, line.get("rss_mb", 0.0))

    def as_json(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "status": dict(sorted(self.status.items())),
            "outcomes": dict(sorted(self.outcomes.items())),
            "llm_calls": self.llm_calls,
            "tokens": self.tokens,
            "p50_ms": round(percentile(self.durations_ms, 50), 2),
            "p95_ms": round(percentile(self.durations_ms, 95), 2),
            "wall_s": round(self.wall_s, 3),
            "workers": self.workers,
            "checkpoint_bytes": self.checkpoint_bytes,
            "checkpoint_ms": round(self.checkpoint_ms, 1),
            "peak_rss_mb_parent": round(self.peak_rss_mb_parent, 1),
            "peak_rss_mb_worker": round(self.peak_rss_mb_worker, 1),
            "exit_code": int(self.exit_code),
            "failures": self.failures,
            "invalid": self.invalid,
        }


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * pct // 100))
    return float(ordered[int(rank) - 1])


# Summary line fields written to batch-summary.jsonl, in this order.
SUMMARY_FIELDS = ("id", "source", "status", "state", "outcome", "rounds", "llm_calls",
                  "tokens", "ms", "error")  # fmt: skip


class _Summary:
    """``<out_dir>/batch-summary.jsonl``, one line per request as it finishes."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._f: TextIO = path.open("w", encoding="utf-8")

    def write(self, line: dict[str, Any]) -> None:
        self._f.write(json.dumps({k: line.get(k) for k in SUMMARY_FIELDS}) + "\n")
        self._f.flush()

    def close(self) -> None:
        self._f.close()


def run_batch(
    items: Iterator[InputItem],
    opts: RunOptions,
    *,
    stop: Any,
    total: int | None = None,
    progress: bool = False,
) -> BatchReport:
    """Process ``items``; ``stop.is_set()`` ends the batch cleanly (remaining: not started)."""
    started = time.perf_counter()
    report = BatchReport(workers=opts.workers)
    validator = RequestValidator()
    seen: dict[str, str] = {}
    summary = _Summary(opts.out_dir / "batch-summary.jsonl")
    bar = _Progress(total) if progress else None

    def emit(line: dict[str, Any]) -> None:
        report.add(line)
        summary.write(line)
        if bar:
            bar.advance(line["status"])

    log.info("batch.started", workers=opts.workers, requests=total, state_dir=str(opts.state_dir))
    pool = _Pool(opts, stop) if opts.workers > 1 else None
    inline = None if pool else WorkerState(opts, stop)
    abandon = True
    try:
        for item in items:
            if stop.is_set():
                break
            job = _validate(item, validator, seen)
            if isinstance(job, dict):
                emit(job)
            elif pool is not None:
                for line in pool.submit(job):
                    emit(line)
            else:
                assert inline is not None
                emit(inline.process(job))
        if pool is not None:
            for line in pool.drain():
                emit(line)
        abandon = False
    finally:
        if pool is not None:
            pool.close(abandon)
        summary.close()
        if bar:
            bar.close()
    report.wall_s = time.perf_counter() - started
    report.peak_rss_mb_parent = peak_rss_mb()
    report.stopped = stop.is_set()
    log.info("batch.finished", **report.as_json())
    return report


def _validate(item: InputItem, validator: RequestValidator, seen: dict[str, str]) -> Job | dict:
    if item.resume_id is not None:
        return Job(source=item.source, resume_id=item.resume_id)
    checked = validator.check(item)
    invalid = {"source": item.source, "status": "invalid", "state": None, "ms": 0.0}
    if isinstance(checked, Invalid):
        return {**invalid, "id": checked.request_id, "error": checked.message}
    rid = checked.request_id
    if rid in seen:
        return {
            **invalid,
            "id": rid,
            "error": f"duplicate request id {rid!r} (first at {seen[rid]})",
        }
    seen[rid] = item.source
    return Job(source=item.source, request_json=checked.model_dump_json())


# --------------------------------------------------------------------------- input


@dataclass(frozen=True)
class InputItem:
    """One request as read: its place in the input and its text (or why it is unreadable),
    or the id of a checkpoint to resume."""

    source: str
    text: str | None = None
    error: str | None = None
    resume_id: str | None = None


def iter_input(spec: str) -> Iterator[InputItem]:
    """Stream ``spec``: a JSONL file (one request per line), a directory of ``*.json``
    files (one request each) or ``-`` for JSON lines on stdin."""
    if spec == "-":
        yield from _lines(sys.stdin.buffer)
        return
    path = Path(spec)
    if path.is_dir():
        names = sorted(e.name for e in os.scandir(path) if e.name.endswith(".json"))
        for name in names:
            try:
                yield InputItem(source=name, text=(path / name).read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError) as exc:
                yield InputItem(source=name, error=f"cannot read: {exc}")
        return
    with path.open("rb") as f:
        yield from _lines(f)


def _lines(f: BinaryIO) -> Iterator[InputItem]:
    for number, data in enumerate(f, 1):
        if not data.strip():
            continue
        try:
            yield InputItem(source=f"line {number}", text=data.decode("utf-8").rstrip())
        except UnicodeDecodeError as exc:
            yield InputItem(source=f"line {number}", error=f"not UTF-8 text ({exc.reason})")


def resume_items(store: CheckpointStore, out_dir: Path) -> Iterator[InputItem]:
    """Every checkpoint that is not finished (or whose outputs are missing)."""
    for rid in store.ids():
        raw = store.read_raw(rid)
        if raw is None or raw.get("state") != "done" or not outputs_present(out_dir, rid):
            yield InputItem(source=f"checkpoint {rid}", resume_id=rid)


@dataclass(frozen=True)
class Invalid:
    """Why a request was rejected before running."""

    request_id: str | None
    message: str


def plan_request_schema() -> dict[str, Any]:
    """The published request schema; generated from the model if the file is absent."""
    published = resources.files("agents") / "schemas" / "plan_request.schema.json"
    if published.is_file():
        return dict(json.loads(published.read_text(encoding="utf-8")))
    return artifact_schema("plan_request")


class RequestValidator:
    """JSON, then the request JSON Schema, then the model, then a safe id."""

    def __init__(self) -> None:
        self._schema = plan_request_schema()

    def check(self, item: InputItem) -> PlanRequest | Invalid:
        if item.error is not None or item.text is None:
            return Invalid(None, item.error or "empty")
        try:
            raw = json.loads(item.text)
        except json.JSONDecodeError as exc:
            where = (
                f"line {exc.lineno} column {exc.colno}" if exc.lineno > 1 else f"column {exc.colno}"
            )
            return Invalid(None, f"not valid JSON at {where}: {exc.msg}")
        rid = raw.get("request_id") if isinstance(raw, dict) else None
        rid = rid if isinstance(rid, str) else None
        problems = schema_problems(raw, self._schema)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            return Invalid(rid, problems[0] + more)
        try:
            request = PlanRequest.model_validate(raw)
            check_request_id(request.request_id)
        except ValidationError as exc:
            first = exc.errors()[0]
            return Invalid(rid, f"{json_path(first['loc'])}: {first['msg']}")
        except UnsafeRequestIdError as exc:
            return Invalid(rid, f"$.request_id: {exc}")
        return request


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
        self._pending: dict[Future[dict[str, Any]], Job] = {}
        self._executor = self._start()

    def _start(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self._opts.workers,
            mp_context=self._mp,
            initializer=init_worker,
            initargs=(self._opts, self._event, os.getpid()),
        )

    def _collect(self) -> list[dict[str, Any]]:
        # A short timeout, so a stop requested by a signal reaches the workers promptly.
        done, _ = wait(self._pending, timeout=0.2, return_when=FIRST_COMPLETED)
        if self._stop.is_set():
            self._event.set()
        out = []
        for future in done:
            job = self._pending.pop(future)
            try:
                out.append(future.result())
            except Exception as exc:  # a worker died (OOM killer, a native crash): all its
                # pool's pending jobs fail with it; a rerun resumes them from checkpoints
                status = "interrupted" if self._stop.is_set() else "failed"
                error = f"worker process died: {exc}"
                out.append({"id": job.resume_id, "source": job.source, "status": status,
                            "state": None, "error": error, "ms": 0.0})  # fmt: skip
        if any(isinstance(f.exception(), BrokenProcessPool) for f in done):
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = self._start()
        return out

    def submit(self, job: Job) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
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

    def drain(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        while self._pending:
            out.extend(self._collect())
        return out

    def close(self, abandon: bool) -> None:
        self._event.set()
        if abandon:  # a second signal: do not wait for stages; checkpoints are atomic
            for process in list(getattr(self._executor, "_processes", {}).values()):
                process.kill()
        self._executor.shutdown(wait=True, cancel_futures=True)


class _Progress:
    def __init__(self, total: int | None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        self._progress = Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self._task = self._progress.add_task("requests", total=total)
        self._progress.start()

    def advance(self, status: str) -> None:
        self._progress.update(self._task, advance=1, description=f"requests (last: {status})")

    def close(self) -> None:
        self._progress.stop()


def input_items(spec: str) -> tuple[Iterator[InputItem], int | None]:
    """The items of ``spec`` (JSONL file, directory, or '-') and their count if cheap."""
    if spec != "-" and not Path(spec).exists():
        raise RequestInputError(
            f"batch input {spec!r} does not exist; pass a JSONL file, a directory of JSON "
            "files, or '-' to read JSON lines from stdin"
        )
    return iter_input(spec), _count(spec)


def _count(spec: str) -> int | None:
    path = Path(spec)
    if spec == "-":
        return None
    if path.is_dir():
        return sum(1 for e in os.scandir(path) if e.name.endswith(".json"))
    with path.open("rb") as f:
        return sum(1 for line in f if line.strip())

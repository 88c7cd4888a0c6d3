"""Run one request through the machine, from scratch or from its checkpoint.

- The request's lock is held for the whole run, so two runners never work one request.
- A checkpoint is written after every stage, and as soon as an LLM call is recorded, so
  finished stages never run again and no call is paid for twice. Under the request's lock
  a checkpoint is one line appended to the request's journal and fsynced before the next
  stage starts (``pipeline.store``), so a run SIGKILLed mid-stage redoes only that stage.
- A stage that raises is recorded (type, message, innermost frames) and the run moves to
  ``failed``; resuming it re-enters that stage.
- On SIGINT/SIGTERM (``GracefulStop``) the current stage finishes, the checkpoint is
  written and ``RunInterrupted`` is raised; a second signal abandons the stage at once
  (the checkpoint from before it stays valid).
- A finished run writes ``<out_dir>/<id>.json``, ``.md`` and ``.html`` atomically.
"""

from __future__ import annotations

import signal
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from types import FrameType
from typing import Protocol

import structlog
from pydantic import PrivateAttr

from agents import negotiation
from agents.artifacts import PlanRequest
from agents.catalog import use_catalog
from agents.files import atomic_write_many, ensure_dir, remove_temps
from agents.llm import LLMBackend, LLMCall, LLMLedger
from agents.reports import use_templates
from agents.toolbox import Settings, Toolbox
from pipeline import degraded
from pipeline.approvals import deny_pending
from pipeline.context import (
    TERMINAL,
    RunConfig,
    StageErrorRecord,
    StageTiming,
    State,
    WorkflowContext,
    new_context,
    utc_now,
)
from pipeline.errors import RunInterrupted
from pipeline.machine import MACHINE, Run, StageSet, fire, real_stages, run_stage
from pipeline.outputs import keep_previous, outputs_present, render_outputs
from pipeline.stale import Fingerprints, check_resume
from pipeline.store import CheckpointStore, check_request_id

log = structlog.get_logger(__name__)


class StopFlag(Protocol):
    def is_set(self) -> bool: ...


class ToolboxFactory:
    """Loads the catalog and builds the LLM backend once; hands each request a Toolbox
    bound to that request's ledger (the Toolbox is reused so its caches are too)."""

    def __init__(
        self,
        *,
        catalog_path: str | Path | None = None,
        backend: str = "offline",
        model: str | None = None,
        index_dir: Path | None = None,
        llm: LLMBackend | None = None,
    ) -> None:
        from agents.catalog import catalog_fingerprint, load_catalog
        from agents.llm import make_backend
        from pipeline.workspace import source_of

        self.catalog = load_catalog(catalog_path)
        self.catalog_fingerprint = catalog_fingerprint(catalog_path)
        self.catalog_source = source_of(catalog_path)
        self.llm = llm if llm is not None else make_backend(backend, model=model)
        self.index_dir = index_dir
        self._toolbox: Toolbox | None = None

    def run_config(self, settings: Settings, stages: str) -> RunConfig:
        return RunConfig.of(settings, backend=self.llm.name, model=self.llm.model, stages=stages)

    def __call__(self, ledger: LLMLedger, settings: Settings) -> Toolbox:
        if self._toolbox is None:
            self._toolbox = Toolbox(
                catalog=self.catalog, llm=self.llm, settings=settings, index_dir=self.index_dir
            )
        self._toolbox.ledger = ledger
        self._toolbox.settings = settings
        return self._toolbox


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class GracefulStop:
    """First SIGINT/SIGTERM: finish the current stage, then stop. Second: abandon it."""

    def __init__(self, also: StopFlag | None = None) -> None:
        self._event = threading.Event()
        self._also = also
        self._armed: bool | None = None  # None: handlers never installed (direct use)
        self.signals = 0

    def is_set(self) -> bool:
        return self._event.is_set() or (self._also is not None and self._also.is_set())

    def request(self) -> None:
        self._event.set()

    def handle(self, signum: int, frame: FrameType | None) -> None:
        self.signals += 1
        if self._armed is False:
            return  # the work is over (the CLI is printing its summary): nothing to stop
        if self.signals == 1:
            self._event.set()
            log.warning(
                "interrupt.requested",
                signal=signal.Signals(signum).name,
                note="finishing the current stage; signal again to abandon it",
            )
            return
        raise KeyboardInterrupt

    @contextmanager
    def installed(self, restore: bool = True) -> Iterator[GracefulStop]:
        """Handle SIGINT/SIGTERM inside the block. ``restore=False`` (a CLI command about
        to exit) keeps ignoring them afterwards, so a late second Ctrl-C cannot turn a
        clean, checkpointed exit into a traceback."""
        if threading.current_thread() is not threading.main_thread():
            yield self  # signals are only delivered to the main thread
            return
        old = {s: signal.signal(s, self.handle) for s in STOP_SIGNALS}
        self._armed = True
        try:
            yield self
        finally:
            self._armed = False
            if restore:
                for s, handler in old.items():
                    signal.signal(s, handler)

    def rearm(self) -> None:
        """Install the handlers again. Native code may replace them behind Python's back
        (CP-SAT catches SIGINT during a solve and leaves SIG_DFL behind), which would turn
        the next Ctrl-C into an abrupt exit."""
        if self._armed and threading.current_thread() is threading.main_thread():
            for s in STOP_SIGNALS:
                signal.signal(s, self.handle)


class SavingLedger(LLMLedger):
    """The context's ledger as the stages see it: it shares the context's list of calls
    and checkpoints the context as soon as a call is recorded, so a run killed in the
    middle of a stage never pays for that call again (the reply is reused on resume)."""

    _ctx: WorkflowContext | None = PrivateAttr(default=None)
    _store: CheckpointStore | None = PrivateAttr(default=None)

    @classmethod
    def over(cls, ctx: WorkflowContext, store: CheckpointStore) -> SavingLedger:
        view = cls.model_construct(calls=ctx.ledger.calls, reused=ctx.ledger.reused)
        view._ctx = ctx
        view._store = store
        return view

    def sync(self) -> None:
        if self._ctx is not None:
            self._ctx.ledger.reused = self.reused

    def record(self, call: LLMCall) -> None:
        super().record(call)
        self.sync()
        if self._ctx is not None and self._store is not None:
            self._store.save(self._ctx)
            self._store.flush()  # a paid reply must be on disk before the stage goes on


def _traceback_summary(exc: BaseException, limit: int = 6) -> list[str]:
    frames = traceback.extract_tb(exc.__traceback__)[-limit:]
    return [f"{Path(f.filename).name}:{f.lineno} in {f.name}" for f in frames]


@dataclass(frozen=True)
class RequestOptions:
    """How one request is run (``run_request``): where its checkpoint and outputs go, what
    it runs with, and what may stop it. Frozen: a run never changes its own options."""

    store: CheckpointStore
    """The checkpoint store (locks, atomic saves)."""
    toolbox_factory: ToolboxFactory
    """Makes each request's ``Toolbox`` (catalog, LLM backend) and says the catalog's
    fingerprint."""
    settings: Settings
    """Planner and loop settings (``max_rounds``, time limits)."""
    force: bool = False
    """Rerun a finished request from the start (previous checkpoint and outputs kept as
    ``.prev``)."""
    stages: StageSet | None = None
    """The stage agents (None: the real ones, ``pipeline.machine.real_stages``)."""
    out_dir: Path | None = Path("out")
    """Where a finished request's JSON, Markdown and HTML are written (None: nowhere)."""
    stop: StopFlag | None = None
    """Checked between stages: when set, the run saves and raises ``RunInterrupted``."""
    rerun_stale: bool = True
    """Rerun a finished request made with another catalog or configuration."""
    no_wait: bool = False
    """Decide pending approvals as denied instead of stopping for a person (a dry run)."""
    templates: Path | None = None
    """An office's directory of report templates (``agents.reports``)."""


def run_request(request: PlanRequest, options: RequestOptions) -> WorkflowContext:
    """Run ``request`` to ``done``, ``awaiting_approval`` or ``failed``, resuming its
    checkpoint if there is one. A run waiting for approval goes on once every approval it
    asked for is decided (``pipeline.approvals``); ``options.no_wait`` decides them as
    denied (a dry run that never stops for a person). ``options.templates`` is an office's
    directory of report templates (``agents.reports``), used for the letter and the outputs.

    ``options.force`` reruns a finished request from the start; a stale finished request
    (another catalog or configuration fingerprint) is rerun unless ``options.rerun_stale``
    is False. Both keep the previous checkpoint and outputs as ``.prev``
    (``pipeline.stale``).

    Raises LockHeldError, FingerprintMismatchError, RequestChangedError, StaleResultError,
    a CheckpointError, or RunInterrupted (checkpoint saved, resumable)."""
    rid = check_request_id(request.request_id)
    if options.stages is None:
        options = replace(options, stages=real_stages())
    store, factory = options.store, options.toolbox_factory
    with store.lock(rid), use_catalog(factory.catalog), use_templates(options.templates):
        try:
            return _run_locked(request, rid, options)
        finally:
            store.flush()  # before the lock goes: the next holder must see every save


def _run_locked(request: PlanRequest, rid: str, options: RequestOptions) -> WorkflowContext:
    store, factory, settings = options.store, options.toolbox_factory, options.settings
    out_dir, stages = options.out_dir, options.stages
    assert stages is not None  # run_request resolves it
    config = factory.run_config(settings, stages.name)
    current = Fingerprints(factory.catalog_fingerprint, config.fingerprint())
    saved = store.load(rid)
    ctx = saved
    if saved is not None:
        was_done = saved.state is State.done  # check_resume may reopen it
        ctx = check_resume(saved, request, current=current, config=config, force=options.force,
                            rerun_stale=options.rerun_stale, path=store.path(rid))  # fmt: skip
        if ctx is not None:
            ctx.catalog_source = factory.catalog_source
        if was_done and (ctx is None or ctx.state is not State.done):
            keep_previous(store.path(rid), out_dir, rid)  # rerun, or reopened at synthesis
        if ctx is not None and ctx.state is State.done and ctx.degraded:
            keep_previous(store.path(rid), out_dir, rid)  # the LLM backend failed last time
            ctx = degraded.redo(ctx)
            store.save(ctx)
    if ctx is None:
        # Not saved yet: until intake is checkpointed there is nothing worth resuming.
        ctx = new_context(request, catalog_fingerprint=factory.catalog_fingerprint,
                          config=config, catalog_source=factory.catalog_source)  # fmt: skip
    if ctx.state is not State.done:
        ledger = SavingLedger.over(ctx, store)
        tools = factory(ledger, settings)
        _drive(ctx, tools, options)
    done = ctx.state is State.done
    if done and out_dir is not None and not outputs_present(out_dir, rid):
        files = render_outputs(ctx, stages, out_dir)
        store.flush()  # outputs only ever follow a durable "done" checkpoint
        ensure_dir(out_dir)
        for path in files:
            remove_temps(path)  # a killed holder's; the lease makes us the only writer
        atomic_write_many(files)
    return ctx


def _drive(ctx: WorkflowContext, tools: Toolbox, options: RequestOptions) -> None:
    stages, store, stop = options.stages, options.store, options.stop
    assert stages is not None  # run_request resolves it
    max_rounds = options.settings.max_rounds
    run = Run(ctx, max_rounds)
    MACHINE.add_model(run, initial=run.state)
    try:
        if run.state is State.failed:
            log.info(
                "run.retry",
                request_id=ctx.request_id,
                stage=ctx.failed_stage and ctx.failed_stage.value,
            )
            fire(run, "retry")
        while True:
            if run.state is State.awaiting_approval:
                if options.no_wait:
                    deny_pending(ctx, tools.today())
                if not negotiation.decided(ctx.case()):
                    break  # a person decides (advise approve / deny), then resumes
                fire(run, "decide")
                store.save(ctx)
                log.info("run.decided", request_id=ctx.request_id, next=ctx.state.value)
            if run.state in TERMINAL:
                break
            if isinstance(stop, GracefulStop):
                stop.rearm()
            if stop is not None and stop.is_set():
                store.save(ctx)
                raise RunInterrupted(ctx.request_id, ctx.state.value)
            _run_stage(run, stages, tools, store)
    finally:
        MACHINE.remove_model(run)
    log.info(
        "run.finished",
        request_id=ctx.request_id,
        state=ctx.state.value,
        outcome=ctx.outcome if ctx.state is State.done else ctx.state.value,
        rounds=ctx.round,
        duration_ms=round(ctx.total_ms(), 1),
    )


def _run_stage(run: Run, stages: StageSet, tools: Toolbox, store: CheckpointStore) -> None:
    ctx = run.ctx
    name = run.state
    attempt = ctx.attempts.get(name, 0) + 1
    ctx.attempts[name] = attempt
    round_ = ctx.round
    calls = len(ctx.ledger.calls)
    started = time.perf_counter()
    try:
        try:
            run_stage(stages, ctx, tools)
        finally:
            if isinstance(tools.ledger, SavingLedger):
                tools.ledger.sync()
        fire(run, "advance")
    except KeyboardInterrupt:
        # Abandoned: the checkpoint from before this stage is still the truth.
        raise RunInterrupted(ctx.request_id, name.value) from None
    except Exception as exc:
        ms = (time.perf_counter() - started) * 1000
        ctx.timings.append(StageTiming(stage=name, round=round_, attempt=attempt, ms=ms, ok=False))
        ctx.errors.append(
            StageErrorRecord(
                stage=name,
                round=round_,
                attempt=attempt,
                type=type(exc).__name__,
                message=str(exc),
                traceback=_traceback_summary(exc),
                at=utc_now(),
            )
        )
        ctx.failed_stage = name
        fire(run, "fail")
        store.save(ctx)
        log.error(
            "stage.failed",
            request_id=ctx.request_id,
            stage=name.value,
            round=round_,
            duration_ms=round(ms, 1),
            outcome="failed",
            error=f"{type(exc).__name__}: {exc}",
        )
        return
    ms = (time.perf_counter() - started) * 1000
    ctx.timings.append(StageTiming(stage=name, round=round_, attempt=attempt, ms=ms, ok=True))
    ctx.failed_stage = None
    degraded.note_stage(ctx, name, calls)
    store.save(ctx)
    log.info(
        "stage.done",
        request_id=ctx.request_id,
        stage=name.value,
        round=round_,
        duration_ms=round(ms, 1),
        outcome="ok",
        next=ctx.state.value,
    )

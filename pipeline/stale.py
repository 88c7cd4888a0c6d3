"""Stale results: a finished request whose catalog or configuration fingerprint differs
from the one the current catalog and configuration give.

A batch, ``run`` or ``resume`` reruns a stale request from the start by default, keeping
the previous outputs as ``<out_dir>/<id>.json.prev`` (``.md.prev``, ``.html.prev``) and the
previous checkpoint as ``<state_dir>/<id>.json.prev``; ``--no-rerun-stale`` refuses it with
a ``StaleResultError`` naming both fingerprints. ``advise status`` lists it as ``stale``.
``check_resume`` decides, for a saved checkpoint, whether a run continues it or starts
again. A request that differs from its checkpoint only in what synthesis alone reads
(``SYNTHESIS_FIELDS``: ``--alternatives K`` on a finished request) is not a new request:
its finished run is reopened at synthesis (``reopen_for_synthesis``), the negotiation kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import structlog

from agents.artifacts import PlanRequest
from agents.toolbox import Settings
from pipeline.context import RunConfig, State, WorkflowContext
from pipeline.errors import FingerprintMismatchError, RequestChangedError, StaleResultError

log = structlog.get_logger(__name__)

#: Request fields only the synthesis stage reads: a change to them redoes synthesis alone.
SYNTHESIS_FIELDS = frozenset({"alternatives"})


@dataclass(frozen=True)
class Fingerprints:
    """The catalog and configuration fingerprints a request ran (or would run) under."""

    catalog: str | None
    config: str | None

    def short(self) -> str:
        """Both fingerprints' short forms, as messages and logs quote them."""
        return f"catalog {(self.catalog or '?')[:12]} / config {(self.config or '?')[:12]}"

    def differs(self, other: Fingerprints) -> bool:
        return (self.catalog, self.config) != (other.catalog, other.config)


def current_fingerprints(
    *,
    catalog: str | Path | None,
    backend: str,
    model: str | None,
    settings: Settings,
    stages: str,
) -> Fingerprints:
    """What a run with these options would record, without loading the catalog or the
    agents."""
    from agents.catalog import catalog_fingerprint
    from agents.llm import make_backend
    from pipeline.machine import stage_set_name

    llm = make_backend(backend, model=model)
    config = RunConfig.of(
        settings, backend=llm.name, model=llm.model, stages=stage_set_name(stages)
    )
    return Fingerprints(catalog_fingerprint(catalog), config.fingerprint())


def check_resume(
    ctx: WorkflowContext,
    request: PlanRequest,
    *,
    current: Fingerprints,
    config: RunConfig,
    force: bool,
    rerun_stale: bool,
    path: Path,
) -> WorkflowContext | None:
    """The context to continue, or None to start again (forced, changed request, stale)."""
    rid = ctx.request_id
    saved = Fingerprints(ctx.catalog_fingerprint, ctx.config_fingerprint)
    if ctx.request != request and not force and synthesis_only_change(ctx.request, request):
        # a stale one stays done: it is rerun from the start (or refused) below
        ctx = reopen_for_synthesis(ctx, request, finished_again=not saved.differs(current))
    if ctx.request != request:
        if not force:
            raise RequestChangedError(request.request_id, path)
        log.warning("resume.request_changed", request_id=rid, action="restart")
        return None
    if ctx.state is State.done:
        if force:
            log.warning("rerun.forced", request_id=rid, action="restart, previous kept as .prev")
            return None
        if not saved.differs(current):
            return ctx
        if not rerun_stale:
            raise StaleResultError(rid, saved.short(), current.short(), path)
        log.warning("request.stale", request_id=rid, saved=saved.short(), current=current.short(),
                    action="rerun from the start, previous outputs kept as .prev")  # fmt: skip
        return None
    checks = (
        ("catalog", ctx.catalog_fingerprint, current.catalog or ""),
        ("configuration", ctx.config_fingerprint, config.fingerprint()),
    )
    for what, old, new in checks:
        if old == new:
            continue
        if not force:
            raise FingerprintMismatchError(rid, what, old, new, path)
        log.warning("resume.forced", request_id=rid, what=what, saved=old[:12])
    ctx.catalog_fingerprint = current.catalog or ""
    ctx.config_fingerprint = config.fingerprint()
    ctx.config = config
    return ctx


def synthesis_only_change(saved: PlanRequest, request: PlanRequest) -> bool:
    """True when ``request`` differs from ``saved`` only in ``SYNTHESIS_FIELDS``."""
    changed = {
        name for name in type(request).model_fields
        if getattr(saved, name) != getattr(request, name)
    }  # fmt: skip
    return bool(changed) and changed <= SYNTHESIS_FIELDS


def reopen_for_synthesis(
    ctx: WorkflowContext, request: PlanRequest, *, finished_again: bool = True
) -> WorkflowContext:
    """``ctx`` with ``request`` in place of its saved request; a finished run goes back to
    just before synthesis (the negotiation as it concluded), so only the recommendation is
    redone - unless ``finished_again`` is False (a stale run, rerun whole). A run that has
    not reached synthesis yet simply continues with the new request."""
    fields = sorted(n for n in SYNTHESIS_FIELDS if getattr(ctx.request, n) != getattr(request, n))
    ctx.request = request
    if finished_again and ctx.state is State.done and not ctx.degraded:  # degraded: see redo
        log.warning("request.options_changed", request_id=ctx.request_id, fields=fields,
                    action="redo synthesis, previous outputs kept as .prev")  # fmt: skip
        ctx.state = State.synthesis
        ctx.recommendation = None
    return ctx

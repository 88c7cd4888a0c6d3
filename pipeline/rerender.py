"""Re-render finished requests' outputs from their checkpoints, without running a stage.

An office that edits a template (``--templates DIR``, ``agents.reports``) wants the reports
of requests that already finished written again: ``advise render`` does that, and
``advise batch --templates DIR`` does it for the finished requests it skips. The
recommendation in the checkpoint is rendered to ``<id>.json``, ``.md`` and ``.html``; a
letter the template wrote (``letter_source`` ``template`` or ``template_fallback``) is
written again with ``letter.txt.j2`` first, one a model wrote is kept as it is. The
checkpoint itself is never written. Only files whose bytes change are replaced (atomically,
under the request's lease), so rendering twice is a no-op.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import structlog

from agents.files import atomic_write_many, ensure_dir, remove_temps
from pipeline.context import State, WorkflowContext
from pipeline.errors import CatalogSourceMissingError, LockHeldError, UnsafeRequestIdError
from pipeline.outputs import render_outputs

if TYPE_CHECKING:
    from agents.catalog import Catalog
    from pipeline.machine import StageSet
    from pipeline.store import CheckpointStore

log = structlog.get_logger(__name__)

RenderStatus = Literal[
    "rendered", "unchanged", "unknown", "unfinished", "locked", "catalog_missing"
]
TEMPLATE_LETTERS = ("template", "template_fallback")
# Files an export made from the HTML report: they print the report as it was.
PRINTED_EXPORTS = (".pdf",)


@dataclass
class Rendered:
    """What became of one request: its status, the files replaced, and a message for a
    request that was not rendered (what to do) or an export that is now older."""

    id: str
    status: RenderStatus
    files: list[str] = field(default_factory=list)
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.status in ("rendered", "unchanged")

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status, "files": self.files,
                "message": self.message}  # fmt: skip


def relettered(ctx: WorkflowContext, stages: StageSet) -> WorkflowContext:
    """``ctx`` with its letter written again by the bound ``letter.txt.j2`` when the real
    synthesis wrote it from the template (a model's letter, or another stage set's, is
    kept). The letter depends on the recommendation only, so the shipped template gives
    the letter the run wrote."""
    rec = ctx.recommendation
    if rec is None or stages.name != "real" or rec.letter_source not in TEMPLATE_LETTERS:
        return ctx
    from agents.llm.letters import template_letter

    letter = template_letter(rec)
    return ctx.model_copy(update={"recommendation": rec.model_copy(update={"letter": letter})})


def render_files(ctx: WorkflowContext, stages: StageSet, out_dir: Path) -> dict[Path, bytes]:
    """Every output of the finished ``ctx`` as the bound templates render it now (the
    request's catalog must be bound too: ``agents.catalog.use_catalog``)."""
    return render_outputs(relettered(ctx, stages), stages, out_dir)


def write_changed(files: dict[Path, bytes]) -> list[Path]:
    """Replace the files whose bytes differ (atomically); returns those replaced."""
    changed = {}
    for path, data in files.items():
        try:
            same = path.read_bytes() == data
        except OSError:
            same = False
        if not same:
            changed[path] = data
    if changed:
        ensure_dir(next(iter(changed)).parent)
        for path in changed:
            remove_temps(path)  # a killed writer's; the request's lease makes us the only one
        atomic_write_many(changed)
    return sorted(changed)


def rerender_loaded(
    ctx: WorkflowContext, catalog: Catalog, stages: StageSet, out_dir: Path
) -> list[Path]:
    """Write ``ctx``'s outputs again with the bound templates and ``catalog``; the caller
    holds the request's lease. Returns the files replaced."""
    from agents.catalog import use_catalog

    with use_catalog(catalog):
        files = render_files(ctx, stages, out_dir)
    return write_changed(files)


def rerender(
    store: CheckpointStore,
    out_dir: Path,
    request_id: str,
    *,
    catalog: str | None,
    stages: StageSet,
) -> Rendered:
    """Re-render one request (``catalog``: the one the command names, else the request's
    own). Never raises for the request's own problems: they are the result's message."""
    from agents.catalog import load_catalog
    from pipeline.workspace import catalog_for

    rid = request_id
    where = str(store.root)
    try:
        ctx = store.load(rid)
    except UnsafeRequestIdError as exc:
        return Rendered(rid, "unknown", message=str(exc))
    if ctx is None:
        return Rendered(rid, "unknown", message=f"no checkpoint {rid!r} in {where!r}: check the "
                        "id with 'advise status', or pass the --state-dir it ran with")  # fmt: skip
    if ctx.state is not State.done:
        return Rendered(rid, "unfinished", message=_unfinished(ctx))
    try:
        path = catalog_for(rid, ctx.catalog_source, catalog)
    except CatalogSourceMissingError as exc:
        return Rendered(rid, "catalog_missing", message=str(exc))
    try:
        with store.lock(rid):
            ctx = store.load(rid) or ctx  # as the lease holder sees it
            written = rerender_loaded(ctx, load_catalog(path), stages, out_dir)
    except LockHeldError as exc:
        return Rendered(rid, "locked", message=f"{exc}; render it when that run has finished")
    log.info("render.request", request_id=rid, files=[str(p) for p in written])
    result = Rendered(rid, "rendered" if written else "unchanged", [str(p) for p in written])
    printed = [out_dir / f"{rid}{s}" for s in PRINTED_EXPORTS]
    older = [p for p in printed if p.is_file()]
    if written and older:
        result.message = (f"{', '.join(map(str, older))} still prints the previous report: "
                          f"'advise export {rid} --format pdf' prints it again")  # fmt: skip
    return result


def _unfinished(ctx: WorkflowContext) -> str:
    rid = ctx.request_id
    if ctx.state is State.failed:
        return f"failed: nothing to render; see 'advise show {rid}', fix and 'advise resume {rid}'"
    if ctx.state is State.awaiting_approval:
        return (f"awaiting approval: nothing to render until it is decided ('advise approve' or "
                f"'advise deny') and 'advise resume {rid}' finishes it")  # fmt: skip
    return (f"not finished (next stage: {ctx.state.value}): 'advise resume {rid}' finishes it "
            "and writes its outputs")  # fmt: skip


def finished_ids(store: CheckpointStore) -> tuple[list[str], int]:
    """The ids of every finished checkpoint (read from the fast summaries), and how many
    others there are."""
    done, others = [], 0
    for rid in store.ids():
        summary = store.summary(rid)
        if summary is not None and summary.state is State.done:
            done.append(rid)
        else:
            others += 1
    return done, others


__all__ = ["Rendered", "finished_ids", "relettered", "render_files", "rerender",
           "rerender_loaded", "write_changed"]  # fmt: skip

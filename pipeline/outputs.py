"""A finished request's outputs: ``<out_dir>/<id>.json``, ``.md`` and ``.html``, written
atomically after a durable ``done`` checkpoint, and kept as ``<name>.prev`` (with the
checkpoint) when the request is rerun from the start (forced, or stale)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from agents.files import fsync_dir
from pipeline.context import WorkflowContext
from pipeline.errors import MachineDefinitionError
from pipeline.machine import StageSet

PREV_SUFFIX = ".prev"
OUTPUT_SUFFIXES = (".json", ".md", ".html")


def outputs_present(out_dir: Path, request_id: str) -> bool:
    return all((out_dir / f"{request_id}{suffix}").is_file() for suffix in OUTPUT_SUFFIXES)


def render_outputs(ctx: WorkflowContext, stages: StageSet, out_dir: Path) -> dict[Path, bytes]:
    """The recommendation as JSON, Markdown and HTML, by output file."""
    rec = ctx.recommendation
    if rec is None:
        raise MachineDefinitionError(
            "done", f"was reached by {ctx.request_id!r} without a recommendation"
        )
    renders = (stages.render.to_json, stages.render.to_markdown, stages.render.to_html)
    return {
        out_dir / f"{ctx.request_id}{suffix}": render(rec).encode("utf-8")
        for suffix, render in zip(OUTPUT_SUFFIXES, renders, strict=True)
    }


def keep_previous(checkpoint: Path, out_dir: Path | None, request_id: str) -> list[Path]:
    """Move the checkpoint and the outputs of ``request_id`` to ``<name>.prev`` (replacing
    an older ``.prev``); returns the files kept. Each move is one atomic rename."""
    files = [checkpoint]
    if out_dir is not None:
        files += [out_dir / f"{request_id}{suffix}" for suffix in OUTPUT_SUFFIXES]
    kept: list[Path] = []
    for path in files:
        target = path.with_name(path.name + PREV_SUFFIX)
        with contextlib.suppress(FileNotFoundError):
            os.replace(path, target)
            kept.append(target)
    for directory in {p.parent for p in kept}:
        fsync_dir(directory)
    return kept

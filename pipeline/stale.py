"""Stale results: a finished request whose catalog or configuration fingerprint differs
from the one the current catalog and configuration give.

A batch, ``run`` or ``resume`` reruns a stale request from the start by default, keeping
the previous outputs as ``<out_dir>/<id>.json.prev`` (``.md.prev``, ``.html.prev``) and the
previous checkpoint as ``<state_dir>/<id>.json.prev``; ``--no-rerun-stale`` refuses it with
a ``StaleResultError`` naming both fingerprints. ``advise status`` lists it as ``stale``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agents.toolbox import Settings
from pipeline.context import RunConfig


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
    """What a run with these options would record, without loading the catalog."""
    from agents.catalog import catalog_fingerprint
    from agents.llm import make_backend
    from pipeline.machine import load_stages

    llm = make_backend(backend, model=model)
    config = RunConfig.of(
        settings, backend=llm.name, model=llm.model, stages=load_stages(stages).name
    )
    return Fingerprints(catalog_fingerprint(catalog), config.fingerprint())

"""One workspace, many catalogs: which catalog each request runs against.

A workspace (``state/``, ``out/``) may hold requests made with several catalogs. Each
checkpoint records where its catalog came from (``WorkflowContext.catalog_source``: the
absolute path of the catalog file or directory, or ``BUNDLED`` for the sample that ships
in the package) beside its fingerprint. A command that names a catalog (``--catalog``)
uses it for the requests it is given; otherwise each request that has a checkpoint uses
its own catalog, and a new request the bundled sample. So ``advise status``, ``advise
resume`` and a batch rerun never judge or rerun a request against a catalog it was not
made with, and *stale* means that request's own catalog (or the configuration) changed.
A request whose catalog is gone is reported (``CatalogSourceMissingError``), never rerun
against a default. A checkpoint from before sources were recorded (``None``) uses the
command's catalog, as it always did.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.errors import CatalogSourceMissingError
from pipeline.stale import Fingerprints

BUNDLED = "<bundled>"
"""The catalog source of the sample catalog that ships in the package."""


def source_of(catalog: str | Path | None) -> str:
    """What a checkpoint records for a run with ``catalog`` (None: the bundled sample):
    its absolute path, so a resume from another working directory finds it."""
    return BUNDLED if catalog is None else os.path.abspath(catalog)


def path_of(source: str) -> str | None:
    """The catalog path to load for a recorded source (None: the bundled sample)."""
    return None if source == BUNDLED else source


def describe_source(source: str | None) -> str:
    """A source as listings show it."""
    if source is None:
        return "(not recorded)"
    return "bundled sample" if source == BUNDLED else source


def catalog_for(request_id: str, saved: str | None, named: str | None) -> str | None:
    """The catalog a command uses for a request: the one it names, else the one the
    request's checkpoint records (``saved``; raises CatalogSourceMissingError when it is
    gone), else the bundled sample. None means the bundled sample."""
    if named is not None or saved is None:
        return named
    path = path_of(saved)
    if path is not None and not os.path.exists(path):
        raise CatalogSourceMissingError(request_id, saved)
    return path


def own_catalog(state_dir: Path, request_id: str, named: str | None) -> str | None:
    """The catalog a run of ``request_id`` uses: ``named``, else its checkpoint's own
    (``catalog_for``), else the bundled sample (None)."""
    from pipeline.errors import UnsafeRequestIdError
    from pipeline.store import CheckpointStore

    if named is not None:
        return named
    try:
        summary = CheckpointStore(state_dir).summary(request_id)
    except UnsafeRequestIdError:
        return None  # the request's validation says what is wrong with the id
    return catalog_for(request_id, summary.catalog_source if summary else None, None)


@dataclass
class CatalogFingerprints:
    """Each catalog's fingerprint, computed once per command, with the configuration's:
    what a request's checkpoint is compared with to tell whether it is stale."""

    config: str
    _by_source: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of_command(cls, current: Fingerprints | None, catalog: str | None) -> CatalogFingerprints:
        """Seeded with the fingerprints of the catalog a command named (or the default)."""
        if current is None or current.catalog is None or current.config is None:
            raise ValueError("the command's fingerprints are not known yet")
        known = cls(current.config)
        known._by_source[source_of(catalog)] = current.catalog
        return known

    def of(self, catalog: str | None) -> Fingerprints:
        from agents.catalog import catalog_fingerprint

        source = source_of(catalog)
        if source not in self._by_source:
            self._by_source[source] = catalog_fingerprint(catalog)
        return Fingerprints(self._by_source[source], self.config)

    def for_request(self, request_id: str, saved: str | None, named: str | None) -> Fingerprints:
        """The fingerprints a run of the request would record now; raises
        CatalogSourceMissingError when its own catalog is gone."""
        return self.of(catalog_for(request_id, saved, named))

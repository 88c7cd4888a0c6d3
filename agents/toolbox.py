"""What every stage agent is handed: the catalog, the LLM backend with the request's call
ledger, retrieval, and settings. Built by the pipeline (or a demo or test), never global."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from agents.catalog import Catalog
from agents.llm import LLMBackend, LLMLedger, OfflineBackend

if TYPE_CHECKING:
    from agents.retrieval import Retriever


@dataclass
class Settings:
    """Knobs that change results; part of the configuration fingerprint."""

    max_rounds: int = 3
    planner_time_limit_s: float = 10.0
    horizon_terms: int = 12


@dataclass
class Toolbox:
    """Tools for one request. ``ledger`` belongs to the request's workflow context."""

    catalog: Catalog
    llm: LLMBackend = field(default_factory=OfflineBackend)
    ledger: LLMLedger = field(default_factory=LLMLedger)
    settings: Settings = field(default_factory=Settings)
    index_dir: Path | None = None

    @cached_property
    def retriever(self) -> Retriever:
        from agents.retrieval import Retriever

        return Retriever.for_catalog(self.catalog, index_dir=self.index_dir)

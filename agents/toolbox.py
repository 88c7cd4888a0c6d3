"""What every stage agent is handed: the catalog, the LLM backend with the request's call
ledger, retrieval, and settings. Built by the pipeline (or a demo or test), never global.

A process keeps one Toolbox per catalog and hands it to request after request (with that
request's ledger), so what is derived from the catalog alone - the retrieval index, the
next term's clashing section pairs - is computed once and kept here, not in module-level
caches keyed on object ids. What belongs to one request - the plans it has solved - is
kept for as long as the toolbox holds that request's ledger.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from agents.catalog import Catalog
from agents.llm import LLMBackend, LLMLedger, OfflineBackend

if TYPE_CHECKING:
    from agents.planner.memo import PlanMemo
    from agents.retrieval import Retriever


HORIZON_YEARS = 6
"""Academic years a plan may span by default."""


class Settings(BaseModel):
    """The knobs that change results, defined once: the pipeline's run configuration
    (``pipeline.context.RunConfig``) extends this model, so they are part of the
    configuration fingerprint."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_rounds: int = Field(default=3, ge=1, description="Negotiation rounds allowed.")
    planner_time_limit_s: float = Field(
        default=60.0,
        gt=0,
        description="The planner's wall-clock safety net per planning call, seconds (every "
        "solve has its own deterministic budget; an answer reached after the net fired is "
        "labelled timed_out).",
    )
    horizon_terms: int | None = Field(
        default=None,
        ge=1,
        description="Regular terms the planner may use, counting the first planned one "
        f"(default: {HORIZON_YEARS} academic years of the catalog calendar's regular terms, "
        "12 with semesters).",
    )


@dataclass
class Toolbox:
    """Tools for one request. ``ledger`` belongs to the request's workflow context."""

    catalog: Catalog
    llm: LLMBackend = field(default_factory=OfflineBackend)
    ledger: LLMLedger = field(default_factory=LLMLedger)
    settings: Settings = field(default_factory=Settings)
    index_dir: Path | None = None
    today: Callable[[], date] = date.today
    """The clock: the day a request without ``as_of`` is judged on (advisor exceptions
    expire against it). Tests pass a fixed day."""
    _plans: PlanMemo | None = field(default=None, repr=False)

    @cached_property
    def retriever(self) -> Retriever:
        from agents.retrieval import Retriever

        return Retriever.for_catalog(self.catalog, index_dir=self.index_dir)

    @property
    def plans(self) -> PlanMemo:
        """The planning problems the current request has solved (``agents.planner.memo``): a
        new memo whenever this toolbox is handed another request's ledger."""
        if self._plans is None or self._plans.owner is not self.ledger:
            from agents.planner.memo import PlanMemo

            self._plans = PlanMemo(owner=self.ledger)
        return self._plans

    @property
    def horizon_terms(self) -> int:
        """Regular terms the planner may use: the setting, or the default span in the
        catalog's calendar."""
        given = self.settings.horizon_terms
        return (
            given if given is not None else HORIZON_YEARS * self.catalog.calendar.regular_per_year
        )

"""``CheckpointSummary``: the few fields of a checkpoint that listings and skip checks
read, parsed without validating the whole workflow context.

``advise status`` over thousands of checkpoints and a batch rerun's skip check need the
state, the outcome and the request, not every artifact, so they read this view (through
``CheckpointStore.summary``). Every field is read leniently: a missing value, or one of the
wrong type, reads as None and the rest of the summary stands. Reporting a broken
checkpoint (and moving it aside) is ``CheckpointStore.load``'s job, not a listing's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)

from agents.artifacts import Outcome
from pipeline.context import State
from pipeline.stale import Fingerprints

T = TypeVar("T")


def _or_none(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    try:
        return handler(value)
    except ValidationError:
        return None


# A field that reads as None when its value is missing or does not validate.
Lenient = Annotated[T | None, WrapValidator(_or_none)]


class CheckpointSummary(BaseModel):
    """What a listing or a skip check needs from one checkpoint."""

    # "ignore", not "forbid": this is a partial view of a WorkflowContext, whose other
    # fields are deliberately skipped.
    model_config = ConfigDict(extra="ignore", frozen=True)

    request_id: str = Field(description="The id the checkpoint is filed under (its file name).")
    state: Lenient[State] = Field(
        default=None, description="Machine state; None when missing or not a known state."
    )
    failed_stage: Lenient[State] = Field(
        default=None, description="Stage that failed, if the run failed."
    )
    outcome: Lenient[Outcome] = Field(
        default=None, description="Terminal status decided when the loop ended, if any."
    )
    round: Lenient[int] = Field(default=None, description="Current negotiation round.")
    updated_at: Lenient[datetime] = Field(default=None, description="Last checkpoint (UTC).")
    request: Lenient[dict[str, Any]] = Field(
        default=None,
        description="The request as stored (plain JSON), compared with a rerun's request.",
    )
    catalog_fingerprint: Lenient[str] = Field(
        default=None, description="sha256 of the catalog the request ran under."
    )
    catalog_source: Lenient[str] = Field(
        default=None, description="Where the request's catalog came from (None: not recorded)."
    )
    config_fingerprint: Lenient[str] = Field(
        default=None, description="sha256 of the configuration the request ran under."
    )
    degraded: Lenient[dict[str, str]] = Field(
        default=None,
        description="Stages the LLM backend failed in (stage -> what failed); None when none.",
    )
    graduation_term: Lenient[str] = Field(
        default=None, description="The recommendation's planned graduation term, if any."
    )
    infeasible_kind: Lenient[str] = Field(
        default=None,
        description="An infeasible recommendation's kind: 'proven', or 'timed_out' (no plan "
        "before a time limit ran out, not a proof).",
    )
    llm_calls: int = Field(default=0, description="LLM calls in the checkpoint's ledger.")
    tokens: int = Field(default=0, description="Input plus output tokens of those calls.")

    @property
    def fingerprints(self) -> Fingerprints:
        return Fingerprints(self.catalog_fingerprint, self.config_fingerprint)

    @model_validator(mode="before")
    @classmethod
    def _none_degraded(cls, data: Any) -> Any:
        """No degraded stage reads as None, as in a checkpoint from before they were kept."""
        if isinstance(data, dict) and not data.get("degraded"):
            return {**data, "degraded": None}
        return data

    @model_validator(mode="before")
    @classmethod
    def _graduation(cls, data: Any) -> Any:
        """The planned graduation and the kind of an infeasible outcome, read from the
        recommendation without validating it."""
        if not isinstance(data, dict) or "recommendation" not in data:
            return data
        rec = data["recommendation"]
        rec = rec if isinstance(rec, dict) else {}
        return {
            **data,
            "graduation_term": rec.get("graduation_term"),
            "infeasible_kind": rec.get("infeasible_kind"),
        }

    @model_validator(mode="before")
    @classmethod
    def _ledger_totals(cls, data: Any) -> Any:
        """Count the ledger's calls and tokens instead of validating every call."""
        if not isinstance(data, dict) or "ledger" not in data:
            return data
        ledger = data["ledger"]
        calls = ledger.get("calls") if isinstance(ledger, dict) else None
        calls = [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []
        tokens = sum(
            n
            for c in calls
            for n in (c.get("input_tokens", 0), c.get("output_tokens", 0))
            if isinstance(n, int)
        )
        return {**data, "llm_calls": len(calls), "tokens": tokens}

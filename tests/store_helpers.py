"""Shared pieces for the checkpoint store tests (tests/test_store_*.py): the run config and a
fresh workflow context."""

from __future__ import annotations

from pipeline.context import RunConfig, WorkflowContext, new_context
from tests.fake_stages import make_request

CONFIG = RunConfig(
    backend="offline", model="rules", max_rounds=3, planner_time_limit_s=10, horizon_terms=12
)


def _ctx(request_id: str = "r1") -> WorkflowContext:
    return new_context(make_request(request_id), catalog_fingerprint="a" * 64, config=CONFIG)

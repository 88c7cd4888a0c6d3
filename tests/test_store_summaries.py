"""The checkpoint store's summaries: the listed fields read from a checkpoint, ``None`` for an
unreadable one (the file stays), and bad values read as ``None`` while the rest is kept."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agents.llm import LLMCall, LLMLedger
from pipeline.checkpoint_summary import CheckpointSummary
from pipeline.context import State
from pipeline.store import CheckpointStore
from tests.store_helpers import _ctx


def test_summary_reads_the_listed_fields_of_a_checkpoint(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    ctx = _ctx()
    ctx.state, ctx.failed_stage, ctx.round, ctx.outcome = State.failed, State.critique, 2, None
    ctx.ledger = LLMLedger(
        calls=[
            LLMCall(task="intake", backend="offline", model="rules", prompt_hash="h1",
                    response="ok", input_tokens=10, output_tokens=5, status="ok"),
            LLMCall(task="letter", backend="offline", model="rules", prompt_hash="h2",
                    response="ok", input_tokens=1, output_tokens=2, status="ok"),
        ]
    )  # fmt: skip
    store.save(ctx)
    assert store.summary("r1") == CheckpointSummary(
        request_id="r1",
        state=State.failed,
        failed_stage=State.critique,
        outcome=None,
        round=2,
        updated_at=ctx.updated_at,
        request=ctx.request.model_dump(mode="json"),
        catalog_fingerprint=ctx.catalog_fingerprint,
        config_fingerprint=ctx.config_fingerprint,
        llm_calls=2,
        tokens=18,
    )
    assert store.summary("r2") is None


@pytest.mark.parametrize("text", ["{", "[]", '"done"'])
def test_summary_of_an_unreadable_checkpoint_is_none_and_the_file_stays(
    tmp_path: Path, text: str
) -> None:
    (tmp_path / "r1.json").write_text(text, encoding="utf-8")
    assert CheckpointStore(tmp_path).summary("r1") is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r1.json"]


def test_summary_reads_bad_values_as_none_and_keeps_the_rest(tmp_path: Path) -> None:
    raw = {
        "request_id": "elsewhere",
        "state": "weird",
        "failed_stage": 3,
        "outcome": 7,
        "round": "r",
        "updated_at": "2020-01-01T10:11:12Z",
        "request": [],
        "ledger": {"calls": [{"input_tokens": 3, "output_tokens": 4}, "x", {"input_tokens": "9"}]},
    }
    (tmp_path / "r1.json").write_text(json.dumps(raw), encoding="utf-8")
    assert CheckpointStore(tmp_path).summary("r1") == CheckpointSummary(
        request_id="r1",
        updated_at=datetime(2020, 1, 1, 10, 11, 12, tzinfo=UTC),
        llm_calls=2,
        tokens=7,
    )

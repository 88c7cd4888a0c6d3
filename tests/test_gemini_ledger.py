"""The Gemini backend's LLM ledger: a recorded reply is reused without a request, a resumed
run replays the saved ledger (re-ask included), and failed calls or different prompts are
not reused."""

from __future__ import annotations

import pytest

from agents.catalog import Catalog, load_catalog
from agents.llm import (
    LLMLedger,
)
from agents.llm.gemini import GeminiBackend
from tests.fake_gemini import FakeGemini, error_reply, json_reply, text_reply
from tests.gemini_helpers import (
    GOOD,
    KEY,
    POLICY,
    TEXT,
    FakeClock,
)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def test_a_recorded_reply_is_reused_without_any_request(
    fake: FakeGemini, backend: GeminiBackend, catalog: Catalog
) -> None:
    fake.enqueue(json_reply(GOOD))
    ledger = LLMLedger()
    first = backend.extract_intake(TEXT, catalog=catalog, ledger=ledger)

    second = backend.extract_intake(TEXT, catalog=catalog, ledger=ledger)

    assert second == first
    assert len(fake.requests) == 1
    assert ledger.reused == 1
    assert len(ledger.calls) == 1


def test_a_resumed_run_replays_the_saved_ledger_including_the_reask(
    fake: FakeGemini, clock: FakeClock, catalog: Catalog
) -> None:
    fake.enqueue(text_reply("{not json"), json_reply(GOOD))
    ledger = LLMLedger()
    with GeminiBackend(KEY, base_url=fake.base_url, retry=POLICY, sleep=clock.sleep) as b:
        before = b.extract_intake(TEXT, catalog=catalog, ledger=ledger)
    saved = ledger.model_dump_json()

    # A new process: new backend, ledger loaded from the checkpoint's JSON.
    resumed = LLMLedger.model_validate_json(saved)
    with GeminiBackend(KEY, base_url=fake.base_url, retry=POLICY, sleep=clock.sleep) as b:
        after = b.extract_intake(TEXT, catalog=catalog, ledger=resumed)

    assert after == before
    assert len(fake.requests) == 2  # both from the first run
    assert resumed.reused == 2
    assert resumed.calls == LLMLedger.model_validate_json(saved).calls


def test_a_failed_call_is_not_reused_and_a_different_prompt_is_not_either(
    fake: FakeGemini, backend: GeminiBackend, catalog: Catalog
) -> None:
    fake.enqueue(error_reply(400, "bad request"), json_reply(GOOD), json_reply(GOOD))
    ledger = LLMLedger()
    backend.extract_intake(TEXT, catalog=catalog, ledger=ledger)
    backend.extract_intake(TEXT, catalog=catalog, ledger=ledger)
    backend.extract_intake(TEXT + " Thanks!", catalog=catalog, ledger=ledger)

    assert [c.status for c in ledger.calls] == ["error", "ok", "ok"]
    assert ledger.calls[0].prompt_hash == ledger.calls[1].prompt_hash
    assert ledger.calls[1].prompt_hash != ledger.calls[2].prompt_hash
    assert ledger.reused == 0
    assert ledger.tokens == 240

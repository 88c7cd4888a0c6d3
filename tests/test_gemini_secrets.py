"""Secrets and the Gemini backend: the API key is used only on the wire and never reaches
the ledger, result notes or logs; redaction masks known keys, key-shaped strings and secret
fields, and the structlog processor masks events before any renderer."""

from __future__ import annotations

import pytest
import structlog

from agents.catalog import Catalog, load_catalog
from agents.llm import (
    LLMLedger,
)
from agents.llm.gemini import GeminiBackend
from agents.llm.redact import redact, redact_processor, redact_text, register_secret
from tests.fake_gemini import FakeGemini, error_reply
from tests.gemini_helpers import (
    KEY,
    TEXT,
    draft,
)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def test_the_key_never_reaches_the_ledger_notes_or_logs(
    fake: FakeGemini, backend: GeminiBackend, catalog: Catalog
) -> None:
    # A server error that echoes the key (some gateways do) is the worst case.
    fake.enqueue(error_reply(400, f"API key {KEY} not valid"), *[error_reply(503)] * 5)
    ledger = LLMLedger()
    with structlog.testing.capture_logs() as logs:
        first = backend.extract_intake(TEXT, catalog=catalog, ledger=ledger)
        second = backend.write_letter(draft(), ledger=ledger)

    assert fake.requests[0].headers["x-goog-api-key"] == KEY  # it was used, only on the wire
    assert first.note == (
        "gemini call failed: HTTP 400 INVALID_ARGUMENT: API key *** not valid (after 1 "
        "attempt); the offline parser read the text"
    )
    written = ledger.model_dump_json() + first.model_dump_json() + second.model_dump_json()
    assert KEY not in written
    assert KEY not in repr(logs)
    assert [e["event"] for e in logs].count("llm_retry") == 4


def test_redact_masks_known_keys_key_shaped_strings_and_secret_fields(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "env-secret-value-123")
    register_secret("registered-secret-456")
    shaped = "AIza" + "B" * 35
    data = {
        "api_key": "anything",
        "x-goog-api-key": "v",
        "Authorization": "Bearer t",
        "empty_api_key": "",
        "input_tokens": 12,
        "key": "sort-key",
        "msg": "env-secret-value-123 and registered-secret-456",
        "url": "https://h/v1beta/models/m?key=abc&alt=json",
        "nested": [shaped, ("x", 1, None)],
    }

    assert redact(data) == {
        "api_key": "***",
        "x-goog-api-key": "***",
        "Authorization": "***",
        "empty_api_key": "",
        "input_tokens": 12,
        "key": "sort-key",
        "msg": "*** and ***",
        "url": "https://h/v1beta/models/m?key=***&alt=json",
        "nested": ["***", ("x", 1, None)],
    }
    assert redact_text("short") == "short"


def test_redact_processor_masks_events_before_any_renderer() -> None:
    register_secret(KEY)
    event = {"event": "llm_call", "api_key": KEY, "error": ValueError(f"bad {KEY}"), "n": 3}

    assert redact_processor(None, "info", event) == {
        "event": "llm_call",
        "api_key": "***",
        "error": "ValueError: bad ***",
        "n": 3,
    }

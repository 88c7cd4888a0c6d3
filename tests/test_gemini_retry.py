"""The Gemini backend's retry policy against the local fake server: waits honouring the
server's retry hints, 5xx storms and time budgets ending in the offline fallback, client
timeouts and refused connections.

No test sleeps: the backend gets a fake clock whose ``sleep`` only advances time and
records the wait, so the retry policy's waits are asserted exactly. The only real waiting
is the 50 ms client timeout of the timeout tests.
"""

from __future__ import annotations

import json
import socket

import pytest

from agents.catalog import Catalog, load_catalog
from agents.llm import (
    IntakeExtraction,
    LLMLedger,
    LLMResult,
)
from agents.llm.gemini import GeminiBackend, RetryPolicy
from tests.fake_gemini import FakeGemini, Reply, error_reply, json_reply, text_reply
from tests.gemini_helpers import (
    GOOD,
    KEY,
    NEVER,
    TEXT,
    FakeClock,
    call,
    offline,
    same_calls,
)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


@pytest.mark.parametrize(
    ("first", "wait"),
    [
        (error_reply(429, "quota", retry_delay="2s"), 2.0),
        (error_reply(429, "quota", retry_after="3"), 3.0),
        (error_reply(503, "busy", retry_delay="0.25s"), 0.5),  # backoff is longer; it wins
        (error_reply(500), 0.5),
    ],
)
def test_transient_error_then_success_waits_at_least_what_the_server_asked(
    fake: FakeGemini,
    backend: GeminiBackend,
    clock: FakeClock,
    catalog: Catalog,
    first: Reply,
    wait: float,
) -> None:
    fake.enqueue(first, json_reply(GOOD))
    ledger = LLMLedger()

    result = backend.extract_intake(TEXT, catalog=catalog, ledger=ledger)

    assert result == LLMResult(value=IntakeExtraction(**GOOD), source="gemini")
    assert clock.sleeps == [wait]
    assert same_calls(
        ledger,
        [
            call(
                response=json.dumps(GOOD),
                input_tokens=100,
                output_tokens=20,
                latency_ms=wait * 1000,
                attempts=2,
            )
        ],
    )
    assert len(fake.requests) == 2


def test_5xx_storm_exhausts_the_attempts_and_falls_back_to_the_offline_parser(
    fake: FakeGemini, backend: GeminiBackend, clock: FakeClock, catalog: Catalog
) -> None:
    fake.enqueue(*[error_reply(503, "overloaded")] * 5)
    ledger = LLMLedger()

    result = backend.extract_intake(TEXT, catalog=catalog, ledger=ledger)

    error = "HTTP 503 UNAVAILABLE: overloaded (after 5 attempts)"
    assert result == LLMResult(
        value=offline(TEXT, catalog),
        source="offline_fallback",
        note=f"gemini call failed: {error}; the offline parser read the text",
    )
    assert clock.sleeps == [0.5, 1.0, 2.0, 4.0]
    assert same_calls(ledger, [call(status="error", error=error, attempts=5, latency_ms=7500.0)])
    assert fake.pending == 0


def test_time_budget_stops_before_a_wait_that_would_pass_it(
    fake: FakeGemini, clock: FakeClock, catalog: Catalog
) -> None:
    fake.enqueue(*[error_reply(502, "bad gateway")] * 5)
    policy = RetryPolicy(max_total_s=3.0, initial_s=0.5, jitter_s=0, timeout_s=30)
    with GeminiBackend(
        KEY, base_url=fake.base_url, retry=policy, sleep=clock.sleep, clock=clock.now
    ) as b:
        result = b.extract_intake(TEXT, catalog=catalog, ledger=LLMLedger())

    assert clock.sleeps == [0.5, 1.0]  # the next wait (2 s) would end at 3.5 s > 3 s
    assert result.note == (
        "gemini call failed: HTTP 502 UNAVAILABLE: bad gateway (after 3 attempts); "
        "the offline parser read the text"
    )
    assert fake.pending == 2


def test_server_asking_for_longer_than_the_budget_ends_the_loop_at_once(
    fake: FakeGemini, backend: GeminiBackend, clock: FakeClock, catalog: Catalog
) -> None:
    fake.enqueue(error_reply(429, "daily quota", retry_delay="3600s"))

    result = backend.extract_intake(TEXT, catalog=catalog, ledger=LLMLedger())

    assert clock.sleeps == []
    assert result.source == "offline_fallback"
    assert result.note == (
        "gemini call failed: HTTP 429 RESOURCE_EXHAUSTED: daily quota (after 1 attempt); "
        "the offline parser read the text"
    )


def test_timeout_is_retried_and_the_next_attempt_succeeds(
    fake: FakeGemini, clock: FakeClock, catalog: Catalog
) -> None:
    fake.enqueue(text_reply("{}", delay_s=NEVER), json_reply(GOOD))
    ledger = LLMLedger()
    policy = RetryPolicy(max_attempts=5, initial_s=0.5, jitter_s=0, timeout_s=0.5)
    with GeminiBackend(
        KEY, base_url=fake.base_url, retry=policy, sleep=clock.sleep, clock=clock.now
    ) as b:
        result = b.extract_intake(TEXT, catalog=catalog, ledger=ledger)

    assert result == LLMResult(value=IntakeExtraction(**GOOD), source="gemini")
    assert clock.sleeps == [0.5]
    assert ledger.calls[0].attempts == 2


def test_timeouts_until_the_budget_is_spent_fall_back(
    fake: FakeGemini, clock: FakeClock, catalog: Catalog
) -> None:
    fake.enqueue(*[text_reply("{}", delay_s=NEVER)] * 2)
    policy = RetryPolicy(max_attempts=2, initial_s=0.001, jitter_s=0, timeout_s=0.5)
    with GeminiBackend(
        KEY, base_url=fake.base_url, retry=policy, sleep=clock.sleep, clock=clock.now
    ) as b:
        ledger = LLMLedger()
        result = b.extract_intake(TEXT, catalog=catalog, ledger=ledger)

    assert result.source == "offline_fallback"
    assert result.note == (
        "gemini call failed: ReadTimeout: timed out (after 2 attempts); "
        "the offline parser read the text"
    )
    assert [c.status for c in ledger.calls] == ["error"]


def test_refused_connection_is_retried_then_falls_back(clock: FakeClock, catalog: Catalog) -> None:
    with socket.socket() as s:  # a port that was free a moment ago: nobody listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    policy = RetryPolicy(max_attempts=3, initial_s=0.01, jitter_s=0, timeout_s=1)
    with GeminiBackend(
        KEY,
        base_url=f"http://127.0.0.1:{port}",
        retry=policy,
        sleep=clock.sleep,
        clock=clock.now,
    ) as b:
        ledger = LLMLedger()
        result = b.extract_intake(TEXT, catalog=catalog, ledger=ledger)

    assert result.source == "offline_fallback"
    assert clock.sleeps == [0.01, 0.02]
    assert ledger.calls[0].error is not None
    assert ledger.calls[0].error.startswith("ConnectError: ")
    assert ledger.calls[0].error.endswith("(after 3 attempts)")

"""LLM faults bounded: a reply that drips in (or never starts) is cut at the call's total
deadline, and a 200 whose body is not a Gemini reply (a proxy's error page) is a transient
fault - retried, then the offline path answers - recorded in the ledger like any other.

Against the local fake server, through the real SDK. The retry waits run on the fake
clock; the only real waiting is the 1 s deadline of the deadline tests, inside the fake
server's thread.
"""

from __future__ import annotations

import json
import time

import pytest

from agents.catalog import Catalog, load_catalog
from agents.errors import LLMConfigError
from agents.llm import IntakeExtraction, LLMLedger, LLMResult
from agents.llm.gemini import GeminiBackend, RetryPolicy
from tests.fake_gemini import FakeGemini, Reply, json_reply, text_reply
from tests.gemini_helpers import GOOD, KEY, TEXT, FakeClock, call, offline, same_calls

HTML = "<html><body><h1>502 Bad Gateway</h1>nginx</body></html>"
PAGE = Reply(body=HTML, content_type="text/html")
PAGE_ERROR = (
    "LLMResponseError: HTTP 200 response body is not a JSON object (text/html, "
    f"{len(HTML)} bytes, starting {HTML!r})"
)
DEADLINE_ERROR = (
    "LLMDeadlineError: no complete reply within the call's deadline of 1 s "
    "(raise GEMINI_DEADLINE_S to wait longer)"
)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def fell_back(error: str, catalog: Catalog) -> LLMResult[IntakeExtraction]:
    return LLMResult(
        value=offline(TEXT, catalog),
        source="offline_fallback",
        note=f"gemini call failed: {error}; the offline parser read the text",
    )


@pytest.mark.parametrize(
    "reply",
    [
        Reply(body=json_reply(GOOD).body, drip_s=0.1),
        text_reply("{}", delay_s=30),  # nothing at all, not even the headers
    ],
    ids=["body-drips", "headers-never-come"],
)
@pytest.mark.slow
def test_a_reply_that_never_completes_is_cut_at_the_call_deadline_and_falls_back(
    fake: FakeGemini, clock: FakeClock, catalog: Catalog, reply: Reply
) -> None:
    # The per-read timeout (30 s) never fires on a drip: only the total deadline cuts it.
    policy = RetryPolicy(max_total_s=1.0, initial_s=0.5, jitter_s=0, timeout_s=30)
    fake.enqueue(reply, json_reply(GOOD))
    ledger = LLMLedger()
    with GeminiBackend(
        KEY, base_url=fake.base_url, retry=policy, sleep=clock.sleep, clock=clock.now
    ) as b:
        started = time.monotonic()
        result = b.extract_intake(TEXT, catalog=catalog, ledger=ledger)
        took = time.monotonic() - started

    assert 1.0 <= took < 2.5
    assert result == fell_back(f"{DEADLINE_ERROR} (after 1 attempt)", catalog)
    assert same_calls(ledger, [call(status="error", error=f"{DEADLINE_ERROR} (after 1 attempt)")])
    assert clock.sleeps == []  # past the deadline nothing is retried
    assert (len(fake.generate_requests()), fake.pending) == (1, 1)


def test_a_call_within_the_deadline_is_untouched_by_it(
    fake: FakeGemini, clock: FakeClock, catalog: Catalog
) -> None:
    policy = RetryPolicy(max_total_s=1.0, jitter_s=0, timeout_s=30)
    fake.enqueue(Reply(body=json_reply(GOOD).body, drip_s=0.0005))
    with GeminiBackend(
        KEY, base_url=fake.base_url, retry=policy, sleep=clock.sleep, clock=clock.now
    ) as b:
        result = b.extract_intake(TEXT, catalog=catalog, ledger=LLMLedger())

    assert result == LLMResult(value=IntakeExtraction(**GOOD), source="gemini")


def test_a_200_error_page_is_retried_and_the_next_reply_is_used(
    fake: FakeGemini, backend: GeminiBackend, clock: FakeClock, catalog: Catalog
) -> None:
    fake.enqueue(PAGE, json_reply(GOOD))
    ledger = LLMLedger()

    result = backend.extract_intake(TEXT, catalog=catalog, ledger=ledger)

    assert result == LLMResult(value=IntakeExtraction(**GOOD), source="gemini")
    assert clock.sleeps == [0.5]
    assert same_calls(
        ledger,
        [
            call(
                response=json.dumps(GOOD),
                input_tokens=100,
                output_tokens=20,
                latency_ms=500.0,
                attempts=2,
            )
        ],
    )


def test_200_error_pages_until_the_attempts_run_out_fall_back_and_are_recorded(
    fake: FakeGemini, backend: GeminiBackend, clock: FakeClock, catalog: Catalog
) -> None:
    fake.enqueue(*[PAGE] * 5)
    ledger = LLMLedger()

    result = backend.extract_intake(TEXT, catalog=catalog, ledger=ledger)

    error = f"{PAGE_ERROR} (after 5 attempts)"
    assert result == fell_back(error, catalog)
    assert clock.sleeps == [0.5, 1.0, 2.0, 4.0]
    assert same_calls(ledger, [call(status="error", error=error, attempts=5, latency_ms=7500.0)])
    assert fake.pending == 0


JSON_TYPE = "application/json; charset=UTF-8"


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("", f"is not a JSON object ({JSON_TYPE}, 0 bytes, starting '')"),
        ("[1, 2]", f"is not a JSON object ({JSON_TYPE}, 6 bytes, starting '[1, 2]')"),
        # The SDK's own words follow "(1 validation error ..."; they vary with pydantic.
        ('{"candidates": [{"content": 5}]}', "is not a Gemini reply (1 validation error"),
    ],
    ids=["empty", "not-an-object", "not-a-gemini-reply"],
)
def test_other_unreadable_200_bodies_are_retried_as_transient_faults(
    fake: FakeGemini, clock: FakeClock, catalog: Catalog, body: str, problem: str
) -> None:
    fake.enqueue(Reply(body=body), Reply(body=body))
    policy = RetryPolicy(max_attempts=2, initial_s=0.5, jitter_s=0)
    ledger = LLMLedger()
    with GeminiBackend(
        KEY, base_url=fake.base_url, retry=policy, sleep=clock.sleep, clock=clock.now
    ) as b:
        result = b.extract_intake(TEXT, catalog=catalog, ledger=ledger)

    [failed] = ledger.calls
    assert failed.status == "error"
    assert failed.error is not None
    assert failed.error.startswith(f"LLMResponseError: HTTP 200 response body {problem}")
    assert failed.error.endswith(" (after 2 attempts)")
    assert result == fell_back(failed.error, catalog)
    assert clock.sleeps == [0.5]


def test_a_letter_call_answered_by_an_error_page_sends_the_template_letter(
    fake: FakeGemini, backend: GeminiBackend, catalog: Catalog
) -> None:
    from tests.gemini_helpers import draft

    fake.enqueue(*[PAGE] * 5)
    ledger = LLMLedger()

    result = backend.write_letter(draft(), ledger=ledger)

    assert result.source == "offline_fallback"
    assert result.note == (
        f"gemini call failed: {PAGE_ERROR} (after 5 attempts); the template letter was used"
    )
    assert [(c.task, c.status) for c in ledger.calls] == [("letter", "error")]


@pytest.mark.slow
def test_the_deadline_is_a_setting_read_from_the_environment() -> None:
    env = {"GEMINI_API_KEY": KEY, "GEMINI_DEADLINE_S": "2.5"}
    with GeminiBackend.from_env(environ=env) as b:
        assert b.retry == RetryPolicy(max_total_s=2.5)
    with GeminiBackend.from_env(environ={"GEMINI_API_KEY": KEY}) as b:
        assert b.retry.max_total_s == 60.0


@pytest.mark.parametrize("value", ["soon", "0", "-1", "inf", "nan"])
def test_a_deadline_that_is_not_a_number_of_seconds_says_how_to_fix_it(value: str) -> None:
    with pytest.raises(LLMConfigError) as err:
        GeminiBackend.from_env(environ={"GEMINI_API_KEY": KEY, "GEMINI_DEADLINE_S": value})
    assert str(err.value) == (
        f"GEMINI_DEADLINE_S={value!r} is not a number of seconds; set e.g. GEMINI_DEADLINE_S=60"
    )


def test_the_proxy_the_environment_names_is_used_unless_no_proxy_excludes_the_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The deadline transport switches httpx's own proxy lookup off, so it looks them up.
    from agents.llm.transport import PUBLIC_ENDPOINT, proxy_for

    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    assert proxy_for(PUBLIC_ENDPOINT) is None
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    assert proxy_for(PUBLIC_ENDPOINT) == "http://proxy.example:3128"
    assert proxy_for("https://127.0.0.1:8443") is None
    assert proxy_for("http://gateway.example") is None  # no HTTP_PROXY, no ALL_PROXY
    monkeypatch.setenv("ALL_PROXY", "socks5://proxy.example:1080")
    assert proxy_for("http://gateway.example") == "socks5://proxy.example:1080"

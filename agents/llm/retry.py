"""The one retry layer of the Gemini backend (the SDK's own retries are switched off).

Retried: HTTP 429, 500, 502, 503, 504, timeouts, dropped or refused connections, and a
2xx response whose body is not a JSON object (``LLMResponseError``: a proxy's error page).
Not retried: every other status (400 bad request, 403 bad key ...), which would fail the
same way again, and a call past its total deadline (``LLMDeadlineError``: no time left).
Waits grow exponentially with jitter and are never shorter than what the server asked
for (``Retry-After`` header or ``google.rpc.RetryInfo.retryDelay`` in a 429 body). The
loop stops after ``max_attempts`` attempts, or before a wait that would pass
``max_total_s`` - so a server that asks for two minutes ends the loop at once; inside an
attempt the same ``max_total_s`` is a hard deadline on every socket operation
(``agents.llm.transport``), so a reply that drips in byte by byte is cut at it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import structlog
import tenacity
from google.genai import errors as genai_errors

from agents.errors import LLMConfigError, LLMDeadlineError, LLMResponseError
from agents.llm.redact import redact_text

log = structlog.get_logger(__name__)

RETRY_STATUS_CODES = frozenset({429, 500, 502, 503, 504})

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


def _transport_errors() -> tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]]:
    """(transient, every) transport exception of whichever httpx the SDK runs on."""
    transient: list[type[BaseException]] = [TimeoutError, ConnectionError]
    every: list[type[BaseException]] = [OSError]
    for name in ("httpx2", "httpx"):  # google-genai 3.x uses httpx2 when it is installed
        try:
            mod = __import__(name)
        except ImportError:
            continue
        transient += [mod.TimeoutException, mod.NetworkError, mod.RemoteProtocolError]
        every.append(mod.TransportError)
    return tuple(transient), tuple(every)


_TRANSIENT, _TRANSPORT = _transport_errors()

# What a call may raise that means "no usable reply" rather than a bug in our code.
CALL_FAILURES: tuple[type[BaseException], ...] = (
    genai_errors.APIError,
    genai_errors.UnknownApiResponseError,
    LLMResponseError,
    LLMDeadlineError,
    *_TRANSPORT,
)


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try. Tests shrink the waits and pass a fake sleep; runs keep these.

    ``max_total_s`` is the total deadline of one call - every attempt, wait and byte of
    the reply (``GEMINI_DEADLINE_S``); ``timeout_s`` bounds one socket operation (connect,
    one read: the gap between two bytes)."""

    max_attempts: int = 5
    max_total_s: float = 60.0
    initial_s: float = 1.0
    max_wait_s: float = 20.0
    exp_base: float = 2.0
    jitter_s: float = 1.0
    timeout_s: float = 30.0


def seconds_setting(name: str, text: str) -> float:
    """A setting's value in seconds: a positive, finite number, else a clear error."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise LLMConfigError(f"{name}={text!r} is not a number of seconds; set e.g. {name}=60")
    return value


def is_transient(exc: BaseException) -> bool:
    """Worth retrying: 429/5xx from the API, a 2xx that is not JSON, a timeout, or a
    dropped connection - but not a call past its deadline."""
    if isinstance(exc, LLMDeadlineError):
        return False
    if isinstance(exc, LLMResponseError):
        return True
    if isinstance(exc, genai_errors.APIError):
        return exc.code in RETRY_STATUS_CODES
    return isinstance(exc, _TRANSIENT)


def server_retry_delay(exc: BaseException | None, now: datetime | None = None) -> float | None:
    """Seconds the server asked us to wait (``Retry-After`` or ``RetryInfo``), if it did."""
    if not isinstance(exc, genai_errors.APIError):
        return None
    delays: list[float] = []
    headers = getattr(exc.response, "headers", None)
    after = headers.get("retry-after") if headers is not None else None
    if after:
        try:
            delays.append(float(after))
        except ValueError:
            try:
                when = parsedate_to_datetime(after)
                delays.append((when - (now or datetime.now(UTC))).total_seconds())
            except (TypeError, ValueError):
                pass  # an unreadable header is ignored, the backoff still applies
    body = exc.details.get("error", exc.details) if isinstance(exc.details, dict) else None
    for item in body.get("details", []) if isinstance(body, dict) else []:
        if isinstance(item, dict) and str(item.get("@type", "")).endswith("google.rpc.RetryInfo"):
            match = _DURATION.match(str(item.get("retryDelay", "")))
            if match:
                delays.append(float(match.group(1)))
    return max(0.0, *delays) if delays else None


def error_summary(exc: BaseException) -> str:
    """One redacted line about a failure, for the ledger, notes and logs."""
    if isinstance(exc, genai_errors.APIError):
        text = f"HTTP {exc.code} {exc.status or ''}".strip() + f": {exc.message or ''}"
    else:
        text = f"{type(exc).__name__}: {exc}"
    return redact_text(text.strip().rstrip(":"))[:300]


def make_retrying(
    policy: RetryPolicy,
    *,
    start: float,
    clock: Callable[[], float],
    sleep: Callable[[float], None],
    model: str,
) -> tenacity.Retrying:
    """A tenacity loop for one logical call that started at ``clock() == start``."""

    def wait(state: tenacity.RetryCallState) -> float:
        backoff = policy.initial_s * policy.exp_base ** (state.attempt_number - 1)
        backoff = min(policy.max_wait_s, backoff)
        if policy.jitter_s > 0:
            backoff += random.uniform(0, policy.jitter_s)
        exc = state.outcome.exception() if state.outcome else None
        asked = server_retry_delay(exc)
        return backoff if asked is None else max(backoff, asked)

    def stop(state: tenacity.RetryCallState) -> bool:
        # tenacity computes the wait before it asks whether to stop, so a wait that would
        # run past the budget is never started.
        elapsed = clock() - start
        return (
            state.attempt_number >= policy.max_attempts
            or elapsed + state.upcoming_sleep > policy.max_total_s
        )

    def before_sleep(state: tenacity.RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        log.warning(
            "llm_retry",
            model=model,
            attempt=state.attempt_number,
            wait_s=round(state.upcoming_sleep, 3),
            error=error_summary(exc) if exc else None,
        )

    return tenacity.Retrying(
        retry=tenacity.retry_if_exception(is_transient),
        wait=wait,
        stop=stop,
        sleep=sleep,
        before_sleep=before_sleep,
        reraise=True,
    )

"""The Gemini backend: google-genai behind the ``LLMBackend`` interface of ``agents.llm.boundary``.

The model reads free text and writes prose; it is never the source of a fact. Each
operation has a deterministic path it falls back to, and says so in the result:

- ``extract_intake``: structured output (``response_json_schema`` from
  ``IntakeExtraction``), the reply checked with jsonschema and Pydantic; a malformed or
  schema-breaking reply is re-asked once with the error, then the offline parser reads the
  text (``source="offline_fallback"``, ``note`` says why).
- ``write_letter``: a letter from the Recommendation's facts only; any course code, term
  or rule id it mentions that the draft does not contain (``letters.check_letter``) sends
  the template letter instead.

Configuration (``GeminiBackend.from_env``):

- ``GEMINI_API_KEY`` (required): the key. Missing -> ``LLMConfigError``.
- ``GEMINI_BASE_URL``, else the SDK's own ``GOOGLE_GEMINI_BASE_URL``: an endpoint that
  stands in for ``https://generativelanguage.googleapis.com`` (a gateway, a test server).
- ``GEMINI_MODEL``: the model when ``--model`` is not given (default ``DEFAULT_MODEL``).
- ``GEMINI_DEADLINE_S``: the total deadline of one call in seconds (default 60), all
  attempts and waits included.

Retries are one layer, here, with tenacity (the SDK's own are switched off with
``HttpRetryOptions(attempts=1)``): 429, 500, 502, 503, 504, timeouts, connection errors and
2xx bodies that are not JSON; exponential backoff with jitter, never sooner than the
server's ``Retry-After`` header or ``RetryInfo.retryDelay``; at most
``RetryPolicy.max_attempts`` attempts and ``max_total_s`` seconds (a wait that would pass
the budget is not started, and an attempt still running at it is cut: ``agents.llm.transport``).
A call that fails is recorded with status ``error`` and answered from the offline path.

Every call is recorded in the request's ``LLMLedger`` (model, prompt hash, raw reply,
tokens, latency, attempts, status). Before calling, a recorded reply for the same prompt
hash is reused without any HTTP request - ``ok`` replies and ``invalid`` ones alike, so a
resumed run takes the same path and never pays twice. The key is never logged or stored;
error text is redacted before it is recorded.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypedDict

import structlog
from google import genai
from google.genai import types

from agents.catalog import Catalog
from agents.errors import LLMConfigError
from agents.llm.boundary import IntakeExtraction, LLMCall, LLMLedger, LLMResult, prompt_hash
from agents.llm.letters import check_letter
from agents.llm.offline import OfflineBackend
from agents.llm.prompts import (
    INTAKE_SYSTEM,
    LETTER_SYSTEM,
    intake_prompt,
    letter_prompt,
    parse_intake_reply,
    reask_prompt,
    response_schema,
)
from agents.llm.redact import redact_text, register_secret
from agents.llm.retry import (
    CALL_FAILURES,
    RetryPolicy,
    error_summary,
    make_retrying,
    seconds_setting,
)
from agents.llm.transport import call_deadline, client_args, unreadable_reply

if TYPE_CHECKING:
    from agents.artifacts import Recommendation

__all__ = ["DEFAULT_MODEL", "GeminiBackend", "RetryPolicy"]

log = structlog.get_logger(__name__)

DEFAULT_MODEL = "gemini-2.5-flash"
DEFAULT_API_VERSION = "v1beta"
KEY_VAR = "GEMINI_API_KEY"
BASE_URL_VARS = ("GEMINI_BASE_URL", "GOOGLE_GEMINI_BASE_URL")
MODEL_VAR = "GEMINI_MODEL"
DEADLINE_VAR = "GEMINI_DEADLINE_S"
NO_KEY = f"No key found - set {KEY_VAR} or pass --backend offline"

Task = Literal["intake", "letter", "critique"]
Contents = list[types.Content]
Check = Callable[[str], str | None]

_MODEL_NAME = re.compile(r"^(models/)?[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass
class _Reply:
    """What one logical call (all its HTTP attempts) came to."""

    text: str | None
    problem: str | None  # the reply arrived but failed its check
    error: str | None  # no usable reply (HTTP or transport failure)

    @property
    def ok(self) -> bool:
        return self.text is not None and self.problem is None


class _Tokens(TypedDict):
    """Token counts of one reply, passed on to ``GeminiBackend._record``."""

    input_tokens: int
    output_tokens: int


def _user(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


def _model(text: str) -> types.Content:
    return types.Content(role="model", parts=[types.Part(text=text)])


class GeminiBackend:
    """``LLMBackend`` over google-genai. Build it with ``from_env`` or directly (tests)."""

    name = "gemini"

    def __init__(
        self,
        api_key: str,
        *,
        model: str = DEFAULT_MODEL,
        base_url: str | None = None,
        api_version: str = DEFAULT_API_VERSION,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not api_key or not api_key.strip():
            raise LLMConfigError(NO_KEY)
        if not _MODEL_NAME.match(model):
            raise LLMConfigError(
                f"model name {model!r} is not a Gemini model id; pass e.g. --model {DEFAULT_MODEL}"
            )
        if base_url is not None and not base_url.startswith(("http://", "https://")):
            raise LLMConfigError(
                f"base URL {base_url!r} must start with http:// or https://; fix "
                f"{BASE_URL_VARS[0]} or unset it to use the public endpoint"
            )
        register_secret(api_key)
        self.model = model
        self.base_url = base_url
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        self._clock = clock
        self._client = genai.Client(
            api_key=api_key.strip(),
            vertexai=False,
            http_options=types.HttpOptions(
                base_url=base_url,
                api_version=api_version,
                timeout=max(1, round(self.retry.timeout_s * 1000)),  # milliseconds
                retry_options=types.HttpRetryOptions(attempts=1),  # tenacity here is the layer
                client_args=client_args(base_url),  # the call deadline, the body check
            ),
        )

    @classmethod
    def from_env(
        cls, model: str | None = None, *, environ: Mapping[str, str] | None = None, **kwargs: Any
    ) -> GeminiBackend:
        """The backend configured by ``GEMINI_API_KEY``, ``GEMINI_BASE_URL``, ``GEMINI_MODEL``
        and ``GEMINI_DEADLINE_S`` (unless ``retry`` is given)."""
        env = os.environ if environ is None else environ
        key = env.get(KEY_VAR, "").strip()
        if not key:
            raise LLMConfigError(NO_KEY)
        base_url = next((env[v].strip() for v in BASE_URL_VARS if env.get(v, "").strip()), None)
        chosen = model or env.get(MODEL_VAR, "").strip() or DEFAULT_MODEL
        if "retry" not in kwargs and env.get(DEADLINE_VAR, "").strip():
            kwargs["retry"] = RetryPolicy(
                max_total_s=seconds_setting(DEADLINE_VAR, env[DEADLINE_VAR])
            )
        return cls(key, model=chosen, base_url=base_url, **kwargs)

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> GeminiBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ operations

    def extract_intake(
        self, text: str, *, catalog: Catalog, ledger: LLMLedger
    ) -> LLMResult[IntakeExtraction]:
        parsed: dict[str, IntakeExtraction] = {}

        def check(reply: str) -> str | None:
            value, problem = parse_intake_reply(reply)
            if value is not None:
                parsed[reply] = value
            return problem

        config = types.GenerateContentConfig(
            system_instruction=INTAKE_SYSTEM,
            response_mime_type="application/json",
            response_json_schema=response_schema(),
            temperature=0.0,
        )
        contents = [_user(intake_prompt(text, catalog))]
        first = self._call("intake", contents, config, ledger, check)
        if first.ok:
            assert first.text is not None
            return LLMResult(value=parsed[first.text], source="gemini")
        if first.error is not None:
            return self._intake_fallback(
                text, catalog, ledger, f"gemini call failed: {first.error}"
            )
        assert first.text is not None and first.problem is not None
        contents += [_model(first.text), _user(reask_prompt(first.problem))]
        second = self._call("intake", contents, config, ledger, check)
        if second.ok:
            assert second.text is not None
            note = redact_text(f"first reply rejected ({first.problem}); re-asked once")
            return LLMResult(value=parsed[second.text], source="gemini", note=note)
        why = second.problem or second.error
        return self._intake_fallback(
            text, catalog, ledger, f"gemini reply rejected twice ({first.problem}; then {why})"
        )

    def write_letter(self, draft: Recommendation, *, ledger: LLMLedger) -> LLMResult[str]:
        def check(reply: str) -> str | None:
            if not reply.strip():
                return "the reply is empty"
            bad = check_letter(reply, draft)
            return "the letter is not grounded: " + "; ".join(bad) if bad else None

        config = types.GenerateContentConfig(system_instruction=LETTER_SYSTEM, temperature=0.2)
        reply = self._call("letter", [_user(letter_prompt(draft))], config, ledger, check)
        if reply.ok:
            assert reply.text is not None
            return LLMResult(value=reply.text.strip(), source="gemini")
        why = reply.problem or f"gemini call failed: {reply.error}"
        note = redact_text(f"{why}; the template letter was used")
        log.warning("llm_fallback", task="letter", model=self.model, note=note)
        letter = OfflineBackend().write_letter(draft, ledger=ledger).value
        return LLMResult(value=letter, source="offline_fallback", note=note)

    def _intake_fallback(
        self, text: str, catalog: Catalog, ledger: LLMLedger, why: str
    ) -> LLMResult[IntakeExtraction]:
        note = redact_text(f"{why}; the offline parser read the text")
        log.warning("llm_fallback", task="intake", model=self.model, note=note)
        # The very path --backend offline takes, so a fallback reads the text identically.
        value = OfflineBackend().extract_intake(text, catalog=catalog, ledger=ledger).value
        return LLMResult(value=value, source="offline_fallback", note=note)

    # ------------------------------------------------------------------ one logical call

    def _call(
        self,
        task: Task,
        contents: Contents,
        config: types.GenerateContentConfig,
        ledger: LLMLedger,
        check: Check,
    ) -> _Reply:
        """Ask once (with retries) or reuse the ledger; record the call; check the reply."""
        digest = prompt_hash(self.name, self.model, task, _canonical(contents, config))
        recorded = ledger.lookup(digest) or _recorded_invalid(ledger, digest)
        if recorded is not None and recorded.response is not None:
            ledger.reused += 1
            log.info("llm_reused", task=task, model=self.model, prompt_hash=digest[:12])
            return _Reply(recorded.response, check(recorded.response), None)

        attempts = 0
        start = self._clock()

        def attempt() -> types.GenerateContentResponse:
            nonlocal attempts
            attempts += 1
            with unreadable_reply():
                return self._client.models.generate_content(
                    model=self.model, contents=contents, config=config
                )

        try:
            retrying = make_retrying(
                self.retry, start=start, clock=self._clock, sleep=self._sleep, model=self.model
            )
            with call_deadline(self.retry.max_total_s, setting=DEADLINE_VAR):
                response = retrying(attempt)
        except CALL_FAILURES as exc:
            error = f"{error_summary(exc)} (after {attempts} attempt{'s' * (attempts != 1)})"
            self._record(ledger, task, digest, start, attempts, status="error", error=error)
            return _Reply(None, None, error)

        # A key-shaped string in a reply is masked like anywhere else before it is stored.
        text = None if response.text is None else redact_text(response.text)
        usage = response.usage_metadata or types.GenerateContentResponseUsageMetadata()
        tokens: _Tokens = {
            "input_tokens": usage.prompt_token_count or 0,
            # Thinking tokens are billed as output, so they count as output here too.
            "output_tokens": (usage.candidates_token_count or 0)
            + (usage.thoughts_token_count or 0),
        }
        if text is None:
            error = "the reply has no text (blocked or empty candidates)"
            self._record(
                ledger, task, digest, start, attempts, status="error", error=error, **tokens
            )
            return _Reply(None, None, error)
        problem = check(text)
        self._record(
            ledger,
            task,
            digest,
            start,
            attempts,
            response=text,
            status="ok" if problem is None else "invalid",
            error=None if problem is None else redact_text(problem),
            **tokens,
        )
        return _Reply(text, problem, None)

    def _record(
        self,
        ledger: LLMLedger,
        task: Task,
        digest: str,
        start: float,
        attempts: int,
        *,
        status: Literal["ok", "invalid", "error"],
        response: str | None = None,
        error: str | None = None,
        input_tokens: int = 0,
        output_tokens: int = 0,
    ) -> None:
        call = LLMCall(
            task=task,
            backend=self.name,
            model=self.model,
            prompt_hash=digest,
            response=response,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            latency_ms=round((self._clock() - start) * 1000, 3),
            attempts=attempts,
            status=status,
            error=error,
        )
        ledger.record(call)
        log.info(
            "llm_call",
            task=task,
            model=self.model,
            status=status,
            attempts=attempts,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            latency_ms=call.latency_ms,
            prompt_hash=digest[:12],
            error=error,
        )


def _recorded_invalid(ledger: LLMLedger, digest: str) -> LLMCall | None:
    """A recorded reply that failed its check: replaying it keeps a resume on the same path."""
    for call in reversed(ledger.calls):
        if call.prompt_hash == digest and call.status == "invalid":
            return call
    return None


def _canonical(contents: Contents, config: types.GenerateContentConfig) -> str:
    """Everything that shapes the reply, as one stable string to hash."""
    return json.dumps(
        {
            "config": config.model_dump(mode="json", exclude_none=True),
            "contents": [c.model_dump(mode="json", exclude_none=True) for c in contents],
        },
        sort_keys=True,
        ensure_ascii=False,
    )

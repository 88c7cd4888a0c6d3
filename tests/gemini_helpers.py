"""Shared pieces for the Gemini backend tests: a fake API key and request, the fake clock
whose ``sleep`` only advances time, the test retry policy, expected-ledger-entry builders,
the offline reading used to check fallbacks, and a small draft Recommendation for letters.

The ``fake``, ``clock`` and ``backend`` fixtures built from these live in tests/conftest.py.
"""

from __future__ import annotations

from agents.artifacts import Recommendation, ScheduledCourse, ScheduledTerm
from agents.catalog import Catalog
from agents.llm import IntakeExtraction, LLMCall, LLMLedger, OfflineBackend
from agents.llm.gemini import DEFAULT_MODEL, RetryPolicy

KEY = "AIzaFAKEtestKEY0123456789abcdefghijklmn"  # key-shaped, so pattern masking is exercised
TEXT = "I'm an IS major and would like to add a CS minor, graduating in spring 2029."
GOOD = {
    "intent": "add_program",
    "add_programs": ["CS-MIN"],
    "target_graduation": "S2029",
    "target_phrase": "graduating in spring 2029",
    "notes": ["read 'CS minor' as CS-MIN"],
}


class FakeClock:
    """Time that moves only when the backend sleeps; every wait is recorded."""

    def __init__(self) -> None:
        self.t = 1000.0
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.t += seconds


# The HTTP timeout only guards against a hang: a reply of the fake server, however loaded
# the machine, comes well within it. Tests of timeouts script a reply that never comes
# (NEVER) and set a short timeout of their own, so they do not depend on speed either.
POLICY = RetryPolicy(
    max_attempts=5, max_total_s=60, initial_s=0.5, max_wait_s=8, jitter_s=0, timeout_s=30
)
NEVER = 3600.0  # a scripted delay no test waits out: the server's stop wakes the handler


def call(**fields: object) -> LLMCall:
    """An expected ledger entry; ``prompt_hash`` is filled in from the actual one."""
    base: dict[str, object] = {
        "task": "intake",
        "backend": "gemini",
        "model": DEFAULT_MODEL,
        "prompt_hash": "",
        "response": None,
        "input_tokens": 0,
        "output_tokens": 0,
        "latency_ms": 0.0,
        "attempts": 1,
        "status": "ok",
        "error": None,
    }
    base.update(fields)
    return LLMCall.model_validate(base)


def same_calls(ledger: LLMLedger, expected: list[LLMCall]) -> bool:
    filled = [
        e.model_copy(update={"prompt_hash": a.prompt_hash})
        for a, e in zip(ledger.calls, expected, strict=True)
    ]
    assert ledger.calls == filled
    return all(len(c.prompt_hash) == 64 for c in ledger.calls)


def offline(text: str, catalog: Catalog) -> IntakeExtraction:
    return OfflineBackend().extract_intake(text, catalog=catalog, ledger=LLMLedger()).value


def draft() -> Recommendation:
    return Recommendation(
        request_id="req-1",
        student_id="s-1",
        student_name="Ada Lovelace",
        intent="plan_next_term",
        outcome="approved",
        summary="A 22-unit Spring 2027 plan, approved.",
        programs=["IS-BS"],
        plan=[
            ScheduledTerm(
                term="S2027",
                label="Spring 2027",
                courses=[
                    ScheduledCourse(course="15-112", title="Fundamentals of Programming", units=12),
                    ScheduledCourse(course="67-250", title="Information Systems Milieux", units=10),
                ],
                units=22,
            )
        ],
        graduation_term="S2027",
        letter="",
        letter_source="template",
    )

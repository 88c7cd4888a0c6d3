"""The Gemini backend's letters: a grounded letter is used as written; a letter naming a
course or term not in the recommendation, or a failed call, gets the template letter."""

from __future__ import annotations

from agents.llm import (
    LETTER_SYSTEM,
    LLMLedger,
    LLMResult,
    template_letter,
)
from agents.llm.gemini import GeminiBackend
from tests.fake_gemini import FakeGemini, error_reply, text_reply
from tests.gemini_helpers import (
    call,
    draft,
    same_calls,
)


def test_a_grounded_letter_is_used(fake: FakeGemini, backend: GeminiBackend) -> None:
    letter = "Dear Ada,\n\nIn Spring 2027 you take 15-112 and 67-250.\n\nWarm regards"
    fake.enqueue(text_reply(letter + "\n"))
    ledger = LLMLedger()

    result = backend.write_letter(draft(), ledger=ledger)

    assert result == LLMResult(value=letter, source="gemini")
    [req] = fake.requests
    assert req.body["systemInstruction"]["parts"][0]["text"] == LETTER_SYSTEM
    assert req.body["generationConfig"] == {"temperature": 0.2}
    assert '"course": "67-250"' in req.prompt
    assert '"letter"' not in req.prompt
    assert same_calls(
        ledger,
        [call(task="letter", response=letter + "\n", input_tokens=100, output_tokens=20)],
    )


def test_a_letter_naming_a_course_not_in_the_plan_gets_the_template(
    fake: FakeGemini, backend: GeminiBackend
) -> None:
    fake.enqueue(text_reply("Dear Ada, take 15-112 and 15-213 in Spring 2027, and F2031."))
    ledger = LLMLedger()

    result = backend.write_letter(draft(), ledger=ledger)

    problem = (
        "the letter is not grounded: course '15-213' is not in the recommendation; "
        "term 'F2031' is not in the recommendation"
    )
    assert result == LLMResult(
        value=template_letter(draft()),
        source="offline_fallback",
        note=f"{problem}; the template letter was used",
    )
    assert [(c.status, c.error) for c in ledger.calls] == [("invalid", problem)]
    assert len(fake.requests) == 1  # letters are not re-asked: the template is exact


def test_a_letter_call_that_fails_gets_the_template(
    fake: FakeGemini, backend: GeminiBackend
) -> None:
    fake.enqueue(error_reply(403, "API key not valid. Please pass a valid API key."))

    result = backend.write_letter(draft(), ledger=LLMLedger())

    assert result == LLMResult(
        value=template_letter(draft()),
        source="offline_fallback",
        note="gemini call failed: HTTP 403 PERMISSION_DENIED: API key not valid. Please pass "
        "a valid API key. (after 1 attempt); the template letter was used",
    )

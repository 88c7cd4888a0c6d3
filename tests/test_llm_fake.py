"""RecordingBackend: scripted replies with their source, the offline path otherwise, and a
record of every text and draft it was sent."""

from __future__ import annotations

import pytest

from agents.artifacts import Recommendation, ScheduledCourse, ScheduledTerm
from agents.catalog import Catalog, load_catalog
from agents.llm import (
    IntakeExtraction,
    LLMBackend,
    LLMLedger,
    LLMResult,
    OfflineBackend,
    RecordingBackend,
)

TEXT = "I'd like to add the CS minor and graduate by spring 2029."


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def draft(letter: str = "") -> Recommendation:
    return Recommendation(
        request_id="req-1",
        student_id="s-1",
        student_name="Ada Lovelace",
        intent="plan_next_term",
        outcome="approved",
        summary="A 12-unit Spring 2027 plan, approved.",
        programs=["IS-BS"],
        plan=[
            ScheduledTerm(
                term="S2027",
                label="Spring 2027",
                courses=[
                    ScheduledCourse(course="15-112", title="Fundamentals of Programming", units=12)
                ],
                units=12,
            )
        ],
        graduation_term="S2027",
        letter=letter,
        letter_source="template",
    )


def test_unscripted_backend_answers_like_the_offline_backend(catalog: Catalog) -> None:
    backend: LLMBackend = RecordingBackend()
    offline = OfflineBackend()
    ledger = LLMLedger()

    assert backend.extract_intake(TEXT, catalog=catalog, ledger=ledger) == (
        offline.extract_intake(TEXT, catalog=catalog, ledger=LLMLedger())
    )
    assert backend.write_letter(draft(), ledger=ledger) == (
        offline.write_letter(draft(), ledger=LLMLedger())
    )
    assert ledger == LLMLedger()
    assert (backend.name, backend.model) == ("fake", "fake-1")


def test_scripted_intake_is_returned_with_its_source_and_note_and_the_text_recorded(
    catalog: Catalog,
) -> None:
    scripted = IntakeExtraction(intent="add_program", add_programs=["CS-MIN"])
    backend = RecordingBackend(
        intake=scripted, source="offline_fallback", note="timed out", name="gemini", model="m-1"
    )

    first = backend.extract_intake(TEXT, catalog=catalog, ledger=LLMLedger())
    second = backend.extract_intake("again", catalog=catalog, ledger=LLMLedger())

    expected = LLMResult(value=scripted, source="offline_fallback", note="timed out")
    assert (first, second) == (expected, expected)
    assert (backend.texts, backend.drafts) == ([TEXT, "again"], [])
    assert (backend.name, backend.model) == ("gemini", "m-1")


def test_scripted_extraction_is_a_fresh_copy_per_call(catalog: Catalog) -> None:
    backend = RecordingBackend(intake=IntakeExtraction())
    backend.extract_intake(TEXT, catalog=catalog, ledger=LLMLedger()).value.notes.append("x")
    assert backend.extract_intake(TEXT, catalog=catalog, ledger=LLMLedger()).value == (
        IntakeExtraction()
    )


def test_scripted_list_answers_in_order_then_the_offline_path(catalog: Catalog) -> None:
    replies = [IntakeExtraction(intent="check_progress"), IntakeExtraction(intent="plan_degree")]
    backend = RecordingBackend(intake=replies, letter=["First letter.", "Second letter."])
    ledger = LLMLedger()

    intents = [backend.extract_intake(TEXT, catalog=catalog, ledger=ledger) for _ in range(3)]
    letters = [backend.write_letter(draft(), ledger=ledger) for _ in range(3)]

    assert [(r.value.intent, r.source) for r in intents] == [
        ("check_progress", "gemini"),
        ("plan_degree", "gemini"),
        ("add_program", "offline"),
    ]
    assert [(r.value, r.source) for r in letters[:2]] == [
        ("First letter.", "gemini"),
        ("Second letter.", "gemini"),
    ]
    assert letters[2] == OfflineBackend().write_letter(draft(), ledger=LLMLedger())


def test_scripted_letter_is_returned_and_a_copy_of_each_draft_recorded() -> None:
    backend = RecordingBackend(letter="Dear Ada,\n\nA letter.\n")
    sent = draft()

    result = backend.write_letter(sent, ledger=LLMLedger())
    sent.summary = "changed after the call"

    assert result == LLMResult(value="Dear Ada,\n\nA letter.\n", source="gemini")
    assert (backend.drafts, backend.texts) == ([draft()], [])

"""Intake: structured fields win, the text fills the gaps, and every program, course and term
is checked against the catalog whatever read the text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.artifacts import (
    Goals,
    IntakeResult,
    OpenQuestion,
    PlanRequest,
    StudentConstraints,
    StudentProfile,
    TimePreferences,
)
from agents.catalog import Catalog, StudentRecord, load_catalog
from agents.intake import profile_of
from agents.intake import read_request as run
from agents.llm import IntakeExtraction, RecordingBackend
from agents.toolbox import Toolbox

ROOT = Path(__file__).resolve().parent.parent
CAT: Catalog = load_catalog()


def student(sid: str, **changes: Any) -> StudentRecord:
    raw = json.loads((ROOT / "demos" / "students" / f"{sid}.json").read_text("utf-8"))
    raw.update(changes)
    return StudentRecord.model_validate(raw)


def request(sid: str = "is-junior-design", **fields: Any) -> PlanRequest:
    return PlanRequest(request_id="r1", student=student(sid), **fields)


def tools(backend: Any = None) -> Toolbox:
    return Toolbox(catalog=CAT) if backend is None else Toolbox(catalog=CAT, llm=backend)


def questions(result: IntakeResult) -> list[tuple[str, str]]:
    return [(q.field, q.question) for q in result.open_questions]


# --------------------------------------------------------------------------- whole results


def test_free_text_only_request_reads_to_the_whole_intake_result() -> None:
    text = (
        "Hi, I'm thinking about adding the computer science minor, no Friday classes please, "
        "and I'd like to finish by spring 2028."
    )
    req = request(text=text)
    assert run(req, tools()) == IntakeResult(
        request_id="r1",
        intent="add_program",
        intent_source="text",
        profile=StudentProfile(
            student_id="is-junior-design",
            name="Elena T.",
            declared_programs=["IS-BS"],
            class_standing="junior",
            units_earned=193.0,
            units_in_progress=45.0,
            gpa=3.09,
            academic_status="good",
            start_term="F2024",
            current_term="F2026",
            next_term="S2027",
            terms_completed=4,
        ),
        student=req.student,
        target_programs=["IS-BS", "CS-MIN"],
        added_programs=["CS-MIN"],
        goals=Goals(target_graduation="S2028", target_reason="'spring 2028' in the request text"),
        constraints=StudentConstraints(
            interests=["interaction design", "accessibility"],
            time_preferences=TimePreferences(free_days=["F"]),
        ),
        notes=[
            "read the intent as add_program from 'adding the computer science minor'",
            "read 'computer science minor' as CS-MIN (Computer Science minor) to add",
            "read 'spring 2028' as graduation by S2028",
            "read 'no Friday classes' as free day(s): F",
        ],
        parser="offline",
    )


def test_structured_request_needs_no_text_reader() -> None:
    backend = RecordingBackend(intake=IntakeExtraction())
    req = request(
        "is-sophomore",
        intent="plan_next_term",
        include_courses=["67-272", "70-311"],
        max_units_per_term=45,
        time_preferences=TimePreferences(not_before="09:00"),
    )
    got = run(req, tools(backend))

    assert (backend.texts, backend.drafts) == ([], [])
    assert (got.parser, got.intent, got.intent_source) == (
        "structured",
        "plan_next_term",
        "structured",
    )
    assert got.goals == Goals(max_units_per_term=45)
    assert got.constraints == StudentConstraints(
        include_courses=["67-272", "70-311"],
        interests=["product management", "data analytics"],
        time_preferences=TimePreferences(not_before="09:00"),
    )
    assert (got.notes, got.open_questions) == ([], [])


# --------------------------------------------------------------------------- precedence


def test_structured_fields_win_over_the_text_and_the_conflict_is_noted() -> None:
    req = request(
        "overload-low-gpa",
        text="I want to graduate in 3.5 years with no more than 4 courses per term.",
        target_graduation="S2029",
        max_courses_per_term=5,
    )
    got = run(req, tools())

    assert got.goals == Goals(
        target_graduation="S2029",
        target_reason="the request's target_graduation field",
        max_courses_per_term=5,
    )
    assert "the request's target S2029 wins over the text's F2028 ('in 3.5 years')" in got.notes


def test_relative_target_in_text_is_counted_from_the_students_start_term() -> None:
    got = run(request("overload-low-gpa", text="I want to graduate in 3.5 years"), tools())
    assert got.goals == Goals(
        target_graduation="F2028",
        target_reason="'in 3.5 years' in the request text: 3.5 years = 7 regular terms from F2025",
    )


def test_structured_intent_wins_and_the_texts_is_noted() -> None:
    got = run(request(text="Am I on track?", intent="plan_degree"), tools())
    assert (got.intent, got.intent_source) == ("plan_degree", "structured")
    assert "the request's intent plan_degree wins over the text's check_progress" in got.notes


@pytest.mark.parametrize(
    ("fields", "intent"),
    [
        ({"add_programs": ["CS-MIN"]}, "add_program"),
        ({"add_programs": ["CS-BS"], "drop_programs": ["IS-BS"]}, "switch_program"),
        ({"question": "What is the overload policy?"}, "policy_question"),
    ],
)
def test_structured_fields_imply_the_intent(fields: dict[str, Any], intent: str) -> None:
    got = run(request(**fields), tools())
    assert (got.intent, got.intent_source) == (intent, "structured")


def test_text_with_no_recognizable_intent_defaults_to_plan_degree_with_a_note() -> None:
    got = run(request(text="Hello, hope you are well."), tools())
    assert (got.intent, got.intent_source) == ("plan_degree", "default")
    assert got.notes == ["no intent stated or recognized; planning the degree (plan_degree)"]


def test_policy_question_keeps_the_question() -> None:
    got = run(request(text="How many units can I take if my GPA is below 3.0?"), tools())
    assert (got.intent, got.question) == (
        "policy_question",
        "How many units can I take if my GPA is below 3.0?",
    )


# --------------------------------------------------------------------------- programs


def test_unknown_program_in_text_becomes_an_open_question_not_a_fact() -> None:
    got = run(
        request("cs-sophomore", text="I'd like to add a minor in underwater basket weaving."),
        tools(),
    )
    assert (got.intent, got.added_programs, got.target_programs) == (
        "add_program",
        [],
        ["CS-BS", "PHIL-MIN"],
    )
    assert got.open_questions == [
        OpenQuestion(
            field="add_programs",
            question="The request asks to add 'underwater basket weaving', which is not a "
            "program in the catalog; which program is meant?",
            source_text="underwater basket weaving",
        )
    ]


def test_unknown_program_code_from_any_source_is_an_open_question() -> None:
    extraction = IntakeExtraction(intent="add_program", add_programs=["AI-MIN"])
    backend = RecordingBackend(intake=extraction)
    got = run(request(text="add the AI minor"), tools(backend))
    assert backend.drafts == []
    assert got.added_programs == []
    assert questions(got) == [
        (
            "add_programs",
            "'AI-MIN' is not a program in the catalog; programs: BUS-MIN, CS-BS, CS-MIN, "
            "DS-MIN, ECON-BA, ECON-MIN, IS-BS, MATH-BS, MATH-MIN, PHIL-MIN, STAT-BS",
        )
    ]


def test_adding_a_program_already_declared_is_noted_and_asked() -> None:
    got = run(request("cs-sophomore", add_programs=["PHIL-MIN"]), tools())
    assert (got.added_programs, got.target_programs) == ([], ["CS-BS", "PHIL-MIN"])
    assert "PHIL-MIN is already declared; nothing to add" in got.notes
    assert questions(got) == [
        (
            "add_programs",
            "The student already has PHIL-MIN; which program should be added instead?",
        )
    ]


def test_ineligible_what_if_program_is_kept_for_the_audit_and_asked() -> None:
    got = run(request("cs-junior", add_programs=["CS-MIN"]), tools())
    assert (got.added_programs, got.target_programs) == (["CS-MIN"], ["CS-BS", "CS-MIN"])
    assert (
        "CS-MIN is not open to students in CS-BS; kept as a what-if so the audit can show it"
        in (got.notes)
    )
    assert questions(got) == [
        (
            "add_programs",
            "CS-MIN is not open to students in CS-BS. Choose another program, or ask the "
            "department about an exception?",
        )
    ]


def test_switch_without_a_named_drop_drops_the_declared_major() -> None:
    got = run(request("cs-junior", text="I want to switch to IS"), tools())
    assert (got.intent, got.added_programs, got.dropped_programs, got.target_programs) == (
        "switch_program",
        ["IS-BS"],
        ["CS-BS"],
        ["IS-BS"],
    )
    assert "switching to IS-BS drops CS-BS" in got.notes


def test_dropping_a_program_not_declared_is_asked() -> None:
    got = run(request(drop_programs=["ECON-MIN"], add_programs=["CS-MIN"]), tools())
    assert got.dropped_programs == []
    expected = (
        "drop_programs",
        "'ECON-MIN' is not one of the student's programs (IS-BS); which program should be dropped?",
    )
    assert expected in questions(got)


# --------------------------------------------------------------------------- terms


def test_target_in_the_past_is_an_open_question() -> None:
    got = run(request(target_graduation="S2026"), tools())
    assert got.goals.target_graduation is None
    assert questions(got) == [
        (
            "target_graduation",
            "The target Spring 2026 (S2026) is not after the current term F2026; which later "
            "term is meant?",
        )
    ]


def test_terms_away_merge_the_record_and_the_request_in_order() -> None:
    req = PlanRequest(
        request_id="r1",
        student=student("study-abroad"),
        text="I also need a leave of absence in spring 2028.",
        terms_away=["S2028", "S2026"],
    )
    got = run(req, tools())
    assert got.constraints.terms_away == ["F2027", "S2028"]
    assert questions(got) == [
        ("terms_away", "S2026 is not a future term; which term will the student be away?")
    ]


def test_text_terms_away_fill_in_when_the_request_lists_none() -> None:
    got = run(request(text="I'll be abroad in fall 2027"), tools())
    assert got.constraints.terms_away == ["F2027"]


def test_leave_without_a_term_asks_which_term() -> None:
    got = run(request(text="I need a leave of absence."), tools())
    assert questions(got) == [
        (
            "terms_away",
            "The request says 'leave of absence'; which term (e.g. 'Fall 2027') will the "
            "student be away?",
        )
    ]


# --------------------------------------------------------------------------- untrusted readers


def test_model_reading_is_checked_like_any_other() -> None:
    backend = RecordingBackend(
        intake=IntakeExtraction(
            intent="plan_degree",
            target_graduation="S2029",  # wrong: 3.5 years from F2025 is F2028
            target_phrase="in 3.5 years",
            include_courses=["15-112", "15-999"],
            terms_away=["Fall 2027", "someday"],
            not_before="10am",
            not_after="16:00",
            free_days=["F"],
        )
    )
    got = run(request("overload-low-gpa", text="graduate in 3.5 years ..."), tools(backend))

    assert (backend.texts, backend.drafts) == (["graduate in 3.5 years ..."], [])
    assert got.parser == "gemini"
    assert got.goals.target_graduation == "F2028"
    assert "recounted 'in 3.5 years' from the record: F2028 (the reader said S2029)" in got.notes
    assert got.constraints.include_courses == ["15-112"]
    assert got.constraints.terms_away == ["F2027"]
    assert got.constraints.time_preferences == TimePreferences(free_days=["F"], not_after="16:00")
    assert "ignored the time '10am': expected 24-hour 'HH:MM'" in got.notes
    assert [q.field for q in got.open_questions] == ["terms_away", "include_courses"]
    assert got.open_questions[0].question.startswith(
        "not a term: 'someday' in this semester calendar; write a code"
    )


def test_fallback_reader_is_recorded_with_its_reason() -> None:
    backend = RecordingBackend(
        intake=IntakeExtraction(),
        source="offline_fallback",
        note="gemini timed out after 2 attempts",
    )
    got = run(request(text="add a CS minor"), tools(backend))
    assert backend.drafts == []
    assert got.parser == "offline_fallback"
    assert got.notes[0] == "text reader: gemini timed out after 2 attempts"
    assert got.added_programs == ["CS-MIN"]  # the deterministic reader ran instead


# --------------------------------------------------------------------------- profile


def test_profile_counts_terms_and_units_from_the_record() -> None:
    p = profile_of(student("transfer-student"), CAT)
    assert (p.next_term, p.terms_completed, p.class_standing, p.units_earned) == (
        "S2027",
        2,
        "junior",
        204.0,
    )


def test_unknown_course_in_the_record_is_an_open_question() -> None:
    s = student("is-sophomore")
    bad = s.model_copy(
        update={"courses": [*s.courses, s.courses[0].model_copy(update={"course": "99-999"})]}
    )
    got = run(PlanRequest(request_id="r1", student=bad), tools())
    assert questions(got) == [
        (
            "student",
            f"The record does not match the catalog: $.courses[{len(s.courses)}].course: "
            "unknown course '99-999'",
        )
    ]


def test_unresolved_phrase_is_not_asked_when_a_structured_field_answers_it() -> None:
    got = run(request(text="I want to graduate early", target_graduation="S2028"), tools())
    assert (got.goals.target_graduation, got.open_questions) == ("S2028", [])
    assert (
        "left 'graduate early' unread: the request's target_graduation field gives it" in got.notes
    )

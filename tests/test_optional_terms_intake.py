"""Optional terms (summer, a January interim) a request allows: read from the text in the
catalog's own calendar, given as the structured fields ``optional_terms`` and
``optional_kinds``, carried by the Gemini extraction, and checked by the intake against the
calendar (a regular or unknown kind is a note, an unreadable or past term a question)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agents.artifacts import IntakeResult
from agents.catalog import Calendar, Catalog, TermKind, load_catalog, use_calendar
from agents.intake import read_request
from agents.llm import IntakeExtraction, RecordingBackend, response_schema
from agents.llm.prompts import intake_prompt
from agents.llm.textparse import parse_request_text
from agents.toolbox import Toolbox
from tests.calendar_helpers import FOUR_ONE_FOUR, QUARTER, TRIMESTER
from tests.harrow_helpers import HARROW_BAY, hb_request, hb_tools

__all__ = ["hb_tools"]  # the fixture, used by name

SUMMER_REGULAR = Calendar(
    system="semester",
    terms=[
        TermKind(code="S", name="Spring", months=[1, 2, 3, 4, 5]),
        TermKind(code="U", name="Summer", months=[6, 7, 8]),
        TermKind(code="F", name="Fall", months=[9, 10, 11, 12]),
    ],
    academic_year_starts="F",
)
SCENARIO = "hb-summer-to-graduate-early"


def _read(cal: Calendar, text: str, current: str) -> IntakeExtraction:
    catalog: Catalog = load_catalog().model_copy(update={"calendar": cal})
    with use_calendar(cal):
        return parse_request_text(text, catalog, current_term=current)


@pytest.mark.parametrize(
    ("cal", "text", "current", "terms", "kinds", "target"),
    [
        (
            TRIMESTER,
            "I can take courses in Summer 2027. Can I graduate in Fall 2027?",
            "T12026",
            ["U2027"],
            [],
            "T12027",
        ),
        (TRIMESTER, "Summer classes are fine.", "T12026", [], ["U"], None),
        (
            TRIMESTER,
            "To finish early I can take summer 2027 classes.",
            "T12026",
            ["U2027"],
            [],
            None,
        ),
        (QUARTER, "I'm happy to take classes next summer.", "F2026", ["U2027"], [], None),
        (
            QUARTER,
            "Summer courses are fine; I want to graduate by winter 2028.",
            "F2026",
            [],
            ["U"],
            "W2028",
        ),
        (FOUR_ONE_FOUR, "I'll take a J-term course.", "F2026", [], ["J"], None),
        (
            FOUR_ONE_FOUR,
            "I could take courses during the 2028 J-term, and I want to graduate by spring 2029.",
            "F2026",
            ["J2028"],
            [],
            "S2029",
        ),
        (FOUR_ONE_FOUR, "I don't mind summer or J-term classes.", "F2026", [], ["J", "U"], None),
    ],
)
def test_optional_terms_are_read_in_the_calendar(
    cal: Calendar,
    text: str,
    current: str,
    terms: list[str],
    kinds: list[str],
    target: str | None,
) -> None:
    got = _read(cal, text, current)
    assert (got.optional_terms, sorted(got.optional_kinds), got.target_graduation) == (
        terms,
        kinds,
        target,
    )


def test_the_text_s_own_words_are_in_the_notes() -> None:
    got = _read(
        TRIMESTER, "I can take courses in Summer 2027. Can I graduate in Fall 2027?", "T12026"
    )
    assert "read 'Summer 2027' as an optional term to take courses in: U2027" in got.notes
    got = _read(FOUR_ONE_FOUR, "I'll take a J-term course.", "F2026")
    assert got.notes == ["read 'J-term' as willing to take courses in any January Interim term (J)"]


@pytest.mark.parametrize(
    ("cal", "text", "note"),
    [
        (TRIMESTER, "How many credits can I take in the summer session?", None),
        (TRIMESTER, "I can't take summer classes.", "read 'summer' as no courses in Summer terms"),
        (QUARTER, "I'd rather not take courses in Summer 2027.", "read 'Summer 2027' as no "
         "courses in U2027"),
        (TRIMESTER, "Can I graduate by summer 2027?", None),
        (
            QUARTER,
            "I'll take a J-term course.",
            "the quarter calendar has no term called 'J-term'; no optional term read from "
            "'J-term'",
        ),
        (
            SUMMER_REGULAR,
            "Summer classes are fine.",
            "Summer is a regular term of the semester calendar: it is planned like any other",
        ),
        (QUARTER, "I will study abroad in summer 2027.", None),
    ],
)  # fmt: skip
def test_refusals_questions_and_other_calendars_allow_nothing(
    cal: Calendar, text: str, note: str | None
) -> None:
    got = _read(cal, text, "T12026" if cal is TRIMESTER else "F2026")
    assert (got.optional_terms, got.optional_kinds) == ([], [])
    if note is not None:
        assert note in got.notes


def test_a_question_about_summer_is_not_a_graduation_target_nor_an_allowance() -> None:
    got = _read(TRIMESTER, "Can I graduate by summer 2027?", "T12026")
    assert got.target_graduation == "U2027"  # the student asked for it: the planner judges


# --------------------------------------------------------------------------- intake


def _intake(tools: Toolbox, **update: Any) -> IntakeResult:
    request = hb_request(SCENARIO).model_copy(update=update)
    return read_request(request, tools)


def test_the_text_fills_the_goals(hb_tools: Toolbox) -> None:
    got = _intake(hb_tools)
    assert (got.goals.optional_terms, got.goals.optional_kinds) == (["U2027"], [])
    assert got.open_questions == []


def test_structured_fields_are_checked_against_the_calendar(hb_tools: Toolbox) -> None:
    got = _intake(
        hb_tools,
        text="",
        optional_terms=["Summer 2028", "U2027", "T22027", "U2026", "X2027"],
        optional_kinds=["summer", "T1", "J-term"],
    )
    assert (got.goals.optional_terms, got.goals.optional_kinds) == (["U2027", "U2028"], ["U"])
    assert [(q.field, q.source_text) for q in got.open_questions] == [
        ("optional_terms", "U2026"),
        ("optional_terms", "X2027"),
    ]
    assert got.open_questions[0].question == (
        "Summer 2026 (U2026) is not after the current term T12026; which later optional term "
        "will the student take courses in?"
    )
    assert got.notes == [
        "Winter Trimester 2027 (T22027) is a regular term, planned anyway; not an optional term",
        "ignored the optional kind 'T1': a regular kind of term in the trimester calendar "
        "(optional kinds: U (Summer))",
        "ignored the optional kind 'J-term': not a kind of term in the trimester calendar "
        "(optional kinds: U (Summer))",
    ]


def test_the_structured_fields_win_over_the_text(hb_tools: Toolbox) -> None:
    got = _intake(hb_tools, optional_kinds=["U"])
    assert (got.goals.optional_terms, got.goals.optional_kinds) == ([], ["U"])
    assert "the request's optional terms (none; kinds U) win over the text's (U2027)" in got.notes


def test_without_an_allowance_no_optional_term_is_in_the_goals(hb_tools: Toolbox) -> None:
    got = _intake(hb_tools, text="Can I graduate in Fall 2027?")
    assert (got.goals.optional_terms, got.goals.optional_kinds) == ([], [])


# --------------------------------------------------------------------------- Gemini path


def test_the_gemini_extraction_carries_optional_terms_and_the_prompt_marks_them() -> None:
    schema = response_schema()
    assert {"optional_terms", "optional_kinds"} <= set(schema["properties"])
    prompt = intake_prompt("Summer classes are fine.", HARROW_BAY)
    assert "U = Summer (optional)" in prompt
    assert "T1 = Fall Trimester (also: fall, autumn, t1)" in prompt


def test_a_model_s_optional_terms_are_checked_like_the_request_s(tmp_path: Path) -> None:
    reply = IntakeExtraction(
        intent="plan_degree", optional_terms=["U2027", "T32027"], optional_kinds=["Z"]
    )
    with use_calendar(HARROW_BAY.calendar):
        tools = Toolbox(catalog=HARROW_BAY, llm=RecordingBackend(intake=reply), index_dir=tmp_path)
        got = _intake(tools)
    assert got.parser == "gemini"
    assert (got.goals.optional_terms, got.goals.optional_kinds) == (["U2027"], [])
    assert got.notes == [
        "Spring Trimester 2027 (T32027) is a regular term, planned anyway; not an optional term",
        "ignored the optional kind 'Z': not a kind of term in the trimester calendar "
        "(optional kinds: U (Summer))",
    ]

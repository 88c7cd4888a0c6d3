"""Intake: structured intent wins, finishing is not adding (issue 27, item 8).

The request's fields decide; the text only fills what they leave open. "Finish / complete my
X" and a program the student already has name a declared program, never one to add; a
phrase that is not a program ("a first-year planning to major in ...") is never asked about
as one. Checked on the sample catalog and on Harrow Bay (trimesters), whose program names
and codes differ: nothing here depends on a particular catalog's programs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.artifacts import IntakeResult, PlanRequest
from agents.catalog import Catalog, StudentRecord, load_catalog
from agents.intake import read_request
from agents.llm import IntakeExtraction, RecordingBackend, parse_request_text
from agents.toolbox import Toolbox
from tests.harrow_helpers import HARROW_BAY, hb_tools

__all__ = ["hb_tools"]

ROOT = Path(__file__).resolve().parent.parent
CAT: Catalog = load_catalog()


def _student(folder: Path, sid: str, **changes: Any) -> StudentRecord:
    raw = json.loads((folder / f"{sid}.json").read_text("utf-8"))
    raw.update(changes)
    return StudentRecord.model_validate(raw)


def sample(sid: str, text: str, tools: Toolbox | None = None, **fields: Any) -> IntakeResult:
    programs = fields.pop("programs", None)
    changes = {} if programs is None else {"programs": programs}
    record = _student(ROOT / "demos" / "students", sid, **changes)
    req = PlanRequest(request_id="r1", student=record, text=text, **fields)
    return read_request(req, tools or Toolbox(catalog=CAT))


def harrow(sid: str, text: str, tools: Toolbox, **fields: Any) -> IntakeResult:
    record = _student(ROOT / "demos" / "harrow-bay" / "students", sid)
    return read_request(PlanRequest(request_id="r1", student=record, text=text, **fields), tools)


def asked(result: IntakeResult) -> list[tuple[str, str]]:
    return [(q.field, q.question) for q in result.open_questions]


# --------------------------------------------------------------------------- finishing


@pytest.mark.parametrize(
    "text",
    [
        "I need to finish the economics degree by spring 2027.",
        "I want to finish economics.",
        "I'd like to complete the economics major.",
        "I'd like to finish up an economics major.",
    ],
)
def test_finishing_the_declared_program_under_a_structured_plan_degree_asks_nothing(
    text: str,
) -> None:
    got = sample("econ-senior", text, intent="plan_degree")
    assert (got.intent, got.intent_source) == ("plan_degree", "structured")
    assert (got.target_programs, got.added_programs, got.dropped_programs) == (
        ["ECON-BA"],
        [],
        [],
    )
    assert asked(got) == []


def test_finishing_the_declared_program_in_text_alone_is_planning_the_degree() -> None:
    got = sample("econ-senior", "I want to finish economics.")
    assert (got.intent, got.added_programs, asked(got)) == ("plan_degree", [], [])
    assert (
        "read 'economics' as ECON-BA (Economics) as a program the student has (the major: no "
        "'minor' was said)" in got.notes
    )


def test_finish_my_x_names_the_students_own_program_even_when_the_record_differs() -> None:
    got = parse_request_text("I want to finish my math degree.", CAT, declared=["ECON-BA"])
    assert (got.intent, got.add_programs, got.unresolved) == ("plan_degree", [], [])
    assert (
        "'math degree' is named as the student's own program, but the record lists "
        "ECON-BA; the record decides" in got.notes
    )


def test_a_model_s_add_of_a_declared_program_is_read_as_that_program() -> None:
    reply = IntakeExtraction(intent="add_program", add_programs=["ECON-BA"])
    tools = Toolbox(catalog=CAT, llm=RecordingBackend(intake=reply))
    got = sample("econ-senior", "Help me finish my economics degree.", tools)
    assert (got.parser, got.intent, got.intent_source) == ("gemini", "plan_degree", "text")
    assert (got.added_programs, asked(got)) == ([], [])
    assert "ECON-BA is already one of the student's programs; read as that program" in got.notes
    assert (
        "the text names no program to add beyond those declared; planning the degree "
        "(plan_degree)" in got.notes
    )


def test_adding_a_declared_program_in_the_structured_list_is_still_asked() -> None:
    got = sample("econ-senior", "", add_programs=["ECON-BA"])
    assert asked(got) == [
        (
            "add_programs",
            "The student already has ECON-BA; which program should be added instead?",
        )
    ]


# --------------------------------------------------------------------------- not a program


@pytest.mark.parametrize(
    "text",
    [
        "I'm a first-year planning to major in computer science.",
        "I am a freshman intending to major in computer science.",
        "I'm a sophomore who will major in computer science.",
    ],
)
def test_a_phrase_before_a_verb_major_is_not_read_as_a_program(text: str) -> None:
    got = sample("cs-first-year-ap", text)
    assert (got.target_programs, got.added_programs, asked(got)) == (["CS-BS"], [], [])


def test_an_unknown_program_after_a_verb_major_is_still_asked_alone() -> None:
    got = sample("cs-first-year-ap", "I'm a first-year planning to major in marine biology.")
    assert [q.source_text for q in got.open_questions] == ["marine biology"]


# --------------------------------------------------------------------------- double majors


@pytest.mark.parametrize("intent", [None, "plan_degree"])
def test_a_double_major_naming_both_declared_programs_adds_neither(intent: str | None) -> None:
    fields: dict[str, Any] = {"programs": ["MATH-BS", "STAT-BS"]}
    fields |= {"intent": intent} if intent else {}
    got = sample("math-major", "I'm double majoring in mathematics and statistics.", **fields)
    assert (got.intent, got.target_programs, got.added_programs, asked(got)) == (
        "plan_degree",
        ["MATH-BS", "STAT-BS"],
        [],
        [],
    )


def test_a_double_major_naming_one_declared_program_adds_the_other() -> None:
    got = sample("math-major", "I want to double major in mathematics and statistics.")
    assert (got.intent, got.target_programs, got.added_programs, asked(got)) == (
        "add_program",
        ["MATH-BS", "STAT-BS"],
        ["STAT-BS"],
        [],
    )


# --------------------------------------------------------------------------- Harrow Bay


def test_harrow_bay_finishing_the_declared_major_asks_nothing(hb_tools: Toolbox) -> None:
    got = harrow(
        "hb-senior-close", "I need to finish the economics degree.", hb_tools, intent="plan_degree"
    )
    assert (got.target_programs, got.added_programs, asked(got)) == (["ECON-BA"], [], [])


def test_harrow_bay_a_planned_major_on_the_record_is_not_a_program_phrase(
    hb_tools: Toolbox,
) -> None:
    got = harrow("hb-first-year", "I'm a first-year planning to major in biology.", hb_tools)
    assert (got.target_programs, got.added_programs, asked(got)) == (["BIOL-BA"], [], [])


def test_harrow_bay_double_major_naming_both_programs(hb_tools: Toolbox) -> None:
    text = "I'm double majoring in computer science and mathematics; plan my degree."
    got = harrow("hb-double-major", text, hb_tools)
    assert (got.intent, got.target_programs, got.added_programs, asked(got)) == (
        "plan_degree",
        ["CSCI-BA", "MATH-BA"],
        [],
        [],
    )
    assert HARROW_BAY.program_by_code["MATH-BA"].kind == "major"


def test_harrow_bay_asking_about_a_declared_minor_is_a_progress_check(hb_tools: Toolbox) -> None:
    got = harrow("hb-music-minor", "What do I still need for the music minor?", hb_tools)
    assert (got.intent, got.target_programs, got.added_programs, asked(got)) == (
        "check_progress",
        ["BIOL-BA", "MUSC-MIN"],
        [],
        [],
    )

"""The offline free-text reader, what the student asks for: phrasings of each intent (policy
questions kept verbatim) and of programs to add, drop or leave unresolved."""

from __future__ import annotations

import pytest

from tests.textparse_helpers import parse

# --------------------------------------------------------------------------- intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("Can you plan my degree?", "plan_degree"),
        ("I'd like a four-year plan.", "plan_degree"),
        ("Plan out the rest of my courses.", "plan_degree"),
        ("I want to graduate by spring 2029.", "plan_degree"),
        ("plan my next semester", "plan_next_term"),
        ("What should I take next term?", "plan_next_term"),
        ("Help me register for spring.", "plan_next_term"),
        ("I want to add a minor in economics.", "add_program"),
        ("Can I double major in math?", "add_program"),
        ("I'd like to declare the business minor", "add_program"),
        ("I want a philosophy minor", "add_program"),
        ("I want to switch my major to statistics", "switch_program"),
        ("switch from IS to CS", "switch_program"),
        ("I'd like to drop my econ minor", "switch_program"),
        ("Am I on track to graduate?", "check_progress"),
        ("What do I have left?", "check_progress"),
        ("what's left for my degree", "check_progress"),
        ("How close am I to finishing?", "check_progress"),
        ("How many units can I take?", "policy_question"),
        ("What is the policy on repeating a course?", "policy_question"),
        ("Can I take 60 units next semester?", "policy_question"),
        ("Is pass/fail allowed for gen eds?", "policy_question"),
        ("How many credits can I take on probation?", "policy_question"),
        ("Hi there.", None),
    ],
)
def test_intent_phrasings(text: str, intent: str | None) -> None:
    assert parse(text).intent == intent


def test_policy_question_keeps_the_question_verbatim() -> None:
    got = parse("Hello. What is the policy on overloads? Thanks!")
    assert (got.intent, got.question) == ("policy_question", "What is the policy on overloads?")


# --------------------------------------------------------------------------- programs


@pytest.mark.parametrize(
    ("text", "add", "drop", "unresolved"),
    [
        ("add a CS minor", ["CS-MIN"], [], []),
        ("add the computer science minor", ["CS-MIN"], [], []),
        ("I want to minor in computer science", ["CS-MIN"], [], []),
        ("adding a minor in economics", ["ECON-MIN"], [], []),
        ("add an econ minor", ["ECON-MIN"], [], []),
        ("add the Data Science minor", ["DS-MIN"], [], []),
        ("add CS-MIN", ["CS-MIN"], [], []),
        ("add the math minor and the business minor", ["MATH-MIN", "BUS-MIN"], [], []),
        ("I'm a CS major and want a minor in math", ["MATH-MIN"], [], []),
        ("I already have a CS minor", [], [], []),
        ("switch from IS to CS", ["CS-BS"], ["IS-BS"], []),
        ("change my major from economics to statistics", ["STAT-BS"], ["ECON-BA"], []),
        ("drop my philosophy minor", [], ["PHIL-MIN"], []),
        ("I'm interested in data science", [], [], []),
        ("this is major news", [], [], []),
        ("add a statistics minor", [], [], ["statistics minor"]),
        ("a minor in underwater basket weaving", [], [], ["underwater basket weaving"]),
        ("add an astrophysics minor", [], [], ["astrophysics"]),
        ("add a new minor", [], [], []),
    ],
)
def test_program_phrasings(
    text: str, add: list[str], drop: list[str], unresolved: list[str]
) -> None:
    got = parse(text)
    assert (got.add_programs, got.drop_programs, got.unresolved) == (add, drop, unresolved)


def test_program_note_says_how_the_phrase_was_read() -> None:
    assert parse("add a CS minor").notes == [
        "read the intent as add_program from 'add a CS minor'",
        "read 'CS minor' as CS-MIN (Computer Science minor) to add",
    ]


def test_short_code_that_is_a_word_matches_only_in_capitals() -> None:
    assert parse("switch to IS").add_programs == ["IS-BS"]
    assert parse("switch to is").add_programs == []

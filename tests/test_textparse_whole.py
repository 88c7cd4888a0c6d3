"""The offline free-text reader as a whole: exact extractions for typical requests, the
request field an unresolved phrase belongs to, the offline backend using the parser, and
deterministic parsing of any text to catalog codes."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.llm import (
    IntakeExtraction,
    LLMLedger,
    OfflineBackend,
    unresolved_field,
)
from tests.textparse_helpers import CAT, parse

# --------------------------------------------------------------------------- whole extractions

WHOLE = [
    pytest.param(
        "I want to graduate in 3.5 years",
        {"start_term": "F2025"},
        IntakeExtraction(
            intent="plan_degree",
            target_graduation="F2028",
            target_phrase="in 3.5 years",
            notes=[
                "read the intent as plan_degree from 'graduate'",
                (
                    "read 'in 3.5 years' as graduation by F2028 (3.5 years = 7 regular terms from "
                    "F2025)"
                ),
            ],
        ),
        id="relative-target-with-start",
    ),
    pytest.param(
        "I want to graduate in 3.5 years",
        {},
        IntakeExtraction(
            intent="plan_degree",
            target_phrase="in 3.5 years",
            unresolved=["in 3.5 years"],
            notes=[
                "read the intent as plan_degree from 'graduate'",
                "'in 3.5 years' needs the student's start term to name a term",
            ],
        ),
        id="relative-target-without-start",
    ),
    pytest.param(
        "Please plan my next semester, I'm on probation.",
        {},
        IntakeExtraction(
            intent="plan_next_term",
            notes=["read the intent as plan_next_term from 'next semester'"],
        ),
        id="next-term-on-probation",
    ),
    pytest.param(
        "I'm an IS major and want to add a CS minor and still graduate in four years.",
        {"start_term": "F2024"},
        IntakeExtraction(
            intent="add_program",
            add_programs=["CS-MIN"],
            target_graduation="S2028",
            target_phrase="in four years",
            notes=[
                "read the intent as add_program from 'want to add a CS minor'",
                "read 'IS major' as IS-BS (Information Systems) as a program the student has",
                "read 'CS minor' as CS-MIN (Computer Science minor) to add",
                (
                    "read 'in four years' as graduation by S2028 (4 years = 8 regular terms from "
                    "F2024)"
                ),
            ],
        ),
        id="add-minor-four-years",
    ),
    pytest.param(
        "How many units can I take if my GPA is below 3.0?",
        {},
        IntakeExtraction(
            intent="policy_question",
            question="How many units can I take if my GPA is below 3.0?",
            notes=[
                (
                    "read the intent as policy_question from 'How many units can I take if my GPA "
                    "is below 3.0?'"
                )
            ],
        ),
        id="policy-question",
    ),
    pytest.param(
        (
            "Hi, I'm thinking about adding the computer science minor, no Friday classes please, "
            "and I'd like to finish by spring 2028."
        ),
        {},
        IntakeExtraction(
            intent="add_program",
            add_programs=["CS-MIN"],
            target_graduation="S2028",
            target_phrase="spring 2028",
            free_days=["F"],
            notes=[
                "read the intent as add_program from 'adding the computer science minor'",
                "read 'computer science minor' as CS-MIN (Computer Science minor) to add",
                "read 'spring 2028' as graduation by S2028",
                "read 'no Friday classes' as free day(s): F",
            ],
        ),
        id="free-text-only",
    ),
    pytest.param(
        "I'd like to add a minor in underwater basket weaving and still graduate on time.",
        {"start_term": "F2025"},
        IntakeExtraction(
            intent="add_program",
            target_graduation="S2029",
            target_phrase="graduate on time",
            unresolved=["underwater basket weaving"],
            notes=[
                "read the intent as add_program from 'add a minor'",
                "could not match 'underwater basket weaving' to a program in the catalog",
                "read 'graduate on time' as graduation by S2029 (8 regular terms from F2025)",
            ],
        ),
        id="unknown-program",
    ),
    pytest.param(
        "Am I on track? What do I have left?",
        {},
        IntakeExtraction(
            intent="check_progress",
            notes=["read the intent as check_progress from 'on track'"],
        ),
        id="progress",
    ),
    pytest.param(
        "I'm thinking of switching from CS to IS. Can you plan the rest of my degree?",
        {},
        IntakeExtraction(
            intent="switch_program",
            add_programs=["IS-BS"],
            drop_programs=["CS-BS"],
            notes=[
                "read the intent as switch_program from 'switching from'",
                "read 'CS' as CS-BS (Computer Science) to drop (the major: no 'minor' was said)",
                "read 'IS' as IS-BS (Information Systems) to add",
            ],
        ),
        id="switch",
    ),
    pytest.param(
        (
            "I'm interested in machine learning and security. No more than 5 courses per term and "
            "nothing before 10am."
        ),
        {},
        IntakeExtraction(
            max_courses_per_term=5,
            interests=["machine learning", "security"],
            not_before="10:00",
            notes=[
                "read 'No more than 5 courses' as a cap of 5 courses per term",
                (
                    "read 'interested in machine learning and security' as interests: machine "
                    "learning, security"
                ),
                "read 'nothing before 10am' as no class before 10:00",
            ],
        ),
        id="interests-caps-times",
    ),
    pytest.param(
        "I need 67-272 and 70-311 next semester but want to avoid 15-122. Also 99-999?",
        {},
        IntakeExtraction(
            intent="plan_next_term",
            include_courses=["67-272", "70-311"],
            avoid_courses=["15-122"],
            unresolved=["99-999"],
            notes=[
                "read the intent as plan_next_term from 'next semester'",
                "read 67-272 (Application Design and Development) as a course wanted",
                "read 70-311 (Organizational Behavior) as a course wanted",
                "read 15-122 (Principles of Imperative Computation) as a course to avoid",
                "'99-999' is not a course in the catalog",
            ],
        ),
        id="courses",
    ),
    pytest.param(
        "I'll be studying abroad in fall 2027 and want to graduate in May 2029.",
        {},
        IntakeExtraction(
            intent="plan_degree",
            target_graduation="S2029",
            target_phrase="May 2029",
            terms_away=["F2027"],
            notes=[
                "read the intent as plan_degree from 'graduate'",
                "read 'fall 2027' as a term away: F2027",
                "read 'May 2029' as graduation by S2029",
            ],
        ),
        id="abroad-and-target",
    ),
    pytest.param(
        (
            "Take spring 2028 off for an internship; max 45 units; Mondays and Fridays off; no "
            "classes after 4."
        ),
        {},
        IntakeExtraction(
            max_units_per_term=45.0,
            terms_away=["S2028"],
            free_days=["M", "F"],
            not_after="16:00",
            notes=[
                "read 'spring 2028' as a term away: S2028",
                "read 'max 45 units' as a cap of 45 units per term",
                "read 'Mondays and Fridays off' as free day(s): M, F",
                "read 'no classes after 4' as no class after 16:00 (a bare hour read as afternoon)",
            ],
        ),
        id="term-off-days-times",
    ),
    pytest.param(
        "I want a statistics minor",
        {},
        IntakeExtraction(
            intent="add_program",
            unresolved=["statistics minor"],
            notes=[
                "read the intent as add_program from 'want a statistics minor'",
                "the catalog has no minor called 'statistics minor'",
            ],
        ),
        id="no-minor-of-that-name",
    ),
    pytest.param(
        "I might study abroad in the fall. Plan my degree please.",
        {},
        IntakeExtraction(
            intent="plan_degree",
            unresolved=["study abroad in the fall"],
            notes=[
                "read the intent as plan_degree from 'Plan my degree'",
                "could not tell which term 'study abroad in the fall' means",
            ],
        ),
        id="abroad-without-term",
    ),
    pytest.param(
        "Can I graduate a semester early?",
        {"start_term": "F2024"},
        IntakeExtraction(
            intent="plan_degree",
            target_graduation="F2027",
            target_phrase="a semester early",
            notes=[
                "read the intent as plan_degree from 'graduate'",
                (
                    "read 'a semester early' as graduation by F2027 (7 regular terms from F2024 "
                    "instead of 8)"
                ),
            ],
        ),
        id="semester-early",
    ),
    pytest.param(
        "",
        {},
        IntakeExtraction(),
        id="empty",
    ),
    pytest.param(
        "Hello! Just saying hi.",
        {},
        IntakeExtraction(),
        id="nothing-to-read",
    ),
]


@pytest.mark.parametrize(("text", "kwargs", "expected"), WHOLE)
def test_request_text_reads_to_the_exact_extraction(
    text: str, kwargs: dict[str, Any], expected: IntakeExtraction
) -> None:
    assert parse(text, **kwargs) == expected


# --------------------------------------------------------------------------- helpers, purity


@pytest.mark.parametrize(
    ("phrase", "field"),
    [
        ("99-999", "include_courses"),
        ("in 3.5 years", "target_graduation"),
        ("graduate early", "target_graduation"),
        ("leave of absence", "terms_away"),
        ("underwater basket weaving", "programs"),
        ("zorp", "text"),
    ],
)
def test_unresolved_field_names_the_request_field(phrase: str, field: str) -> None:
    text = f"I want a minor in underwater basket weaving; {phrase}"
    assert unresolved_field(phrase, text if field == "programs" else phrase) == field


def test_offline_backend_uses_the_parser() -> None:
    text = "add a CS minor, no Friday classes"
    got = OfflineBackend().extract_intake(text, catalog=CAT, ledger=LLMLedger())
    assert (got.source, got.value) == ("offline", parse(text))


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=120))
@pytest.mark.slow
def test_any_text_parses_deterministically_to_catalog_codes(text: str) -> None:
    first, second = parse(text), parse(text)
    assert first == second
    assert set(first.add_programs + first.drop_programs) <= set(CAT.program_by_code)
    assert set(first.include_courses + first.avoid_courses) <= set(CAT.course_by_code)

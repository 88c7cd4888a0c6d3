"""The offline free-text reader: whole extractions for typical requests, then tables of
phrasings per finding (intent, programs, targets, caps, terms away, days and times)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.catalog import Catalog, load_catalog
from agents.llm import (
    IntakeExtraction,
    LLMLedger,
    OfflineBackend,
    is_relative_target,
    parse_request_text,
    resolve_target_phrase,
    unresolved_field,
)

CAT: Catalog = load_catalog()


def parse(text: str, **kw: Any) -> IntakeExtraction:
    return parse_request_text(text, CAT, **kw)


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


# --------------------------------------------------------------------------- targets


@pytest.mark.parametrize(
    ("text", "start", "target", "phrase"),
    [
        ("graduate in 4 years", "F2025", "S2029", "in 4 years"),
        ("graduate in four years", "F2025", "S2029", "in four years"),
        ("finish in 3.5 years", "F2025", "F2028", "in 3.5 years"),
        ("finish in three and a half years", "F2025", "F2028", "in three and a half years"),
        ("graduate in 4 years", "S2026", "F2029", "in 4 years"),
        ("graduate a semester early", "F2025", "F2028", "a semester early"),
        ("graduate one year early", "F2025", "S2028", "one year early"),
        ("I'd like to graduate on time", "F2025", "S2029", "graduate on time"),
        ("graduate in two more years", None, "F2028", "in two more years"),
        ("graduate by spring 2028", None, "S2028", "spring 2028"),
        ("finish by Spring '28", None, "S2028", "Spring '28"),
        ("graduate in May 2028", None, "S2028", "May 2028"),
        ("graduate in December 2027", None, "F2027", "December 2027"),
        ("finish by F2027", None, "F2027", "F2027"),
        ("graduate in 2028", None, "S2028", "2028"),
        ("done by 2028 fall", None, "F2028", "2028 fall"),
    ],
)
def test_target_phrasings(text: str, start: str | None, target: str, phrase: str) -> None:
    got = parse(text, start_term=start)
    assert (got.target_graduation, got.target_phrase, got.unresolved) == (target, phrase, [])


@pytest.mark.parametrize(
    ("text", "unresolved"),
    [
        ("graduate in 4 years", ["in 4 years"]),
        ("graduate a semester early", ["a semester early"]),
        ("I want to graduate early", ["graduate early"]),
    ],
)
def test_relative_target_without_start_term_is_unresolved(text: str, unresolved: list[str]) -> None:
    got = parse(text)
    assert (got.target_graduation, got.unresolved) == (None, unresolved)


def test_years_without_a_graduation_word_are_not_a_target() -> None:
    assert parse("I worked for two years before college.", start_term="F2025").target_phrase == ""


@pytest.mark.parametrize(
    ("phrase", "start", "current", "expected"),
    [
        ("in 3.5 years", "F2025", "F2026", ("F2028", "3.5 years = 7 regular terms from F2025")),
        ("in 3 more years", None, "F2026", ("F2029", "6 more regular terms from S2027")),
        ("2 years from now", None, "S2027", ("S2029", "4 more regular terms from F2027")),
        (
            "a semester early",
            "F2023",
            "F2026",
            ("F2026", "7 regular terms from F2023 instead of 8"),
        ),
        ("in 3.5 years", None, "F2026", None),
        ("by spring 2028", "F2025", "F2026", None),
    ],
)
def test_resolve_target_phrase(
    phrase: str, start: str | None, current: str, expected: tuple[str, str] | None
) -> None:
    assert resolve_target_phrase(phrase, start_term=start, current_term=current) == expected
    assert is_relative_target(phrase) is (phrase != "by spring 2028")


# --------------------------------------------------------------------------- load caps


@pytest.mark.parametrize(
    ("text", "units", "courses"),
    [
        ("no more than 4 courses per term", None, 4),
        ("at most 45 units", 45.0, None),
        ("max 5 classes", None, 5),
        ("a maximum of 48 units a semester", 48.0, None),
        ("not more than four classes", None, 4),
        ("up to 36 credits", 36.0, None),
        ("4 courses max", None, 4),
        ("five classes or fewer", None, 5),
        ("limit it to 3 courses, at most 36 units", 36.0, 3),
        ("I can take more than 54 units", None, None),
        ("How many units can I take?", None, None),
    ],
)
def test_load_cap_phrasings(text: str, units: float | None, courses: int | None) -> None:
    got = parse(text)
    assert (got.max_units_per_term, got.max_courses_per_term) == (units, courses)


# --------------------------------------------------------------------------- terms away


@pytest.mark.parametrize(
    ("text", "away", "unresolved"),
    [
        ("I'll be abroad in fall 2027", ["F2027"], []),
        ("study away spring 2028", ["S2028"], []),
        ("leave of absence in Spring 2028", ["S2028"], []),
        ("I'm taking fall 2027 off", ["F2027"], []),
        ("fall 2027 abroad, spring 2028 on an internship", ["F2027", "S2028"], []),
        ("studying abroad next fall", ["F2027"], []),
        ("abroad in F2027 and graduate by S2029", ["F2027"], []),
        ("I need a leave of absence", [], ["leave of absence"]),
        ("study abroad in the spring", [], ["study abroad in the spring"]),
    ],
)
def test_terms_away_phrasings(text: str, away: list[str], unresolved: list[str]) -> None:
    got = parse(text)
    assert (got.terms_away, got.unresolved) == (away, unresolved)


def test_next_semester_counts_from_the_current_term() -> None:
    assert parse("abroad next semester", current_term="S2027").terms_away == ["F2027"]
    assert parse("abroad next spring", current_term="S2027").terms_away == ["S2028"]


# --------------------------------------------------------------------------- courses


@pytest.mark.parametrize(
    ("text", "include", "avoid", "unresolved"),
    [
        ("I want to take 15-112", ["15-112"], [], []),
        ("please include 67-272 and 70-311", ["67-272", "70-311"], [], []),
        ("avoid 15-122", [], ["15-122"], []),
        ("I'd rather not take 15-213", [], ["15-213"], []),
        ("I already took 15-112", [], [], []),
        ("I loved 15-112", [], [], []),
        ("take 99-999", [], [], ["99-999"]),
    ],
)
def test_course_phrasings(
    text: str, include: list[str], avoid: list[str], unresolved: list[str]
) -> None:
    got = parse(text)
    assert (got.include_courses, got.avoid_courses, got.unresolved) == (include, avoid, unresolved)


# --------------------------------------------------------------------------- interests


@pytest.mark.parametrize(
    ("text", "interests"),
    [
        ("interested in machine learning and security", ["machine learning", "security"]),
        ("I'm interested in AI, robotics, and ethics.", ["ai", "robotics", "ethics"]),
        ("I really like databases but hate mornings", ["databases"]),
        ("passionate about public policy", ["public policy"]),
        ("I'd like to finish early", []),
        ("interested in adding a minor", []),
        ("interested in the CS minor", []),
    ],
)
def test_interest_phrasings(text: str, interests: list[str]) -> None:
    assert parse(text).interests == interests


# --------------------------------------------------------------------------- days and times


@pytest.mark.parametrize(
    ("text", "days", "before", "after"),
    [
        ("no Friday classes", ["F"], None, None),
        ("Fridays off", ["F"], None, None),
        ("no classes on Mondays or Fridays", ["M", "F"], None, None),
        ("keep Tuesdays and Thursdays free", ["T", "R"], None, None),
        ("I work Wednesdays", ["W"], None, None),
        ("nothing before 10am", [], "10:00", None),
        ("no classes before 9:30 a.m.", [], "09:30", None),
        ("no classes after 4pm", [], None, "16:00"),
        ("no class after 16:30", [], None, "16:30"),
        ("done by 3 pm", [], None, "15:00"),
        ("mornings free", [], "12:00", None),
        ("no evening classes", [], None, "17:00"),
        ("no early classes", [], "10:00", None),
        ("free afternoons and nothing after 5pm", [], None, "12:00"),
        ("I met my advisor on Friday", [], None, None),
    ],
)
def test_day_and_time_phrasings(
    text: str, days: list[str], before: str | None, after: str | None
) -> None:
    got = parse(text)
    assert (got.free_days, got.not_before, got.not_after) == (days, before, after)


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
def test_any_text_parses_deterministically_to_catalog_codes(text: str) -> None:
    first, second = parse(text), parse(text)
    assert first == second
    assert set(first.add_programs + first.drop_programs) <= set(CAT.program_by_code)
    assert set(first.include_courses + first.avoid_courses) <= set(CAT.course_by_code)

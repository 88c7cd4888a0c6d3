"""Issue #17 defect 9: a policy question is answered for the student, from the rules as
data - the probation threshold of their class standing, their pass/fail elections against
the limit, overload eligibility, repeat eligibility - not by retrieval alone; the rule's
section is still quoted exactly, and a record without the facts a rule needs says so."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents import synthesis
from agents.artifacts import CitationRef, PlanRequest, StudentProfile
from agents.catalog import Catalog, StudentRecord, load_catalog, load_student, use_catalog
from agents.catalog.policies import RuleKind
from agents.critique import review
from agents.intake import profile_of, read_request
from agents.policy.applied import apply_rules
from agents.requirements import propose
from agents.scheduling import place
from agents.toolbox import Toolbox
from eval.metrics import _citation_errors
from tests.harrow_helpers import HARROW_BAY
from tests.policy_data_helpers import catalog_with, rule
from tests.policy_helpers import SOPHOMORE_COURSES, attempt, profile, record

STUDENTS = Path(__file__).resolve().parents[1] / "demos" / "harrow-bay" / "students"


@pytest.fixture(autouse=True)
def _harrow_bay() -> Iterator[None]:
    with use_catalog(HARROW_BAY):  # term names and credits as Harrow Bay has them
        yield


def _student(name: str) -> tuple[StudentRecord, StudentProfile]:
    rec = load_student(STUDENTS / f"{name}.json", HARROW_BAY.calendar)
    return rec, profile_of(rec, HARROW_BAY)


def _texts(
    catalog: Catalog,
    prof: StudentProfile,
    rec: StudentRecord | None,
    kind: RuleKind,
    courses: tuple[str, ...] = (),
) -> list[tuple[str, str]]:
    return [(a.rule.id, a.text) for a in apply_rules(catalog, prof, rec, [kind], courses)]


# --------------------------------------------------------------------------- probation


def test_probation_is_the_threshold_of_the_students_class_standing() -> None:
    rec, prof = _student("hb-soph-probation")
    assert (prof.gpa, prof.class_standing) == (1.82, "sophomore")
    assert _texts(HARROW_BAY, prof, rec, "academic_standing") == [
        (
            "PROBATION",
            "With a 1.82 GPA as a sophomore you are below the 1.90 threshold: on academic "
            "probation.",
        )
    ]
    first_year = prof.model_copy(update={"class_standing": "first_year"})
    assert _texts(HARROW_BAY, first_year, rec, "academic_standing") == [
        (
            "PROBATION",
            "With a 1.82 GPA as a first-year student you are at or above the 1.80 threshold: "
            "not on academic probation by it (your record says on academic probation).",
        )
    ]
    junior = prof.model_copy(update={"class_standing": "junior", "academic_status": "good"})
    assert _texts(HARROW_BAY, junior, rec, "academic_standing")[0][1] == (
        "With a 1.82 GPA as a junior you are below the 2.00 threshold: on academic probation "
        "(your record says in good academic standing)."
    )


def test_a_record_without_a_gpa_says_the_threshold_cannot_be_applied() -> None:
    rec, prof = _student("hb-first-year")
    assert prof.gpa is None
    assert _texts(HARROW_BAY, prof, rec, "academic_standing") == [
        (
            "PROBATION",
            "You have no GPA on record yet, so whether you are below the probation threshold "
            "cannot be decided; the threshold as a first-year student is 1.80.",
        )
    ]
    assert _texts(HARROW_BAY, prof, rec, "overload") == [
        (
            "LOAD-OVERLOAD",
            "You are not eligible for an overload up to 5 credits a term: it requires a GPA of "
            "at least 3.30 over the last 2 regular terms and sophomore, junior or senior "
            "standing, and you have no GPA over the last 2 regular terms; you are a first-year "
            "student.",
        )
    ]


# --------------------------------------------------------------------------- overload


def test_overload_eligibility_names_every_condition_and_the_students_facts() -> None:
    rec, prof = _student("hb-junior-overload")
    assert _texts(HARROW_BAY, prof, rec, "overload") == [
        (
            "LOAD-OVERLOAD",
            "You are eligible for an overload up to 5 credits a term with advisor approval: it "
            "requires a GPA of at least 3.30 over the last 2 regular terms, sophomore, junior "
            "or senior standing and being in good academic standing, and your GPA over the "
            "last 2 regular terms is 3.50; you are a junior; you are in good academic standing.",
        )
    ]
    rec, prof = _student("hb-soph-probation")
    assert _texts(HARROW_BAY, prof, rec, "overload")[0][1] == (
        "You are not eligible for an overload up to 5 credits a term: it requires a GPA of at "
        "least 3.30 over the last 2 regular terms and being in good academic standing, and "
        "your GPA over the last 2 regular terms is 1.73; you are on academic probation."
    )
    assert _texts(HARROW_BAY, prof, rec, "probation_max_units") == [
        (
            "PROB-MAX",
            "It applies to you: at most 3 credits a term; it requires being on academic "
            "probation, and you are on academic probation.",
        )
    ]


# --------------------------------------------------------------------------- pass/fail


def test_pass_fail_elections_are_counted_overall_and_toward_the_major() -> None:
    rec, prof = _student("hb-pass-fail")
    assert _texts(HARROW_BAY, prof, rec, "pass_fail_limit", ("ECON 360", "PHED 105")) == [
        (
            "PF-OVERALL",
            "You have elected 5 pass/fail credits (PSYC 110 T22025, ARTS 110 T32025, MATH 100 "
            "T12025, ECON 240 T22026, ENGL 120 T12026 in progress), over the limit of 4; ECON "
            "360 would bring you to 6, over the limit. PHED 105 is graded only pass/fail: it is "
            "no election.",
        ),
        (
            "PF-MAJOR",
            "1 pass/fail course counts toward ECON-BA (ECON 240 T22026), at most 1; ECON 360 "
            "would be your 2nd, over the limit: it would not count toward ECON-BA. PHED 105 is "
            "graded only pass/fail: it is no election.",
        ),
    ]


def test_pass_fail_courses_used_and_the_next_ones_ordinal() -> None:
    pass_fail = {"document": "academic-policies", "section": "pass-fail"}
    count = rule(
        "PF-COUNT", "pass_fail_limit", measure="courses", scope="overall", limit=4,
        citation=pass_fail,
    )  # fmt: skip
    catalog = catalog_with(count, drop=["PF-LIMIT"])
    elected = [
        a.model_copy(update={"grade": "P", "pass_fail": True}) if a.course == "79-104" else a
        for a in SOPHOMORE_COURSES
    ] + [attempt("76-227", "S2026", "P", pass_fail=True)]
    rec = record(courses=elected)
    with use_catalog(catalog):
        got = _texts(catalog, profile(rec), rec, "pass_fail_limit", ("80-249",))
    assert got == [
        (
            "PF-COUNT",
            "You have used 2 of your 4 pass/fail courses (79-104 S2026, 76-227 S2026); 80-249 "
            "would be your 3rd.",
        )
    ]


# --------------------------------------------------------------------------- repeats


def test_repeat_eligibility_per_course_named_or_from_the_record() -> None:
    rec, prof = _student("hb-repeat")
    named = ("MATH 220", "CSCI 120", "MATH 310", "BIOL 105")
    assert _texts(HARROW_BAY, prof, rec, "repeat_limit", named) == [
        (
            "REPEAT-LIMIT",
            "MATH 220 was passed with B in Winter Trimester 2026, above the C- ceiling: it may "
            "not be repeated. CSCI 120 (T12025 C-) is at or below the C- ceiling and may be "
            "repeated: repeat 1 of 1. MATH 310 is in progress (T12026 in progress): it may be "
            "repeated only if that grade ends at C- or below. BIOL 105 is not on your record: "
            "taking it is no repeat.",
        )
    ]
    assert _texts(HARROW_BAY, prof, rec, "repeat_limit") == [
        (
            "REPEAT-LIMIT",
            "On your record: CSCI 120 (T12025 C-) is at or below the C- ceiling and may be "
            "repeated: repeat 1 of 1. MATH 120 was passed with B- in Spring Trimester 2025, "
            "above the C- ceiling: it may not be repeated.",
        )
    ]
    assert _texts(HARROW_BAY, prof, None, "repeat_limit") == [
        ("REPEAT-LIMIT", "Without your record the attempts of a course cannot be counted.")
    ]


def test_an_attempt_limit_without_a_ceiling_counts_attempts() -> None:
    rec = record(
        courses=[
            *SOPHOMORE_COURSES[:-4],
            attempt("15-122", "S2026", "R"),
            attempt("15-122", "F2026", "D"),
            attempt("21-259", "F2026", "W"),
        ]
    )
    sample = load_catalog()
    with use_catalog(sample):
        got = _texts(sample, profile(rec), rec, "repeat_limit", ("15-122", "21-259", "21-127"))
    assert got == [
        (
            "REPEAT-LIMIT",
            "15-122 was attempted 2 times (S2026 R, F2026 D); the limit is 2 attempts: it may "
            "not be taken again. 21-259 is not on your record: taking it is no repeat. 21-127 "
            "(F2025 C+) may be taken again: attempt 2 of 2.",
        )
    ]


# --------------------------------------------------------------------------- the answer


def _answer(question: str, student: str, tmp_path: Path) -> tuple[str, list[CitationRef]]:
    """The answered question's text and citations, through intake and synthesis."""
    tools = Toolbox(catalog=HARROW_BAY, index_dir=tmp_path)
    raw = json.loads((STUDENTS / f"{student}.json").read_text("utf-8"))
    request = PlanRequest.model_validate(
        {"request_id": "q", "student": raw, "intent": "policy_question", "question": question}
    )
    intake = read_request(request, tools)
    proposal = propose(intake, tools)
    schedule = place(intake, proposal, None, 1, tools)
    critique = review(intake, schedule, tools)
    rec = synthesis.synthesize(intake, proposal, schedule, critique, [], "answered", tools)
    assert rec.answer is not None
    return rec.answer, rec.citations


def test_a_probation_question_quotes_the_section_and_answers_for_the_student(
    tmp_path: Path,
) -> None:
    answer, citations = _answer("Am I on academic probation?", "hb-soph-probation", tmp_path)
    assert (
        "- Probation thresholds by class year (PROBATION): With a 1.82 GPA as a sophomore you "
        "are below the 1.90 threshold: on academic probation." in answer
    )
    standing = HARROW_BAY.section_text("academic-policies", "academic-standing")
    cited = [(c.section, c.rule_id, c.quote) for c in citations]
    assert ("academic-standing", "PROBATION", standing.text) in cited
    assert _citation_errors(HARROW_BAY, citations) == []


def test_a_pass_fail_question_counts_the_students_elections(tmp_path: Path) -> None:
    answer, citations = _answer(
        "Can I take ECON 360 pass/fail for my major?", "hb-pass-fail", tmp_path
    )
    assert "ECON 360 would be your 2nd, over the limit: it would not count toward ECON-BA" in (
        answer
    )
    pass_fail = HARROW_BAY.section_text("academic-policies", "pass-fail")
    # Both rules are stated in one section, cited once (citations are one per section).
    assert ("pass-fail", "PF-OVERALL", pass_fail.text) in [
        (c.section, c.rule_id, c.quote) for c in citations
    ]
    assert _citation_errors(HARROW_BAY, citations) == []


def test_a_question_about_no_rule_the_record_decides_gets_no_conclusion(tmp_path: Path) -> None:
    answer, _ = _answer("When is the summer session?", "hb-junior-overload", tmp_path)
    assert "For you, from your record" not in answer

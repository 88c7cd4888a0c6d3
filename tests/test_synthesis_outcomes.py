"""Synthesis agent, by outcome: the whole Recommendation for an approved plan after
refinement (letter included), unresolved, infeasible and needs-input summaries, and the
letter taken from the LLM backend together with its source."""

from __future__ import annotations

from typing import Any

import pytest

from agents import synthesis
from agents.advice import answers
from agents.artifacts import (
    CitationRef,
    OpenQuestion,
    Recommendation,
    Violation,
)
from agents.catalog import Catalog, parse_catalog
from agents.llm import RecordingBackend, Source, check_letter
from agents.toolbox import Toolbox
from tests.synthesis_helpers import (
    COURSE_LOAD_TEXT,
    NEXT_TERM,
    PROPOSAL,
    RAW_CATALOG,
    ROUNDS,
    _critique,
    _final_terms,
    _intake,
    _schedule,
)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return parse_catalog(RAW_CATALOG, "test-synthesis-catalog")


EXPECTED_LETTER = """\
Dear Dana,

Good news: your plan has been reviewed against every policy that applies to you and it is \
approved.

Your plan has you graduating in Fall 2027, completing IS-BS and CS-MIN. Term by term, with \
titles for your next term:
- Spring 2027 (45 units): 15-122 Principles of Imperative Computation; 21-127 Concepts of \
Mathematics; 67-250 The Value of Information; 67-272 Application Design and Development
- Fall 2027 (21 units): 15-213, 70-311

How we got here: The first proposal would graduate you in Spring 2027, but the policy review \
found problems under the "Course load" policy: Spring 2027 has 66 units; the limit is 54 \
units. So we changed the plan: Every term is capped at 54 units (was 66). The Spring 2027 \
graduation target is dropped (the plan finds the earliest graduation instead), because it \
needs a 66-unit term. The revision in round 2 would graduate you in Fall 2027. It passed the \
policy review.

Please reply to this letter or book a meeting with your advisor if anything here does not \
match your plans.

Warm regards,
Office of Undergraduate Advising
"""


# --------------------------------------------------------------------------- tests


def test_approved_after_refinement_builds_the_whole_recommendation(catalog: Catalog) -> None:
    tools = Toolbox(catalog=catalog)
    rec = synthesis.synthesize(
        _intake(), PROPOSAL, _schedule(catalog), _critique(), ROUNDS, "approved", tools
    )
    course_load = CitationRef(
        document="academic-policies",
        section="course-load",
        heading="Course load",
        quote=COURSE_LOAD_TEXT,
        rule_id="LOAD-MAX",
    )
    minor = CitationRef(
        document="cs-minor",
        section="overview",
        heading="The minor",
        quote="The CS minor asks for three core courses.",
    )
    assert rec == Recommendation(
        request_id="add-cs-minor",
        student_id="overload-low-gpa",
        student_name="Dana Okafor",
        intent="add_program",
        outcome="approved",
        summary="Approved: graduate in Fall 2027 with IS-BS, adding CS-MIN.",
        programs=["IS-BS", "CS-MIN"],
        plan=_final_terms(catalog),
        graduation_term="F2027",
        next_term=NEXT_TERM,
        citations=[course_load, minor],
        negotiation=ROUNDS,
        letter=EXPECTED_LETTER,
        letter_source="template",
    )
    assert check_letter(rec.letter, rec) == []


def test_unresolved_outcome_keeps_violations_and_cites_them(catalog: Catalog) -> None:
    violation = Violation(
        rule_id="LOAD-MAX",
        severity="hard",
        term="S2027",
        message="Spring 2027 has 66 units; the limit is 54 units.",
        citation=answers.cite(catalog, "academic-policies", "course-load", "LOAD-MAX"),
    )
    critique = _critique(round=3, approval="rejected", violations=[violation])
    rec = synthesis.synthesize(
        _intake(added_programs=[], target_programs=["IS-BS"], intent="plan_degree"),
        PROPOSAL,
        _schedule(catalog, round=3),
        critique,
        [],
        "unresolved_after_max_rounds",
        Toolbox(catalog=catalog),
    )
    assert rec.summary == (
        "Unresolved after 3 rounds: LOAD-MAX still violated; the last proposal would "
        "graduate in Fall 2027 with IS-BS."
    )
    assert rec.violations == [violation]
    assert rec.citations == [violation.citation]
    assert "Still unresolved:\n- Course load: Spring 2027 has 66 units; the limit is 54 units." in (
        rec.letter
    )
    assert "LOAD-MAX" not in rec.letter


@pytest.mark.parametrize(
    ("outcome", "schedule_over", "intake_over", "summary"),
    [
        (
            "infeasible",
            {
                "solver_status": "infeasible",
                "terms": [],
                "graduation_term": None,
                "next_term": None,
                "reasons": ["CS-MIN cannot be finished by Spring 2027 within 54 units a term."],
                "earliest_feasible_term": "F2027",
            },
            {},
            "Infeasible: CS-MIN cannot be finished by Spring 2027 within 54 units a term. "
            "Earliest feasible graduation: Fall 2027.",
        ),
        (
            "needs_input",
            {"status": "not_needed", "terms": [], "graduation_term": None, "next_term": None},
            {
                "open_questions": [
                    OpenQuestion(field="add_programs", question="Which minor did you mean?"),
                    OpenQuestion(field="target", question="When do you want to graduate?"),
                ]
            },
            "Needs input: Which minor did you mean? (1 more question below.)",
        ),
    ],
)
def test_summary_states_the_outcome(
    catalog: Catalog,
    outcome: Any,
    schedule_over: dict[str, Any],
    intake_over: dict[str, Any],
    summary: str,
) -> None:
    rec = synthesis.synthesize(
        _intake(**intake_over),
        PROPOSAL,
        _schedule(catalog, **schedule_over),
        _critique(),
        [],
        outcome,
        Toolbox(catalog=catalog),
    )
    assert rec.summary == summary
    # The letter lists open questions itself; only other outcomes repeat the summary.
    assert (summary in rec.letter) == (outcome != "needs_input")


@pytest.mark.parametrize(
    ("source", "letter_source"),
    [("offline", "template"), ("gemini", "gemini"), ("offline_fallback", "template_fallback")],
)
def test_letter_comes_from_the_backend_with_its_source(
    catalog: Catalog, source: Source, letter_source: str
) -> None:
    backend = RecordingBackend(letter="Dear Dana,\n\nFake letter.\n", source=source)
    tools = Toolbox(catalog=catalog, llm=backend)
    rec = synthesis.synthesize(
        _intake(), PROPOSAL, _schedule(catalog), _critique(), ROUNDS, "approved", tools
    )
    assert rec.letter == "Dear Dana,\n\nFake letter.\n"
    assert rec.letter_source == letter_source
    assert [d.letter for d in backend.drafts] == [""]
    assert backend.texts == []
    assert backend.drafts[0].model_copy(update={"letter": rec.letter}) == rec.model_copy(
        update={"letter_source": "template"}
    )

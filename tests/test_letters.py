"""Template letter and the grounding check every letter must pass."""

from __future__ import annotations

from typing import Any

import pytest

from agents.artifacts import (
    CitationRef,
    ConstraintChange,
    NegotiationRound,
    OpenQuestion,
    Recommendation,
    Risk,
    ScheduledCourse,
    ScheduledTerm,
)
from agents.llm import check_letter, letter_mentions, template_letter

OVERLOAD = CitationRef(
    document="academic-policies",
    section="overload",
    heading="Overloads",
    quote="Students with a GPA of 3.0 or higher may register for up to 63 units; see 15-999.",
    rule_id="LOAD-OVERLOAD",
)


def _course(code: str, title: str, units: float = 12) -> ScheduledCourse:
    return ScheduledCourse(course=code, title=title, units=units, satisfies=["IS-BS/core"])


PLAN = [
    ScheduledTerm(
        term="S2027",
        label="Spring 2027",
        units=48,
        courses=[
            _course("67-272", "Application Design and Development"),
            _course("15-122", "Principles of Imperative Computation"),
            _course("36-200", "Reasoning with Data"),
            _course("70-122", "Introduction to Accounting"),
        ],
    ),
    ScheduledTerm(term="F2027", label="Fall 2027", units=0, away=True),
    ScheduledTerm(
        term="S2028",
        label="Spring 2028",
        units=60,
        courses=[
            _course("15-213", "Introduction to Computer Systems"),
            _course("67-373", "Software Development Project"),
            _course("70-311", "Organizational Behavior", 9),
            _course("67-320", "Systems Analysis", 9),
            _course("79-104", "Global Histories", 9),
            _course("76-101", "Writing About Data", 9),
        ],
    ),
]


def _draft(**over: Any) -> Recommendation:
    base: dict[str, Any] = {
        "request_id": "overload-high-gpa",
        "student_id": "overload-high-gpa",
        "student_name": "Priya Natarajan",
        "intent": "plan_degree",
        "outcome": "approved_with_risks",
        "summary": "Approved with risks: graduate in Spring 2028 with IS-BS.",
        "programs": ["IS-BS"],
        "plan": PLAN,
        "graduation_term": "S2028",
        "risks": [
            Risk(
                kind="approval_needed",
                message="Spring 2028 has 60 units, above 54: it needs your advisor's approval.",
                term="S2028",
                rule_id="LOAD-OVERLOAD",
                citation=OVERLOAD,
            )
        ],
        "citations": [OVERLOAD],
        "open_questions": [
            OpenQuestion(field="interests", question="Which electives interest you most?")
        ],
        "negotiation": [
            NegotiationRound(
                round=1,
                proposal="Graduate S2028 in 3 terms, max 63 units/term (optimal)",
                graduation_term="S2028",
                solver_status="optimal",
                approval="conditional",
                violations=["LOAD-OVERLOAD (S2028): Spring 2028 has 60 units; approval needed."],
                revision=[
                    ConstraintChange(
                        field="approvals_assumed",
                        before=[],
                        after=["LOAD-OVERLOAD"],
                        reason="Plan on advisor approval for the 60-unit Spring 2028 term.",
                        rule_id="LOAD-OVERLOAD",
                    )
                ],
                resolution="revised",
            ),
            NegotiationRound(
                round=2,
                proposal="Graduate S2028 in 3 terms, max 63 units/term (optimal)",
                graduation_term="S2028",
                solver_status="optimal",
                approval="conditional",
                resolution="approved",
            ),
        ],
        "letter": "",
        "letter_source": "template",
    }
    return Recommendation(**{**base, **over})


EXPECTED = """\
Dear Priya,

Your plan is approved, with a few points that need your attention before registration.

Your plan has you graduating in Spring 2028, completing IS-BS. Term by term, with titles for \
your next term:
- Spring 2027 (48 units): 67-272 Application Design and Development; 15-122 Principles of \
Imperative Computation; 36-200 Reasoning with Data; 70-122 Introduction to Accounting
- Fall 2027: away
- Spring 2028 (60 units): 15-213, 67-373, 70-311, 67-320, 79-104, 76-101

How we got here: The first proposal would graduate you in Spring 2028, but the policy review \
found problems under the "Overloads" policy: Spring 2028 has 60 units; approval needed. So we \
changed the plan: The plan assumes the approval it needs. The revision in round 2 would \
graduate you in Spring 2028. It passed the policy review.

Approvals to seek:
- Spring 2028: Spring 2028 has 60 units, above 54: it needs your advisor's approval.

Questions for you:
- Which electives interest you most?

Please reply to this letter or book a meeting with your advisor if anything here does not \
match your plans.

Warm regards,
Office of Undergraduate Advising
"""


def test_template_letter_covers_outcome_plan_negotiation_approvals_and_questions() -> None:
    assert template_letter(_draft()) == EXPECTED


def test_template_letter_is_readable_length_and_deterministic() -> None:
    letter = template_letter(_draft())
    assert 150 <= len(letter.split()) <= 350
    assert template_letter(_draft()) == letter


def test_template_letter_passes_check_letter() -> None:
    draft = _draft()
    assert check_letter(template_letter(draft), draft) == []


def test_letter_naming_a_course_term_and_rule_not_in_the_draft_fails_check_letter() -> None:
    letter = EXPECTED.replace(
        "Questions for you:",
        "Also take 15-451 Algorithms in Fall 2029 (PF-LIMIT) and 15-999.\n\nQuestions for you:",
    )
    assert check_letter(letter, _draft()) == [
        "course '15-451' is not in the recommendation",
        "course '15-999' is not in the recommendation",
        "term 'F2029' is not in the recommendation",
        "rule or program 'PF-LIMIT' is not in the recommendation",
    ]


def test_letter_mentions_reads_codes_labels_and_rule_ids() -> None:
    text = (
        "Take 15-122 and CS 101 in spring 2027 or F2027; LOAD-MAX and CS-MIN apply. "
        "LOAD-MAX 54, GPA 3.80 and 2029 alone are neither courses nor terms."
    )
    assert letter_mentions(text) == {
        "courses": {"15-122", "CS 101"},
        "terms": {"S2027", "F2027"},
        "rules": {"LOAD-MAX", "CS-MIN"},
    }


@pytest.mark.parametrize(
    ("over", "expected_lines"),
    [
        (
            {
                "outcome": "needs_input",
                "summary": "Needs input: Which minor did you mean?",
                "plan": [],
                "graduation_term": None,
                "risks": [],
                "negotiation": [],
                "open_questions": [
                    OpenQuestion(field="add_programs", question="Which minor did you mean?")
                ],
            },
            [
                "Dear Priya,\n\nBefore we can finish your plan we need a few answers from you.\n\n"
                "Questions for you:\n- Which minor did you mean?\n\n",
            ],
        ),
        (
            {
                "intent": "policy_question",
                "outcome": "answered",
                "summary": "Answered from the policy sections: Overloads.",
                "plan": [],
                "graduation_term": None,
                "risks": [],
                "negotiation": [],
                "open_questions": [],
                "answer": 'Overloads: "Students with a GPA of 3.0 or higher may register."',
            },
            [
                "Thank you for your question; here is what the policies say.",
                'Overloads: "Students with a GPA of 3.0 or higher may register."',
            ],
        ),
    ],
)
def test_letter_without_a_plan_answers_or_asks(
    over: dict[str, Any], expected_lines: list[str]
) -> None:
    draft = _draft(**over)
    letter = template_letter(draft)
    for line in expected_lines:
        assert line in letter
    assert "Term by term" not in letter
    assert check_letter(letter, draft) == []


def test_citation_quotes_do_not_ground_a_letter() -> None:
    # 15-999 appears only inside the quoted policy text, never in the plan or reasoning.
    assert check_letter("Consider 15-999.", _draft()) == [
        "course '15-999' is not in the recommendation"
    ]

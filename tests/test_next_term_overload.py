"""Issue #17, item 3: courses wanted in the next term above its standard load are planned
and sent to the critique, which answers with the overload rule - approval asked for an
eligible student, "not eligible" and why for another - instead of the request ending
"infeasible" with no rule named. Before the fix, only courses named in a next-term request
lifted the term's cap: registered and pinned ones did not (``agents.planning``), so a
sophomore registered for five 1.0-credit courses under a 4.0-credit cap got "infeasible:
the fixed course placements cannot be kept"; and "I want to take 5 courses next semester"
was not read at all (a plan of four, approved, the question never answered)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.artifacts import CitationRef, PlanRequest, Recommendation, Risk
from agents.catalog import StudentRecord
from agents.llm.textparse import parse_request_text
from agents.toolbox import Settings
from pipeline.runner import RequestOptions, ToolboxFactory, run_request
from pipeline.store import CheckpointStore
from tests.overload_helpers import CATALOG, FIVE, one_credit_raw, round_one, sophomore

OVERLOAD_SECTION = CitationRef(
    document="pol",
    section="overload",
    heading="Overloads",
    quote="Sophomores and up in good standing with a GPA of 3.0 or higher may take up to 5.0 "
    "credits with their advisor's approval.",
    rule_id="LOAD-OVERLOAD",
)
APPROVAL = (
    "Spring 2027 has 5 credits, above the standard 4; an overload up to 5 credits needs "
    "advisor approval"
)
NOT_ELIGIBLE = (
    "Spring 2027 cannot carry 5 credits: not eligible for an overload with a GPA of 2.00 - "
    "LOAD-OVERLOAD allows up to 5 credits with advisor approval only with a GPA of at least "
    "3.00, as a sophomore, a junior or a senior, in good academic standing"
)


@pytest.mark.parametrize(
    ("how", "student", "fields"),
    [
        ("registered", sophomore(registered=FIVE), {"intent": "plan_next_term"}),
        (
            "registered and asked for",
            sophomore(registered=FIVE[:3]),
            {"intent": "plan_next_term", "include_courses": FIVE[3:]},
        ),
        (
            "pinned in a degree plan",
            sophomore(),
            {"intent": "plan_degree", "pin_courses": dict.fromkeys(FIVE, "S2027")},
        ),
        ("a number", sophomore(), {"text": "I want to take 5 courses next semester"}),
        ("a number field", sophomore(), {"intent": "plan_next_term", "next_term_courses": 5}),
    ],
)
def test_five_courses_wanted_next_term_are_planned_and_the_overload_approval_asked(
    how: str, student: StudentRecord, fields: dict[str, object]
) -> None:
    r = round_one(student, **fields)
    assert (r.schedule.solver_status, r.schedule.infeasible_kind) == ("optimal", None), how
    assert r.courses("S2027") == FIVE
    assert r.critique.approval == "conditional"
    assert [(v.rule_id, v.severity, v.message) for v in r.critique.violations] == [
        ("LOAD-OVERLOAD", "soft", APPROVAL)
    ]
    assert [(x.kind, x.rule_id) for x in r.critique.risks] == [("approval_needed", "LOAD-OVERLOAD")]


@pytest.mark.parametrize(
    ("text", "wanted", "cap"),
    [
        ("I want to take 5 courses next semester", 5, None),
        ("Next term I'd like to take five classes.", 5, None),
        ("I can take at most 5 courses next semester", None, 5),
    ],
)
def test_a_number_of_courses_next_term_is_a_wish_and_a_cap_stays_a_cap(
    text: str, wanted: int | None, cap: int | None
) -> None:
    ext = parse_request_text(text, CATALOG, current_term="F2026")
    assert (ext.next_term_courses, ext.max_courses_per_term) == (wanted, cap)


def test_a_cap_of_five_courses_plans_within_the_standard_load() -> None:
    r = round_one(sophomore(), text="I can take at most 5 courses next semester")
    assert r.courses("S2027") == FIVE[:4]
    assert r.critique.approval == "approved"


@pytest.mark.parametrize(
    ("student", "fields"),
    [
        (sophomore("C", registered=FIVE), {"intent": "plan_next_term"}),
        (sophomore("C"), {"text": "I want to take 5 courses next semester"}),
    ],
)
def test_a_student_not_eligible_is_told_why_citing_the_overload_rule(
    student: StudentRecord, fields: dict[str, object]
) -> None:
    r = round_one(student, **fields)
    assert r.courses("S2027") == FIVE
    assert r.critique.approval == "rejected"
    assert [(v.rule_id, v.severity, v.message) for v in r.critique.violations] == [
        ("LOAD-MAX", "hard", "Spring 2027 has 5 credits; with a GPA of 2.00 the limit is 4 credits")
    ]
    assert r.critique.risks == [
        Risk(
            kind="load",
            message=NOT_ELIGIBLE,
            term="S2027",
            rule_id="LOAD-OVERLOAD",
            citation=OVERLOAD_SECTION,
        )
    ]


def _run(tmp_path: Path, grade: str, **fields: object) -> tuple[str, Recommendation | None]:
    catalog = tmp_path / "catalog.json"
    catalog.write_text(json.dumps(one_credit_raw()), encoding="utf-8")
    request = PlanRequest(
        request_id=f"five-next-term-{grade.lower()}",
        student=sophomore(grade, registered=None if fields else FIVE),
        **(fields or {"intent": "plan_next_term"}),  # type: ignore[arg-type]
    )
    ctx = run_request(
        request,
        RequestOptions(
            store=CheckpointStore(tmp_path / "state"),
            toolbox_factory=ToolboxFactory(catalog_path=catalog, index_dir=tmp_path / "index"),
            settings=Settings(),
            out_dir=None,
        ),
    )
    return ctx.state, ctx.recommendation


def test_an_eligible_student_awaits_the_advisors_approval(tmp_path: Path) -> None:
    state, rec = _run(tmp_path, "A")
    assert (state, rec) == ("awaiting_approval", None)


def test_a_student_not_eligible_gets_the_standard_load_and_the_moved_course(
    tmp_path: Path,
) -> None:
    """The critique's "no" is resolved by refinement: four courses next term, and the fifth
    registration moved - a risk the student must act on, with the rule that moved it."""
    state, rec = _run(tmp_path, "C")
    assert state == "done" and rec is not None
    assert rec.outcome == "approved_with_risks"
    assert [(t.term, [c.course for c in t.courses]) for t in rec.plan][:1] == [("S2027", FIVE[:4])]
    assert [x.message for x in rec.risks] == [
        "AA 105 was wanted in Spring 2027 but the plan takes it in Fall 2027: Spring 2027 is "
        "capped at 4 credits, so AA 105 has to give way there"
    ]
    first = rec.negotiation[0]
    assert first.violations == [
        "LOAD-MAX (S2027): Spring 2027 has 5 credits; with a GPA of 2.00 the limit is 4 credits"
    ]


def test_a_number_wanted_the_student_may_not_carry_gives_way_to_the_cap(tmp_path: Path) -> None:
    state, rec = _run(tmp_path, "C", text="I want to take 5 courses next semester")
    assert state == "done" and rec is not None
    assert (rec.outcome, [len(t.courses) for t in rec.plan]) == ("approved_with_risks", [4, 4])
    assert [x.message for x in rec.risks] == [
        "5 courses were wanted in Spring 2027 but the plan takes 4: Spring 2027 may carry at "
        "most 4 credits"
    ]
    assert (
        "Spring 2027 is no longer held to 5 courses, because Spring 2027 may carry at most 4 "
        "credits." in rec.letter
    )

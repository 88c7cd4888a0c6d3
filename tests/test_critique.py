"""The policy critique on hand-built schedules: whole Critique artifacts, exact messages and
citations quoted from the sample catalog."""

from __future__ import annotations

from agents import critique
from agents.artifacts import (
    CitationRef,
    Critique,
    Modification,
    NextTermSections,
    RequirementsProposal,
    Risk,
    Schedule,
    Violation,
)
from agents.toolbox import Toolbox
from tests.policy_helpers import EVERYONE, PLAN_63, cite, intake, record, schedule, term, tools

__all__ = ["tools"]  # the session fixture, imported so pytest finds it here

PROPOSAL = RequirementsProposal(status="done")

COURSE_LOAD = CitationRef(
    document="academic-policies",
    section="course-load",
    heading="Course Load",
    quote="A full course load is 36 to 54 units in each fall and spring term. A student may take "
    "at most 54 units in a term unless an overload has been approved under the Overloads policy; "
    "how many units a student may take beyond that depends on class standing, GPA and academic "
    "status. Regardless of units, no student may take more than six courses in a term. Units "
    "from courses dropped before the add/drop deadline do not count toward the load.",
    rule_id="LOAD-MAX",
)
OVERLOAD = cite("LOAD-OVERLOAD")


def test_low_gpa_student_with_two_63_unit_terms_is_rejected_citing_course_load(
    tools: Toolbox,
) -> None:
    got = critique.review(
        intake(record(gpa=2.6), target="F2028"), schedule(PLAN_63, target="F2028"), tools
    )
    assert got == Critique(
        status="done",
        round=1,
        approval="rejected",
        violations=[
            Violation(
                rule_id="LOAD-MAX",
                severity="hard",
                term="S2027",
                message="Spring 2027 has 63 units; with a GPA of 2.60 the limit is 54 units",
                citation=COURSE_LOAD,
            ),
            Violation(
                rule_id="LOAD-MAX",
                severity="hard",
                term="S2028",
                message="Spring 2028 has 63 units; with a GPA of 2.60 the limit is 54 units",
                citation=COURSE_LOAD,
            ),
        ],
        # Why no overload lifts the limit, once, citing the overload rule (issue #17).
        risks=[
            Risk(
                kind="load",
                message="Spring 2027 cannot carry 63 units: not eligible for an overload with a "
                "GPA of 2.60 - LOAD-OVERLOAD allows up to 63 units with advisor approval only "
                "with a GPA of at least 3.00, as a sophomore, a junior or a senior, in good "
                "academic standing",
                term="S2027",
                rule_id="LOAD-OVERLOAD",
                citation=OVERLOAD,
            )
        ],
        suggestions=[
            Modification(
                action="cap_all_terms_units",
                value=54,
                rule_id="LOAD-MAX",
                reason="Spring 2027 and Spring 2028 are over the 54-unit limit; cap every term "
                "at it",
            ),
            Modification(
                action="relax_target",
                rule_id="LOAD-MAX",
                reason="graduating by Fall 2028 needed terms above the limit; find the earliest "
                "graduation within it",
            ),
        ],
        rules_checked=["LOAD-MAX", "LOAD-OVERLOAD", *EVERYONE[1:]],
        explanation="Rejected: the plan breaks LOAD-MAX: Spring 2027 has 63 units; with a GPA "
        "of 2.60 the limit is 54 units (and 1 more). Suggested: cap every term at 54 units; "
        "drop the graduation target and find the earliest feasible term.",
    )


def _overload_risk(code: str, message: str) -> Risk:
    return Risk(
        kind="approval_needed",
        message=message,
        term=code,
        rule_id="LOAD-OVERLOAD",
        citation=OVERLOAD,
    )


def test_high_gpa_student_with_the_same_plan_is_conditional_on_advisor_approval(
    tools: Toolbox,
) -> None:
    got = critique.review(
        intake(record(gpa=3.8), target="F2028"), schedule(PLAN_63, target="F2028"), tools
    )
    soft = "units, above the standard 54; an overload up to 63 units needs advisor approval"
    assert got == Critique(
        status="done",
        round=1,
        approval="conditional",
        violations=[
            Violation(
                rule_id="LOAD-OVERLOAD",
                severity="soft",
                term=code,
                message=f"{name} has 63 {soft}",
                citation=OVERLOAD,
            )
            for code, name in [("S2027", "Spring 2027"), ("S2028", "Spring 2028")]
        ],
        risks=[
            _overload_risk(
                "S2027", "Spring 2027 needs advisor approval for 63 units before registration"
            ),
            _overload_risk(
                "S2028", "Spring 2028 needs advisor approval for 63 units before registration"
            ),
        ],
        suggestions=[
            Modification(
                action="needs_approval",
                rule_id="LOAD-OVERLOAD",
                reason="ask for advisor approval of the overload terms; the student qualifies",
                approver="advisor",
            )
        ],
        rules_checked=["LOAD-MAX", "LOAD-OVERLOAD", *EVERYONE[1:]],
        explanation="Conditional: the plan can stand once LOAD-OVERLOAD is settled: Spring 2027 "
        f"has 63 {soft} (and 1 more). Suggested: obtain the LOAD-OVERLOAD approval.",
    )


def test_assumed_overload_approval_turns_violations_into_risks_and_approves(
    tools: Toolbox,
) -> None:
    sched = schedule(PLAN_63, target="F2028", approvals=["LOAD-OVERLOAD"], round=2)
    got = critique.review(intake(record(gpa=3.8), target="F2028"), sched, tools)
    assumed = "units, above the standard 54; the plan assumes advisor approval for the overload"
    assert got == Critique(
        status="done",
        round=2,
        approval="approved",
        risks=[
            _overload_risk("S2027", f"Spring 2027 has 63 {assumed}"),
            _overload_risk("S2028", f"Spring 2028 has 63 {assumed}"),
        ],
        rules_checked=["LOAD-MAX", "LOAD-OVERLOAD", *EVERYONE[1:]],
        explanation="Approved: the plan follows every rule that applies; 2 risks remain "
        "(approval needed).",
    )


# 214 units, the first term at 54.
PLAN_54_FIRST = [
    term("S2027", "15-213", "15-251", "15-210", "80-130", "70-100"),
    term("F2027", "15-351", "15-312", "15-445", "21-301"),
    term("S2028", "15-451", "15-440", "15-418", "15-322"),
    term("F2028", "15-441", "15-462", "15-386", "85-211"),
    term("S2029", "21-259", "15-410"),
]


def test_probation_student_with_a_54_unit_term_is_rejected_by_the_45_unit_cap(
    tools: Toolbox,
) -> None:
    got = critique.review(
        intake(record(gpa=1.9, status="probation")),
        schedule(PLAN_54_FIRST, cap=54),
        tools,
    )
    assert got == Critique(
        status="done",
        round=1,
        approval="rejected",
        violations=[
            Violation(
                rule_id="PROB-MAX",
                severity="hard",
                term="S2027",
                message="Spring 2027 has 54 units; on academic probation the limit is 45 units",
                citation=cite("PROB-MAX"),
            )
        ],
        risks=[
            Risk(
                kind="gpa",
                message="the GPA of 1.90 is below the 2.00 needed to graduate; the 214 planned "
                "units must average at least 2.05",
                rule_id="GRAD-GPA",
                citation=cite("GRAD-GPA"),
            )
        ],
        suggestions=[
            Modification(
                action="cap_all_terms_units",
                value=45,
                rule_id="PROB-MAX",
                reason="Spring 2027 is over the 45-unit limit; cap every term at it",
            )
        ],
        rules_checked=["LOAD-MAX", "PROB-MAX", *EVERYONE[1:]],
        explanation="Rejected: the plan breaks PROB-MAX: Spring 2027 has 54 units; on academic "
        "probation the limit is 45 units. Suggested: cap every term at 45 units.",
    )


def test_a_part_time_middle_term_is_a_soft_full_time_violation(tools: Toolbox) -> None:
    plan = [
        term("S2027", "15-213", "15-251", "15-210", "80-130", "70-100"),
        term("F2027", "15-351", "15-312", "21-301"),
        term("S2028", "15-451", "15-440", "15-418", "15-322", "85-211"),
        term("F2028", "15-441", "15-462", "15-386", "15-445"),
        term("S2029", "21-259", "15-294", "36-225"),
    ]
    assert [t.units for t in plan] == [54, 33, 54, 48, 25]
    got = critique.review(intake(record(gpa=2.6)), schedule(plan, cap=54), tools)
    assert got == Critique(
        status="done",
        round=1,
        approval="conditional",
        violations=[
            Violation(
                rule_id="LOAD-MIN",
                severity="soft",
                term="F2027",
                message="Fall 2027 has 33 units, below the 36 needed for full-time status",
                citation=cite("LOAD-MIN"),
            )
        ],
        risks=[
            Risk(
                kind="load",
                message="Fall 2027 is part-time (33 units): financial aid, housing and visa "
                "status may require full-time enrollment",
                term="F2027",
                rule_id="LOAD-MIN",
                citation=cite("LOAD-MIN"),
            )
        ],
        suggestions=[
            Modification(
                action="floor_term_units",
                term=code,
                value=36,
                rule_id="LOAD-MIN",
                reason=f"keep {name} full-time",
            )
            for code, name in [
                ("S2027", "Spring 2027"),
                ("F2027", "Fall 2027"),
                ("S2028", "Spring 2028"),
                ("F2028", "Fall 2028"),
            ]
        ],
        rules_checked=EVERYONE,
        explanation="Conditional: the plan can stand once LOAD-MIN is settled: Fall 2027 has 33 "
        "units, below the 36 needed for full-time status. Suggested: keep Spring 2027, Fall "
        "2027, Spring 2028 and Fall 2028 at 36 units or more.",
    )


def test_an_ineligible_what_if_minor_is_a_hard_violation(tools: Toolbox) -> None:
    cs_min = intake(record(gpa=3.0), programs=["CS-BS", "CS-MIN"])
    got = critique.review(cs_min, schedule(PLAN_54_FIRST, cap=54), tools)
    assert got == Critique(
        status="done",
        round=1,
        approval="rejected",
        violations=[
            Violation(
                rule_id="MINOR-ELIG",
                severity="hard",
                message="CS-MIN (Computer Science minor) is not open to students in CS-BS; "
                "choose a different minor",
                citation=cite("MINOR-ELIG"),
            )
        ],
        rules_checked=["LOAD-MAX", "LOAD-OVERLOAD", *EVERYONE[1:]],
        explanation="Rejected: the plan breaks MINOR-ELIG: CS-MIN (Computer Science minor) is "
        "not open to students in CS-BS; choose a different minor. No constraint change can fix "
        "this.",
    )


def test_infeasible_schedule_is_not_critiqued_but_eligibility_still_is(tools: Toolbox) -> None:
    cs_min = intake(record(gpa=3.0), programs=["CS-BS", "CS-MIN"])
    infeasible = Schedule(
        status="done",
        round=1,
        solver_status="infeasible",
        reasons=["15-451 needs 15-210 and 15-251 first; no term is left before F2028"],
    )
    reason = (
        "no plan to check: the planner proved that no plan exists (15-451 needs 15-210 and "
        "15-251 first; no term is left before F2028)"
    )
    elig = Violation(
        rule_id="MINOR-ELIG",
        severity="hard",
        message="CS-MIN (Computer Science minor) is not open to students in CS-BS; choose a "
        "different minor",
        citation=cite("MINOR-ELIG"),
    )
    assert critique.review(cs_min, infeasible, tools) == Critique(
        status="not_needed",
        not_needed_reason=reason,
        round=1,
        approval="not_needed",
        violations=[elig],
        rules_checked=["MINOR-ELIG"],
        explanation=f"Nothing to approve: {reason}. CS-MIN (Computer Science minor) is not open "
        "to students in CS-BS; choose a different minor.",
    )


def test_policy_question_needs_no_critique(tools: Toolbox) -> None:
    none = Schedule(
        status="not_needed",
        not_needed_reason="a policy question needs no plan",
        round=1,
        solver_status="not_run",
    )
    got = critique.review(intake(record(), intent="policy_question"), none, tools)
    assert got == Critique(
        status="not_needed",
        not_needed_reason="a policy question needs no plan",
        round=1,
        approval="not_needed",
        rules_checked=["MINOR-ELIG"],
        explanation="Nothing to approve: a policy question needs no plan.",
    )


def test_consent_offering_target_clash_and_verifier_risks(tools: Toolbox) -> None:
    plan = [
        term("S2027", "15-213", "15-251", "15-210", "15-499", "70-100"),
        term("F2027", "15-351", "15-466", "15-445", "21-301", "36-225"),
        term("S2028", "15-451", "15-440", "15-418", "15-322", "85-211"),
        term("F2028", "15-441", "15-462", "15-386"),
        term("S2029", "21-259", "15-294"),
    ]
    clash = NextTermSections(
        term="S2027",
        status="clash",
        clashes=["15-213 A and 15-251 A: both TR 13:30-14:50"],
        alternative=["15-213", "15-210", "15-499", "70-100", "80-130"],
    )
    sched = schedule(
        plan, cap=54, next_term=clash, verification=["prerequisite: 15-441 before 15-213"]
    )
    got = critique.review(intake(record(gpa=2.6), target="F2028"), sched, tools)
    assert got == Critique(
        status="done",
        round=1,
        approval="approved",
        risks=[
            Risk(
                kind="consent_needed",
                message="15-499 in Spring 2027 needs instructor consent before registration",
                term="S2027",
            ),
            # 15-466 (odd years only) is an elective here: every-year courses can replace
            # it, so its offering pattern is no risk.
            Risk(
                kind="target_missed",
                message="the plan graduates in Spring 2029, after the Fall 2028 target",
                term="S2029",
            ),
            Risk(
                kind="sections",
                message="Spring 2027 sections clash: 15-213 A and 15-251 A: both TR 13:30-14:50; "
                "a clash-free set: 15-213, 15-210, 15-499, 70-100, 80-130",
                term="S2027",
            ),
            Risk(kind="other", message="plan verifier: prerequisite: 15-441 before 15-213"),
        ],
        rules_checked=EVERYONE,
        explanation="Approved: the plan follows every rule that applies; 4 risks remain "
        "(consent needed, target missed, sections, other).",
    )

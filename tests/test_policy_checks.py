"""The rule engine, per-kind checks of a plan against the record: per-term load caps,
sharing limits, repeats, pass/fail, the number of terms, residency, the graduation GPA and
total units - and rules reported, not checked, when no check or no record exists."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from agents.artifacts import Modification, Risk, Schedule, Violation
from agents.catalog import SharingLimit, StudentRecord
from agents.policy import Findings, PlanCheck, check_plan
from agents.policy import checks as policy
from tests.policy_helpers import (
    CATALOG,
    PLAN_63,
    SOPHOMORE_COURSES,
    attempt,
    cite,
    profile,
    record,
    schedule,
    term,
)


def plan_check(rec: StudentRecord, sched: Schedule, programs: Sequence[str] = ()) -> PlanCheck:
    return PlanCheck(
        catalog=CATALOG,
        profile=profile(rec),
        record=rec,
        programs=list(programs or rec.programs),
        schedule=sched,
        cite=cite,
    )


def test_first_year_terms_are_capped_per_term_when_later_terms_may_overload() -> None:
    """A 3.8 first-year: S2027 (first-year) over 54 is hard; F2027 (sophomore) at 63 only
    needs approval. Caps go on the first-year terms only, the general cap stays 63."""
    rec = record(gpa=3.8, courses=SOPHOMORE_COURSES[:3])  # 34 units: a first-year
    plan = [
        term("S2027", "15-112", "15-122", "21-241", "21-122", "15-150", "73-103"),
        term("F2027", "15-213", "15-251", "15-210", "80-130", "70-100", "73-230"),
    ]
    found = check_plan(plan_check(rec, schedule(plan)), kinds=["max_units_per_term"])
    assert [(v.rule_id, v.severity, v.term, v.message) for v in found.violations] == [
        (
            "FIRST-YEAR-MAX",
            "hard",
            "S2027",
            "Spring 2027 has 67 units; as a first-year student the limit is 54 units",
        ),
        (
            "LOAD-OVERLOAD",
            "soft",
            "F2027",
            "Fall 2027 has 63 units, above the standard 54; an overload up to 63 units needs "
            "advisor approval",
        ),
    ]
    assert [(m.action, m.term, m.value, m.rule_id) for m in found.suggestions] == [
        ("needs_approval", None, None, "LOAD-OVERLOAD"),
        ("cap_term_units", "S2027", 54, "FIRST-YEAR-MAX"),
    ]
    assert found.checked == ["LOAD-MAX", "FIRST-YEAR-MAX", "LOAD-OVERLOAD"]


def test_a_rule_without_a_check_is_reported_not_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(policy.CHECKS, "max_terms")
    found = check_plan(plan_check(record(), schedule(PLAN_63)), kinds=["max_terms"])
    assert found.checked == []
    assert [(r.kind, r.rule_id, r.message) for r in found.risks] == [
        (
            "other",
            "MAX-TERMS",
            "MAX-TERMS (Maximum regular terms) was not checked: no check exists for "
            "rule kind 'max_terms'; check it by hand",
        )
    ]


def test_sharing_double_check_counts_courses_shared_beyond_the_limit() -> None:
    """The audit keeps sharing within limits, so a plan that agrees with it passes."""
    rec = record(programs=("CS-BS", "MATH-MIN"))
    found = check_plan(plan_check(rec, schedule(PLAN_63)), kinds=["program_sharing"])
    assert (found.violations, found.checked) == ([], ["MINOR-SHARE"])


def test_sharing_beyond_the_limit_is_a_hard_violation(monkeypatch: pytest.MonkeyPatch) -> None:
    # The audit shares 21-122 and 21-127 under the real limit of 2; the check reads 1.
    tight = SharingLimit(with_kind="major", max_courses=1, rule="MINOR-SHARE")
    monkeypatch.setattr(policy, "sharing_limit", lambda a, b: tight)
    rec = record(programs=("CS-BS", "MATH-MIN"))
    found = check_plan(plan_check(rec, schedule(PLAN_63)), kinds=["program_sharing"])
    assert found == Findings(
        violations=[
            Violation(
                rule_id="MINOR-SHARE",
                severity="hard",
                message="2 courses count toward both CS-BS and MATH-MIN (21-122, 21-127); "
                "at most 1 may",
                citation=cite("MINOR-SHARE"),
            )
        ],
        checked=["MINOR-SHARE"],
    )


def test_third_attempt_is_hard_and_second_attempt_is_a_risk_withdrawals_do_not_count() -> None:
    courses = [
        *SOPHOMORE_COURSES[:10],
        attempt("15-213", "F2025", "R"),
        attempt("15-213", "S2026", "R"),
        attempt("15-251", "S2026", "R"),
        attempt("15-210", "S2026", "W"),
    ]
    plan = [term("S2027", "15-213", "15-251", "15-210", "80-130")]
    found = check_plan(plan_check(record(courses=courses), schedule(plan)), kinds=["repeat_limit"])
    assert found == Findings(
        violations=[
            Violation(
                rule_id="REPEAT-LIMIT",
                severity="hard",
                term="S2027",
                message="15-213 is planned for Spring 2027 but was already attempted 2 times "
                "(F2025 R, S2026 R); the limit is 2 attempts",
                citation=cite("REPEAT-LIMIT"),
            )
        ],
        risks=[
            Risk(
                kind="repeat",
                message="15-251 in Spring 2027 is the last allowed attempt (2 of 2; earlier: "
                "S2026 R)",
                term="S2027",
                rule_id="REPEAT-LIMIT",
                citation=cite("REPEAT-LIMIT"),
            )
        ],
        suggestions=[
            Modification(
                action="avoid_course",
                course="15-213",
                rule_id="REPEAT-LIMIT",
                reason="15-213 may not be attempted again; plan an alternative or petition for "
                "an exception",
            )
        ],
        checked=["REPEAT-LIMIT"],
    )


def test_elected_pass_fail_beyond_the_limit_in_the_record_is_a_risk() -> None:
    courses = [
        *SOPHOMORE_COURSES,
        attempt("80-130", "S2026", "P", pass_fail=True),
        attempt("76-227", "S2026", "P", pass_fail=True),
        attempt("67-391", "S2026", "P", pass_fail=True),  # graded only P/F: not an election
        attempt("33-115", "F2025", "P", pass_fail=True),
    ]
    found = check_plan(plan_check(record(courses=courses), schedule(PLAN_63)), ["pass_fail_limit"])
    assert found == Findings(
        risks=[
            Risk(
                kind="other",
                message="Spring 2026 has 2 pass/fail courses (80-130, 76-227); the limit is 1 "
                "per term - ask the registrar how the extra ones count",
                term="S2026",
                rule_id="PF-LIMIT",
                citation=cite("PF-LIMIT"),
            )
        ],
        checked=["PF-LIMIT"],
    )


def test_more_than_ten_regular_terms_is_hard_and_terms_away_do_not_count() -> None:
    rec = record(start="F2022")  # 8 regular terms before F2026, 1 in progress
    away = [term("S2027"), term("F2027", "15-213")]
    assert check_plan(plan_check(rec, schedule(away)), ["max_terms"]) == Findings(
        checked=["MAX-TERMS"]
    )
    plan = [term("S2027", "15-251"), term("F2027", "15-213")]
    assert check_plan(plan_check(rec, schedule(plan)), ["max_terms"]) == Findings(
        violations=[
            Violation(
                rule_id="MAX-TERMS",
                severity="hard",
                term="F2027",
                message="the plan graduates in Fall 2027 after 11 regular terms (8 completed, "
                "1 in progress, 2 planned); the limit is 10",
                citation=cite("MAX-TERMS"),
            )
        ],
        checked=["MAX-TERMS"],
    )


def test_residency_counts_only_units_earned_here() -> None:
    transfer = [
        attempt(code, "F2025", "TR", source="transfer", units=40)
        for code in ("15-110", "21-127", "21-120", "76-101", "85-102")
    ]
    rec = record(courses=[*transfer, *SOPHOMORE_COURSES[10:]])  # 200 outside + 42 here
    plan = [
        term("S2027", "15-213", "15-251", "15-210", "80-130", "70-100"),
        term("F2027", "15-351"),
    ]
    assert check_plan(plan_check(rec, schedule(plan)), ["residency"]) == Findings(
        violations=[
            Violation(
                rule_id="RESIDENCY",
                severity="hard",
                term="F2027",
                message="only 108 units are earned at Northfield Institute of Technology (200 "
                "come from transfer, AP or exam credit); at least 180 must be",
                citation=cite("RESIDENCY"),
            )
        ],
        suggestions=[
            # The plan's 66 units plus the 72 missing ones.
            Modification(
                action="plan_more_units",
                value=138.0,
                rule_id="RESIDENCY",
                reason="earn 72 more units at Northfield Institute of Technology",
            )
        ],
        checked=["RESIDENCY"],
    )


def test_graduation_gpa_out_of_reach_even_with_top_grades_is_a_violation() -> None:
    rec = record(gpa=1.2)  # 104 graded units
    plan = [term("S2027", "15-213", "15-251")]
    assert check_plan(plan_check(rec, schedule(plan)), ["min_gpa_graduation"]) == Findings(
        violations=[
            Violation(
                rule_id="GRAD-GPA",
                severity="hard",
                term="S2027",
                message="the GPA is 1.20; even with top grades in all 24 planned units it would "
                "reach at most 1.73, below the 2.00 needed to graduate",
                citation=cite("GRAD-GPA"),
            )
        ],
        checked=["GRAD-GPA"],
    )


def test_too_few_units_for_the_degree_is_a_violation() -> None:
    plan = [term("S2027", "15-213", "15-251")]
    assert check_plan(plan_check(record(), schedule(plan)), ["total_units"]) == Findings(
        violations=[
            Violation(
                rule_id="TOTAL-UNITS",
                severity="hard",
                term="S2027",
                message="the plan reaches 170 units by Spring 2027; a degree needs 360",
                citation=cite("TOTAL-UNITS"),
            )
        ],
        checked=["TOTAL-UNITS"],
    )


def test_rules_that_read_the_record_are_reported_not_checked_without_one() -> None:
    ctx = replace(plan_check(record(), schedule(PLAN_63)), record=None)
    found = check_plan(ctx, ["repeat_limit", "pass_fail_limit", "program_sharing", "residency"])
    assert found == Findings(
        risks=[
            Risk(
                kind="other",
                message=f"{rid} ({CATALOG.rule_by_id[rid].title}) was not checked: the intake "
                "carries no student record; check it by hand",
                rule_id=rid,
                citation=cite(rid),
            )
            for rid in ("REPEAT-LIMIT", "PF-LIMIT", "MINOR-SHARE", "RESIDENCY")
        ]
    )

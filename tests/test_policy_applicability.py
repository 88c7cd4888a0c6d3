"""The rule engine, applicability: which rules apply for a GPA, class standing and academic
status, the load limit each student gets, and class standing re-evaluated per planned term."""

from __future__ import annotations

import pytest

from agents.catalog import PolicyRule, RuleCondition
from agents.policy import applicable_rules, load_limit, standings_by_term
from agents.policy import rules as policy_rules
from tests.policy_helpers import (
    CATALOG,
    EVERYONE,
    SOPHOMORE_COURSES,
    attempt,
    profile,
    record,
    term,
)


def _ids(rules: list[PolicyRule]) -> list[str]:
    return [r.id for r in rules]


@pytest.mark.parametrize(
    ("gpa", "status", "standing", "extra"),
    [
        (2.6, "good", None, []),
        (3.8, "good", None, ["LOAD-OVERLOAD"]),
        (3.8, "good", "first_year", ["FIRST-YEAR-MAX"]),
        (1.9, "probation", None, ["PROB-MAX"]),
        (3.5, "probation", None, ["PROB-MAX"]),
        (None, "good", None, []),
        (3.2, "suspended", None, ["SUSPENDED-NO-REG"]),
    ],
)
def test_applicable_rules_follow_gpa_standing_and_status(
    gpa: float | None, status: str, standing: str | None, extra: list[str]
) -> None:
    prof = profile(record(gpa=gpa, status=status))
    got = _ids(applicable_rules(CATALOG, prof, standing=standing))  # type: ignore[arg-type]
    assert sorted(got) == sorted(EVERYONE + extra)


def test_gpa_conditioned_rule_never_applies_without_a_gpa() -> None:
    rule = CATALOG.rule_by_id["LOAD-OVERLOAD"]
    assert policy_rules.condition_failure(rule, gpa=None, standing="junior", status="good") == (
        "without a GPA on record"
    )


def test_probation_rule_applies_only_on_probation_even_without_a_status_condition() -> None:
    bare = CATALOG.rule_by_id["PROB-MAX"].model_copy(update={"applies_when": RuleCondition()})
    assert not policy_rules.rule_applies(bare, gpa=2.5, standing="junior", status="good")
    assert policy_rules.rule_applies(bare, gpa=2.5, standing="junior", status="probation")


@pytest.mark.parametrize(
    ("gpa", "standing", "status", "expected"),
    [
        (2.6, "sophomore", "good", (54, "LOAD-MAX", 54, None, "with a GPA of 2.60")),
        (
            3.8,
            "sophomore",
            "good",
            (54, "LOAD-MAX", 63, "LOAD-OVERLOAD", "even with advisor approval"),
        ),
        (3.8, "first_year", "good", (54, "FIRST-YEAR-MAX", 54, None, "as a first-year student")),
        (None, "first_year", "good", (54, "FIRST-YEAR-MAX", 54, None, "without a GPA on record")),
        (1.9, "junior", "probation", (45, "PROB-MAX", 45, None, "on academic probation")),
        (3.5, "junior", "probation", (45, "PROB-MAX", 45, None, "on academic probation")),
        (3.2, "senior", "suspended", (0, "SUSPENDED-NO-REG", 0, None, "while suspended")),
    ],
)
def test_load_limit_per_student(
    gpa: float | None, standing: str, status: str, expected: tuple[object, ...]
) -> None:
    lim = load_limit(CATALOG, gpa=gpa, standing=standing, status=status)  # type: ignore[arg-type]
    assert lim is not None
    overload = lim.overload_rule.id if lim.overload_rule else None
    assert (lim.standard, lim.standard_rule.id, lim.allowed, overload, lim.why) == expected


def test_class_standing_is_reevaluated_per_planned_term() -> None:
    # 52 earned + 31 in progress: still a first-year in S2027, a sophomore from F2027 on.
    in_progress = [
        attempt("15-112", "F2026"),
        attempt("21-122", "F2026"),
        attempt("79-104", "F2026"),
    ]
    rec = record(gpa=3.8, courses=SOPHOMORE_COURSES[:5] + in_progress)
    prof = profile(rec)
    assert (prof.units_earned, prof.units_in_progress) == (52, 31)
    plan = [term("S2027", "15-122", "15-150", "21-241"), term("F2027", "15-213", "15-251")]
    assert standings_by_term(CATALOG, prof, plan) == {"S2027": "first_year", "F2027": "sophomore"}

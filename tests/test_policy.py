"""The rule engine: which rules apply, the load limit of each planned term, the per-kind
checks. Also the builders the critique, refinement and negotiation tests share: records,
profiles and schedules made by hand on the sample catalog - never by the planner."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from agents.artifacts import (
    CitationRef,
    ConstraintSet,
    Goals,
    IntakeResult,
    Modification,
    OpenQuestion,
    Risk,
    Schedule,
    ScheduledCourse,
    ScheduledTerm,
    StudentProfile,
    Violation,
)
from agents.catalog import (
    CourseAttempt,
    PolicyRule,
    RuleCondition,
    SharingLimit,
    StudentRecord,
    Term,
    load_catalog,
)
from agents.policy import (
    Findings,
    PlanCheck,
    applicable_rules,
    check_plan,
    load_limit,
    standings_by_term,
)
from agents.policy import checks as policy
from agents.policy import rules as policy_rules
from agents.toolbox import Toolbox

CATALOG = load_catalog()

# --------------------------------------------------------------------------- builders


def attempt(course: str, term: str, grade: str | None = None, **kw: object) -> CourseAttempt:
    status = "completed" if grade else "in_progress"
    return CourseAttempt(course=course, term=term, grade=grade, status=status, **kw)  # type: ignore[arg-type]


# A CS sophomore who started in F2025: 104 units earned, 42 in progress in F2026.
SOPHOMORE_COURSES = [
    attempt("15-110", "F2025", "B-"),
    attempt("21-127", "F2025", "C+"),
    attempt("21-120", "F2025", "B"),
    attempt("76-101", "F2025", "B-"),
    attempt("85-102", "F2025", "C"),
    attempt("15-112", "S2026", "C+"),
    attempt("21-122", "S2026", "C"),
    attempt("21-241", "S2026", "B-"),
    attempt("79-104", "S2026", "B"),
    attempt("73-102", "S2026", "C+"),
    attempt("15-122", "F2026"),
    attempt("15-150", "F2026"),
    attempt("80-100", "F2026"),
    attempt("36-200", "F2026"),
]


def record(
    *,
    gpa: float | None = 2.6,
    status: str = "good",
    courses: Sequence[CourseAttempt] = SOPHOMORE_COURSES,
    programs: Sequence[str] = ("CS-BS",),
    start: str = "F2025",
) -> StudentRecord:
    return StudentRecord(
        id="s-1",
        name="Jordan",
        programs=list(programs),
        catalog_year="2026-2027",
        start_term=start,
        current_term="F2026",
        gpa=gpa,
        academic_status=status,  # type: ignore[arg-type]
        courses=list(courses),
    )


def profile(rec: StudentRecord) -> StudentProfile:
    earned = rec.units_earned(CATALOG)
    start, now = Term.parse(rec.start_term), Term.parse(rec.current_term)
    return StudentProfile(
        student_id=rec.id,
        name=rec.name,
        declared_programs=list(rec.programs),
        class_standing=rec.class_standing(CATALOG),
        units_earned=earned,
        units_in_progress=rec.units_earned(CATALOG, include_in_progress=True) - earned,
        gpa=rec.gpa,
        academic_status=rec.academic_status,
        start_term=rec.start_term,
        current_term=rec.current_term,
        next_term="S2027",
        terms_completed=(now.index - start.index) * 2 // 3,
    )


def intake(
    rec: StudentRecord,
    *,
    programs: Sequence[str] | None = None,
    target: str | None = None,
    intent: str = "plan_degree",
    questions: Sequence[OpenQuestion] = (),
    with_record: bool = True,
) -> IntakeResult:
    return IntakeResult(
        request_id="req-1",
        intent=intent,  # type: ignore[arg-type]
        intent_source="structured",
        profile=profile(rec),
        student=rec if with_record else None,
        target_programs=list(rec.programs if programs is None else programs),
        goals=Goals(target_graduation=target),
        open_questions=list(questions),
        parser="structured",
    )


def term(code: str, *courses: str) -> ScheduledTerm:
    picked = [
        ScheduledCourse(course=c, title=CATALOG.course(c).title, units=CATALOG.course(c).units)
        for c in courses
    ]
    return ScheduledTerm(
        term=code,
        label=Term.parse(code).label(),
        courses=picked,
        units=sum(c.units for c in picked),
        away=not picked,
    )


def schedule(
    terms: Sequence[ScheduledTerm],
    *,
    cap: float = 63,
    target: str | None = None,
    approvals: Sequence[str] = (),
    round: int = 1,
    **kw: object,
) -> Schedule:
    enrolled = [t for t in terms if t.courses]
    return Schedule(
        status="done",
        round=round,
        constraints=ConstraintSet(
            max_units_per_term=cap, target_term=target, approvals_assumed=list(approvals)
        ),
        solver_status="optimal",
        terms=list(terms),
        graduation_term=enrolled[-1].term if enrolled else None,
        units_planned=sum(t.units for t in terms),
        **kw,  # type: ignore[arg-type]
    )


# 214 units to reach 360: two 63-unit spring terms around a 54-unit fall.
PLAN_63 = [
    term("S2027", "15-213", "15-251", "15-210", "80-130", "70-100", "73-103"),
    term("F2027", "15-351", "15-312", "15-445", "21-301", "36-225"),
    term("S2028", "15-451", "15-440", "15-418", "15-322", "85-211", "76-270"),
    term("F2028", "15-441", "15-462", "21-259"),
]


def cite(rule_id: str) -> CitationRef:
    """The expected citation: the rule's section, quoted from the catalog."""
    rule = CATALOG.rule_by_id[rule_id]
    sec = CATALOG.section_text(rule.citation.document, rule.citation.section)
    return CitationRef(
        document=rule.citation.document,
        section=sec.id,
        heading=sec.heading,
        quote=sec.text,
        rule_id=rule_id,
    )


@pytest.fixture(scope="session")
def tools(tmp_path_factory: pytest.TempPathFactory) -> Toolbox:
    return Toolbox(catalog=CATALOG, index_dir=Path(tmp_path_factory.getbasetemp()) / "index")


def plan_check(rec: StudentRecord, sched: Schedule, programs: Sequence[str] = ()) -> PlanCheck:
    return PlanCheck(
        catalog=CATALOG,
        profile=profile(rec),
        record=rec,
        programs=list(programs or rec.programs),
        schedule=sched,
        cite=cite,
    )


# --------------------------------------------------------------------------- applicability


def _ids(rules: list[PolicyRule]) -> list[str]:
    return [r.id for r in rules]


EVERYONE = [
    "LOAD-MAX",
    "LOAD-MIN",
    "MAX-COURSES",
    "REPEAT-LIMIT",
    "PF-LIMIT",
    "MINOR-SHARE",
    "MINOR-ELIG",
    "MAX-TERMS",
    "RESIDENCY",
    "GRAD-GPA",
    "TOTAL-UNITS",
]


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


# --------------------------------------------------------------------------- checks


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

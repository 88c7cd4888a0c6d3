"""Policy rules as data that read the record: repeats allowed only after a grade at or
below a ceiling and counted, pass/fail caps per term, overall and per program (from the
audit of the plan), the probation threshold by class year - and the critique citing each
rule's document and section with the threshold that applied."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.catalog import AcademicStatus, ClassStanding, CourseAttempt, StudentRecord
from agents.critique import review
from agents.policy import Facts, applicable_rules
from agents.policy.standing import standing_status
from agents.toolbox import Toolbox
from tests.policy_data_helpers import catalog_with, check, found, risks, rule
from tests.policy_helpers import (
    PLAN_63,
    SOPHOMORE_COURSES,
    attempt,
    intake,
    profile,
    record,
    schedule,
    term,
)

REPEATS = {"document": "academic-policies", "section": "repeats"}
PASS_FAIL = {"document": "academic-policies", "section": "pass-fail"}
STANDING = {"document": "academic-policies", "section": "academic-standing"}
REPEAT_C = rule("REPEAT-C", "repeat_limit", grade_ceiling="C-", limit=1, citation=REPEATS)


def _courses(*extra: CourseAttempt) -> list[CourseAttempt]:
    kept = [a for a in SOPHOMORE_COURSES if a.course not in ("15-110", "21-120", "21-241")]
    return [*kept, *extra]


def test_a_repeat_needs_a_grade_at_or_below_the_ceiling_and_is_counted() -> None:
    rec = record(
        courses=_courses(
            attempt("15-110", "F2025", "D"),
            attempt("21-120", "F2025", "D"),
            attempt("21-120", "S2026", "F"),
            attempt("21-241", "S2026", "C-"),
        )
    )
    plan = schedule([term("S2027", "21-127", "15-110", "21-120", "15-122", "21-241")])
    f = check(catalog_with(REPEAT_C, drop=["REPEAT-LIMIT"]), rec, plan, kinds=["repeat_limit"])
    assert found(f) == [
        (
            "REPEAT-C",
            "hard",
            "S2027",
            "21-127 is planned again for Spring 2027 after a C+ in Fall 2025; a course may be "
            "repeated only after a grade of C- or below",
        ),
        (
            "REPEAT-C",
            "hard",
            "S2027",
            "21-120 is planned again for Spring 2027 but was already repeated once (F2025 D, "
            "S2026 F); it may be repeated at most once",
        ),
    ]
    assert risks(f, "REPEAT-C") == [
        "15-110 in Spring 2027 is the last allowed repeat (1 of 1; earlier: F2025 D)",
        "15-122 in Spring 2027 may be repeated only if the attempt in progress ends at C- or below",
        "21-241 in Spring 2027 is the last allowed repeat (1 of 1; earlier: S2026 C-)",
    ]
    assert [(m.action, m.course) for m in f.suggestions] == [
        ("avoid_course", "21-127"),
        ("avoid_course", "21-120"),
    ]
    assert f.checked == ["REPEAT-C"]


def test_withdrawals_are_not_repeats_and_no_limit_means_any_number() -> None:
    rec = record(
        courses=_courses(
            attempt("21-120", "F2025", "D"),
            attempt("21-120", "S2026", "W"),
            attempt("15-110", "F2025", "F"),
            attempt("15-110", "S2026", "D"),
        )
    )
    plan = schedule([term("S2027", "21-120", "15-110")])
    counted = check(catalog_with(REPEAT_C, drop=["REPEAT-LIMIT"]), rec, plan, ["repeat_limit"])
    assert [v.message.split(" is ")[0] for v in counted.violations] == ["15-110"]
    unlimited = {k: v for k, v in REPEAT_C.items() if k != "limit"}
    free = check(catalog_with(unlimited, drop=["REPEAT-LIMIT"]), rec, plan, ["repeat_limit"])
    assert (free.violations, free.checked) == ([], ["REPEAT-C"])


def test_the_old_attempt_limit_still_counts_attempts() -> None:
    rec = record(courses=_courses(attempt("21-120", "F2025", "D"), attempt("21-120", "S2026", "F")))
    f = check(catalog_with(), rec, schedule([term("S2027", "21-120")]), ["repeat_limit"])
    assert [v.message for v in f.violations] == [
        "21-120 is planned for Spring 2027 but was already attempted 2 times (F2025 D, "
        "S2026 F); the limit is 2 attempts"
    ]


# --------------------------------------------------------------------------- pass/fail


def _pass_fail_record() -> StudentRecord:
    courses = [
        a.model_copy(update={"grade": "P", "pass_fail": True}) if a.course == "79-104" else a
        for a in SOPHOMORE_COURSES
    ]
    courses = [
        a.model_copy(update={"pass_fail": True}) if a.course == "80-100" else a for a in courses
    ]
    return record(courses=courses)


@pytest.mark.slow
def test_pass_fail_units_overall_and_per_term() -> None:
    rec = _pass_fail_record()
    overall = rule(
        "PF-TOTAL", "pass_fail_limit", measure="units", scope="overall", limit=12,
        citation=PASS_FAIL,
    )  # fmt: skip
    per_term = rule("PF-TERM", "pass_fail_limit", measure="units", scope="term", limit=6)
    cat = catalog_with(overall, per_term, drop=["PF-LIMIT"])
    f = check(cat, rec, schedule(PLAN_63), ["pass_fail_limit"])
    assert risks(f, "PF-TOTAL") == [
        "the record has 18 pass/fail units (79-104 S2026, 80-100 F2026); at most 12 units may "
        "be taken pass/fail - ask the registrar how the extra ones count"
    ]
    assert risks(f, "PF-TERM") == [
        "Spring 2026 has 9 pass/fail units (79-104); the limit is 6 per term - ask the "
        "registrar how the extra ones count",
        "Fall 2026 has 9 pass/fail units (80-100); the limit is 6 per term - ask the "
        "registrar how the extra ones count",
    ]
    assert f.violations == []
    within = catalog_with({**overall, "limit": 18}, drop=["PF-LIMIT"])
    assert check(within, rec, schedule(PLAN_63), ["pass_fail_limit"]).risks == []


@pytest.mark.parametrize(
    ("kinds", "expected"),
    [
        (
            ["major"],
            "2 pass/fail courses count toward CS-BS (79-104 S2026, 80-100 F2026); at most 1 "
            "course taken pass/fail may count toward a major",
        ),
        (["minor"], None),
        ([], "2 pass/fail courses count toward CS-BS"),
    ],
)
@pytest.mark.slow
def test_pass_fail_courses_counted_toward_a_program_kind(
    kinds: list[str], expected: str | None
) -> None:
    pf = rule(
        "PF-MAJOR", "pass_fail_limit", measure="courses", scope="program",
        program_kinds=kinds, limit=1, citation=PASS_FAIL,
    )  # fmt: skip
    cat = catalog_with(pf, drop=["PF-LIMIT"])
    rec = _pass_fail_record()
    f = check(cat, rec, schedule(PLAN_63), ["pass_fail_limit"])
    got = [v.message for v in f.violations]
    assert got == [] if expected is None else got[0].startswith(expected)
    assert all(v.severity == "hard" and v.term == "F2028" for v in f.violations)
    unfinished = schedule(PLAN_63[:1])
    unfinished = unfinished.model_copy(update={"graduation_term": None})
    partial = check(cat, rec, unfinished, ["pass_fail_limit"])
    assert partial.violations == []
    assert len(risks(partial, "PF-MAJOR")) == (0 if expected is None else 1)


# --------------------------------------------------------------------------- standing

PROBATION_GPA = rule(
    "PROBATION-GPA",
    "academic_standing",
    limit=2.0,
    limit_table=[
        {"when": {"standing_in": ["first_year"]}, "limit": 1.8},
        {"when": {"standing_in": ["sophomore"]}, "limit": 1.9},
    ],
    citation=STANDING,
)
NOTE = "the probation threshold for a sophomore is 1.90; cumulative GPA 1.85"
FIRST_YEAR_NOTE = "the probation threshold for a first-year student is 1.80; cumulative GPA 1.75"
PLAIN_NOTE = "the probation threshold is 2.00; cumulative GPA 1.95"


@pytest.mark.parametrize(
    ("gpa", "standing", "status", "expected"),
    [
        (1.75, "first_year", "good", ("probation", FIRST_YEAR_NOTE)),
        (1.85, "first_year", "good", ("good", "")),
        (1.85, "sophomore", "warning", ("probation", NOTE)),
        (1.95, "junior", "good", ("probation", PLAIN_NOTE)),
        (2.0, "senior", "good", ("good", "")),
        (1.2, "senior", "suspended", ("suspended", "")),
        (None, "senior", "good", ("good", "")),
    ],
)  # fmt: skip
@pytest.mark.slow
def test_probation_threshold_by_class_year(
    gpa: float | None, standing: ClassStanding, status: AcademicStatus, expected: tuple[str, str]
) -> None:
    cat = catalog_with(PROBATION_GPA)
    facts = Facts(gpa=gpa, standing=standing, status=status)
    assert standing_status(cat, facts) == expected


@pytest.mark.slow
def test_a_gpa_below_the_threshold_puts_the_plan_under_the_probation_rules() -> None:
    cat = catalog_with(PROBATION_GPA)
    rec = record(gpa=1.85)
    ids = [r.id for r in applicable_rules(cat, profile(rec), record=rec)]
    assert "PROB-MAX" in ids and "LOAD-OVERLOAD" not in ids
    f = check(cat, rec, schedule(PLAN_63[:2]))
    assert [v for v in found(f) if v[0] == "PROB-MAX"] == [
        (
            "PROB-MAX",
            "hard",
            "S2027",
            f"Spring 2027 has 63 units; on academic probation ({NOTE}) the limit is 45 units",
        ),
        (
            "PROB-MAX",
            "hard",
            "F2027",
            f"Fall 2027 has 54 units; on academic probation ({NOTE}) the limit is 45 units",
        ),
    ]
    assert risks(f, "PROBATION-GPA") == [
        f"the student is on academic probation although the record says good: {NOTE}; the "
        "plan is checked under the probation rules"
    ]
    assert "PROBATION-GPA" in f.checked
    clear = check(cat, record(gpa=2.5), schedule(PLAN_63[:2]))
    assert risks(clear, "PROBATION-GPA") == [] and "PROB-MAX" not in clear.checked


# --------------------------------------------------------------------------- the critique


@pytest.fixture(scope="module")
def data_tools(tmp_path_factory: pytest.TempPathFactory) -> Toolbox:
    cat = catalog_with(PROBATION_GPA, REPEAT_C, drop=["REPEAT-LIMIT"])
    return Toolbox(catalog=cat, index_dir=Path(tmp_path_factory.mktemp("index")))


def test_the_critique_cites_each_rule_and_states_the_threshold(data_tools: Toolbox) -> None:
    rec = record(gpa=1.85)
    plan = schedule([term("S2027", "21-127", "15-213", "15-251"), PLAN_63[1]])
    critique = review(intake(rec), plan, data_tools)
    assert critique.approval == "rejected"
    by_rule = {v.rule_id: v for v in critique.violations}
    assert {"PROB-MAX", "REPEAT-C"} <= set(by_rule)
    for v in critique.violations:
        stated = data_tools.catalog.rule_by_id[v.rule_id].citation
        assert (v.citation.document, v.citation.section) == (stated.document, stated.section)
    assert NOTE in by_rule["PROB-MAX"].message
    assert "grade of C- or below" in by_rule["REPEAT-C"].message
    gpa_risk = next(r for r in critique.risks if r.rule_id == "PROBATION-GPA")
    assert gpa_risk.citation is not None
    assert (gpa_risk.kind, gpa_risk.citation.section) == ("gpa", "academic-standing")
    assert NOTE in gpa_risk.message

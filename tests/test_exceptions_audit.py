"""Advisor exceptions in the degree audit and the planner, on the sample catalog: what a
substitution, a waiver and an application change in the report, what each exception did
(``AuditReport.exceptions``), which ones are refused as invalid or conflicting and why, the
effective catalog, and a waiver the planner honours."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agents.audit import audit
from agents.audit.report import AuditReport, RequirementAudit
from agents.catalog import Catalog, StudentRecord, load_catalog, load_student
from agents.catalog.exceptions import (
    AdvisorException,
    Application,
    Approval,
    ExceptionsFile,
    ExceptionUse,
    Substitution,
    Waiver,
)
from agents.catalog.overrides import effective_catalog
from agents.catalog.student import CourseAttempt
from agents.planner import PlanConstraints, plan
from agents.policy import catalog_load_caps

STUDENTS = Path(__file__).resolve().parents[1] / "demos" / "students"
GRANT: dict[str, Any] = {"by": "Dr. Rivera", "date": "2026-09-01", "reason": "Equivalent content."}
WHO = "Dr. Rivera on 2026-09-01: Equivalent content."
NO_LONGER = "it no longer counts toward cs-breadth-15-281"
MATH = "cs-math-elective"


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


def record(name: str, *exceptions: AdvisorException) -> StudentRecord:
    return load_student(STUDENTS / f"{name}.json").model_copy(
        update={"exceptions": list(exceptions)}
    )


def sub(course: str, **kw: Any) -> Substitution:
    return Substitution(kind="substitute", course=course, **GRANT, **kw)


def waive(requirement: str, **kw: Any) -> Waiver:
    return Waiver(kind="waive", requirement=requirement, **GRANT, **kw)


def apply(course: str, requirement: str, **kw: Any) -> Application:
    return Application(kind="apply", course=course, requirement=requirement, **GRANT, **kw)


def approve(rule: str, **kw: Any) -> Approval:
    return Approval(kind="approve", rule=rule, term="S2027", **GRANT, **kw)


def use(label: str, status: str, note: str, program: str | None, requirement: str) -> ExceptionUse:
    """A report entry for one of the record's exceptions (its kind: the label's first word)."""
    where = {"program": program, "requirement": requirement, "note": note}
    kind = label.split()[0]
    return ExceptionUse.model_validate(
        {"exception": label, "kind": kind, "status": status, **where, **GRANT}
    )


def node(report: AuditReport, program: str, node_id: str) -> RequirementAudit:
    def walk(n: RequirementAudit) -> RequirementAudit | None:
        if n.id == node_id:
            return n
        return next((f for c in n.children if (f := walk(c)) is not None), None)

    found = walk(next(p for p in report.programs if p.code == program).root)
    assert found is not None, f"{program} has no node {node_id}"
    return found


def statuses(report: AuditReport, program: str, ids: tuple[str, ...]) -> list[str]:
    return [node(report, program, i).status for i in ids]


def uses(report: AuditReport) -> list[tuple[str, str, str]]:
    assert {(u.by, u.date, u.reason) for u in report.exceptions} <= {tuple(GRANT.values())}
    return [(u.exception, u.status, u.note) for u in report.exceptions]


# --------------------------------------------------------------------------- what they do


def test_substitution_for_a_course_completes_the_is_core(cat: Catalog) -> None:
    ids = ("is-core", "67-475")
    assert statuses(audit(cat, record("is-senior")), "IS-BS", ids) == ["partly_met", "unmet"]
    report = audit(cat, record("is-senior", sub("67-375", for_course="67-475")))
    assert statuses(report, "IS-BS", ids) == ["met", "met"]
    leaf = node(report, "IS-BS", "67-475")
    assert (leaf.kind, [c.course for c in leaf.counted], leaf.explanation) == (
        "course_set",
        ["67-375"],
        f"1 of 1 course counted (67-375 may substitute for 67-475, by {WHO})",
    )
    note = "67-375 substitutes in 67-475 in IS-BS"
    assert report.exceptions == [
        use("substitute 67-375 for 67-475", "used", note, "IS-BS", "67-475")
    ]


def test_substitution_for_a_requirement_node_meets_it(cat: Catalog) -> None:
    report = audit(cat, record("cs-junior", sub("33-142", requirement="cs-math-elective")))
    leaf = node(report, "CS-BS", "cs-math-elective")
    assert (leaf.status, leaf.met_by_completed, [c.course for c in leaf.counted]) == (
        "met",
        True,
        ["33-142"],
    )
    assert leaf.explanation == f"1 of 1 course counted (33-142 may count toward it by {WHO})"
    note = "33-142 substitutes in cs-math-elective in CS-BS"
    label = "substitute 33-142 for cs-math-elective"
    assert report.exceptions == [use(label, "used", note, "CS-BS", "cs-math-elective")]


def test_waiver_without_units_meets_the_node_with_no_course(cat: Catalog) -> None:
    report = audit(cat, record("is-senior", waive("bus-min-upper")))
    leaf = node(report, "BUS-MIN", "bus-min-upper")
    assert (leaf.status, leaf.met_by_completed, leaf.counted, leaf.explanation) == (
        "met",
        True,
        [],
        f"waived by {WHO}",
    )
    assert [(p.code, p.status) for p in report.programs] == [
        ("IS-BS", "partly_met"),
        ("BUS-MIN", "met"),
    ]
    assert uses(report) == [("waive bus-min-upper", "used", "bus-min-upper in BUS-MIN is waived")]
    assert report.exceptions[0].requirement == "bus-min-upper"


def test_waiver_use_names_the_program_it_changes(cat: Catalog) -> None:
    report = audit(cat, record("is-senior", waive("bus-min-upper")))
    assert [u.program for u in report.exceptions] == ["BUS-MIN"]


def test_waiver_with_units_owed_is_met_by_courses_counted_nowhere(cat: Catalog) -> None:
    # 15-110 (12 units, AP) and 33-142 (3) count nowhere else in CS-BS: exactly 15 units.
    report = audit(cat, record("cs-junior", waive("cs-math-elective", units_owed=15)))
    leaf = node(report, "CS-BS", "cs-math-elective")
    assert (leaf.kind, leaf.status, [c.course for c in leaf.counted], leaf.explanation) == (
        "course_set",
        "met",
        ["15-110", "33-142"],
        f"waived by {WHO} (15 units still owed in its place); 15 of 15 units counted",
    )
    assert node(report, "CS-BS", "gen-ed").status == "met"
    note = "cs-math-elective in CS-BS is waived; 15 units are still owed in its place"
    assert uses(report) == [("waive cs-math-elective", "used", note)]


def test_waiver_with_more_units_owed_than_free_courses_stays_open(cat: Catalog) -> None:
    # The minor may share only 2 courses with IS-BS (MINOR-SHARE), and those are used.
    report = audit(cat, record("is-senior", waive("bus-min-upper", units_owed=90)))
    leaf = node(report, "BUS-MIN", "bus-min-upper")
    counted = ["15-110", "67-352", "80-249", "15-388", "51-271", "67-375", "70-415"]
    assert (leaf.status, [c.course for c in leaf.counted], leaf.units_needed) == (
        "partly_met",
        counted,
        24.0,
    )
    assert leaf.explanation.startswith(
        f"waived by {WHO} (90 units still owed in its place); 66 of 90 units counted; needs "
        "24 more units from: "
    )
    assert leaf.explanation.endswith(
        "at most 2 courses may be shared with IS-BS (rule MINOR-SHARE), already used by "
        "70-122, 70-311"
    )
    assert report.programs[1].status == "partly_met"


BREADTH = ("cs-breadth", "cs-breadth-15-281", "cs-breadth-15-214", "cs-electives")


def test_application_moves_the_course_and_its_old_node_loses_it(cat: Catalog) -> None:
    before = audit(cat, record("cs-junior"))
    assert statuses(before, "CS-BS", BREADTH) == ["met", "met", "unmet", "unmet"]
    report = audit(cat, record("cs-junior", apply("15-281", "cs-electives")))
    # 15-214 is not on the record, so the breadth group has nothing left to meet it.
    assert statuses(report, "CS-BS", BREADTH) == ["unmet", "unmet", "unmet", "partly_met"]
    assert [c.course for c in node(report, "CS-BS", "cs-electives").counted] == ["15-281"]
    assert node(report, "CS-BS", "cs-breadth-15-281").explanation == (
        "0 of 1 course counted; needs 1 more course, and no catalog course is left to count "
        "(Dr. Rivera applied 15-281 to cs-electives on 2026-09-01, so it no longer counts here)"
    )
    assert node(report, "CS-BS", "cs-electives").explanation.endswith(
        f"(15-281 applied to it by {WHO})"
    )
    note = f"15-281 counts toward cs-electives in CS-BS; {NO_LONGER}"
    assert report.exceptions == [
        use("apply 15-281 to cs-electives", "used", note, "CS-BS", "cs-electives")
    ]


def test_application_leaves_the_breadth_group_met_when_the_other_option_exists(
    cat: Catalog,
) -> None:
    student = record("cs-junior", apply("15-281", "cs-electives"))
    taken = CourseAttempt(course="15-214", term="S2026", grade="B")
    report = audit(cat, student.model_copy(update={"courses": [*student.courses, taken]}))
    assert statuses(report, "CS-BS", BREADTH) == ["met", "unmet", "met", "partly_met"]
    note = f"15-281 counts toward cs-electives in CS-BS; {NO_LONGER}"
    assert uses(report) == [("apply 15-281 to cs-electives", "used", note)]


# --------------------------------------------------------------------------- refused ones


NO = "course {} is not in the catalog"
NO_NODE = "program IS-BS has no requirement {!r}"
GROUP = "{} in CS-BS is a group ({}); name one of its course or course-set parts: {}"
CORE = "15-112, 15-122, 15-131, 15-150, 15-210, 15-213, 15-251, 15-451"
INVALID = [  # on cs-junior; each exception's id names the case
    (sub("15-999", for_course="15-214", id="no-course"), NO.format("15-999")),
    (sub("15-214", for_course="15-998", id="no-for-course"), NO.format("15-998")),
    (apply("15-999", "cs-electives", id="no-applied"), NO.format("15-999")),
    (waive("cs-electives", program="XX-BS", id="no-program"), "unknown program 'XX-BS'"),
    (sub("33-142", for_course="15-214", program="XX", id="no-prog-sub"), "unknown program 'XX'"),
    (waive("cs-electives", program="IS-BS", id="no-node-in"), NO_NODE.format("cs-electives")),
    (waive("no-such-node", id="no-node"), "no program has a requirement 'no-such-node'"),
    (
        apply("33-142", "cs-breadth", id="apply-to-group"),
        GROUP.format("cs-breadth", "n_of", "cs-breadth-15-281, cs-breadth-15-214"),
    ),
    (
        sub("33-142", requirement="cs-core", id="sub-for-group"),
        GROUP.format("cs-core", "all_of", CORE),
    ),
    # In none of the student's programs, but in two others.
    (
        waive("73-103", id="ambiguous"),
        "requirement '73-103' is in ECON-BA, ECON-MIN; name the program",
    ),
]


@pytest.mark.parametrize(("exception", "note"), INVALID, ids=[e.label() for e, _ in INVALID])
def test_exception_naming_what_the_catalog_lacks_is_invalid(
    cat: Catalog, exception: AdvisorException, note: str
) -> None:
    report = audit(cat, record("cs-junior", exception))
    assert uses(report) == [(exception.label(), "invalid", note)]
    assert report.model_copy(update={"exceptions": []}) == audit(cat, record("cs-junior"))


def test_node_id_in_two_of_the_student_s_programs_needs_the_program(cat: Catalog) -> None:
    report = audit(cat, record("is-senior", waive("70-311")))
    note = "requirement '70-311' is in IS-BS, BUS-MIN; name the program"
    assert report.exceptions == [use("waive 70-311", "invalid", note, None, "70-311")]
    assert report.model_copy(update={"exceptions": []}) == audit(cat, record("is-senior"))


def test_application_to_a_node_already_waived_conflicts(cat: Catalog) -> None:
    report = audit(
        cat, record("cs-junior", waive("cs-breadth"), apply("33-142", "cs-breadth-15-214"))
    )
    assert uses(report) == [
        ("waive cs-breadth", "used", "cs-breadth in CS-BS is waived"),
        (
            "apply 33-142 to cs-breadth-15-214",
            "conflicting",
            "cs-breadth-15-214 in CS-BS is already waived (under cs-breadth)",
        ),
    ]
    assert node(report, "CS-BS", "cs-breadth").explanation == f"waived by {WHO}"


def test_same_course_applied_twice_in_a_program_conflicts(cat: Catalog) -> None:
    twice = [apply("33-142", "cs-math-elective"), apply("33-142", "cs-electives", id="EX-2")]
    report = audit(cat, record("cs-junior", *twice))
    assert uses(report) == [
        ("apply 33-142 to cs-math-elective", "used", f"33-142 counts toward {MATH} in CS-BS"),
        ("EX-2", "conflicting", "33-142 is already applied to cs-math-elective in CS-BS"),
    ]
    assert node(report, "CS-BS", "cs-electives").counted == []


def test_substitution_with_a_course_never_taken_is_unused(cat: Catalog) -> None:
    never = "15-214 is not on the record or the plan; it would count toward"
    subs = [sub("15-214", requirement="cs-math-elective"), sub("15-214", for_course="15-281")]
    report = audit(cat, record("cs-junior", *subs, sub("15-214", for_course="67-475")))
    assert uses(report) == [
        ("substitute 15-214 for cs-math-elective", "unused", f"{never} cs-math-elective in CS-BS"),
        ("substitute 15-214 for 15-281", "unused", f"{never} cs-breadth-15-281 in CS-BS"),
        ("substitute 15-214 for 67-475", "unused", "no requirement of CS-BS asks for 67-475"),
    ]
    assert node(report, "CS-BS", "cs-math-elective").status == "unmet"


def test_waiver_of_a_program_not_audited_is_unused(cat: Catalog) -> None:
    report = audit(cat, record("cs-junior", waive("bus-min-upper")))
    note = "BUS-MIN is not among the audited programs"
    assert report.exceptions == [
        use("waive bus-min-upper", "unused", note, "BUS-MIN", "bus-min-upper")
    ]


def test_approval_of_an_unknown_or_unapprovable_rule_is_invalid(cat: Catalog) -> None:
    # LOAD-OVERLOAD is valid: the critique's to use, not reported by the audit.
    invalid = [approve("LOAD-HUGE"), approve("LOAD-MAX", through="F2027")]
    report = audit(cat, record("cs-junior", *invalid, approve("LOAD-OVERLOAD")))
    assert uses(report) == [
        ("approve LOAD-HUGE for S2027", "invalid", "no policy rule 'LOAD-HUGE' in the catalog"),
        (
            "approve LOAD-MAX for S2027-F2027",
            "invalid",
            "rule LOAD-MAX cannot be approved by a person (it names no approver); only rules "
            "with requires_approval can",
        ),
    ]


def test_report_lists_exceptions_in_record_order(cat: Catalog) -> None:
    first: list[AdvisorException] = [approve("LOAD-HUGE"), waive("cs-math-elective")]
    then: list[AdvisorException] = [
        sub("15-999", for_course="15-214"),
        apply("33-142", "cs-electives"),
    ]
    report = audit(cat, record("cs-junior", *first, *then))
    assert [(u.exception, u.status) for u in report.exceptions] == [
        ("approve LOAD-HUGE for S2027", "invalid"),
        ("waive cs-math-elective", "used"),
        ("substitute 15-999 for 15-214", "invalid"),
        ("apply 33-142 to cs-electives", "used"),
    ]


# --------------------------------------------------------------------------- catalog, planner


def test_effective_catalog_is_idempotent(cat: Catalog) -> None:
    student = record("cs-junior", waive("cs-math-elective"))
    once = effective_catalog(cat, student)
    assert once is not cat
    assert effective_catalog(once, student) is once
    assert effective_catalog(cat, student) is once
    assert cat.program("CS-BS").requirement != once.program("CS-BS").requirement


def test_effective_catalog_without_program_exceptions_is_the_base(cat: Catalog) -> None:
    plain = record("cs-junior")
    approvals_only = record("cs-junior", approve("LOAD-OVERLOAD"))
    assert effective_catalog(cat, plain) is cat
    assert effective_catalog(cat, approvals_only) is cat
    waived = effective_catalog(cat, record("cs-junior", waive("cs-math-elective")))
    assert effective_catalog(waived, plain) is cat


def test_exceptions_from_a_file_act_like_the_record_s_own(cat: Catalog) -> None:
    extra = ExceptionsFile(student_id="is-senior", exceptions=[waive("bus-min-upper")])
    from_file = load_student(STUDENTS / "is-senior.json").with_exceptions(extra)
    assert audit(cat, from_file) == audit(cat, record("is-senior", waive("bus-min-upper")))


def test_planner_drops_a_waived_requirement_s_course(cat: Catalog) -> None:
    # is-senior with 33 more units earned, so the degree total no longer asks for units:
    # the plan is exactly the open requirements, 67-475 (IS core) and one BUS-MIN course.
    student = load_student(STUDENTS / "is-senior.json")
    more = [
        CourseAttempt(course=c, term="S2026", grade="B") for c in ("33-141", "80-100", "21-241")
    ]
    student = student.model_copy(update={"courses": [*student.courses, *more]})
    limits = PlanConstraints(max_units_per_term=catalog_load_caps(cat).standard)
    before = plan(cat, student, student.programs, limits)
    waived = student.model_copy(update={"exceptions": [waive("67-475", program="IS-BS")]})
    after = plan(cat, waived, waived.programs, limits)
    assert (before.status, before.units_planned, before.requirement_of) == (
        "optimal",
        21.0,
        {"67-475": ["IS-BS/67-475"], "70-481": ["BUS-MIN/bus-min-upper"]},
    )
    assert (after.status, after.graduation_term, after.units_planned, after.requirement_of) == (
        "optimal",
        "S2027",
        9.0,
        {"70-481": ["BUS-MIN/bus-min-upper"]},
    )
    assert [(t.term, t.courses) for t in after.terms] == [("S2027", ["70-481"])]

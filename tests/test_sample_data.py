"""The shipped sample data: the Northfield catalog and the demo student records.

Other parts of the pipeline (planner, scheduler, demos, eval) rely on the facts checked
here, so each test pins an exact fact rather than a loose property.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from agents.catalog import (
    AllOf,
    AnyOf,
    Catalog,
    ConsentCond,
    CourseCond,
    Meeting,
    PrereqNode,
    ProgramCond,
    StandingCond,
    StudentRecord,
    Term,
    UnitsCond,
    check_student_against_catalog,
    courses_in,
    load_catalog,
    load_student,
    reference_problems,
)

ROOT = Path(__file__).resolve().parent.parent
CATALOG_PATH = ROOT / "agents" / "data" / "catalog.json"
STUDENT_FILES = sorted((ROOT / "demos" / "students").glob("*.json"))

NAMED_STUDENTS = {
    "is-junior-cs-minor",
    "is-sophomore",
    "overload-low-gpa",
    "overload-high-gpa",
    "probation-student",
    "repeat-student",
    "transfer-student",
    "study-abroad",
    "senior-on-track",
    "econ-senior",
    "first-year-undeclared-ish",
    "math-major",
    "stat-major",
    "cs-junior",
    "cs-senior-pf",
    "high-gpa-junior",
    "part-time-risk",
}

ALTERNATE_YEAR = {
    "15-415": ("fall", "odd"),
    "15-424": ("spring", "odd"),
    "15-455": ("spring", "even"),
    "15-459": ("fall", "even"),
    "15-466": ("fall", "odd"),
    "15-482": ("spring", "even"),
    "21-441": ("fall", "odd"),
    "21-465": ("spring", "even"),
    "21-484": ("spring", "odd"),
    "36-463": ("fall", "even"),
    "36-464": ("spring", "odd"),
    "67-408": ("fall", "odd"),
    "67-442": ("spring", "even"),
    "73-408": ("fall", "odd"),
    "73-476": ("spring", "odd"),
    "80-411": ("fall", "even"),
    "80-436": ("spring", "odd"),
    "85-412": ("spring", "even"),
    "85-421": ("fall", "odd"),
}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(CATALOG_PATH)


def _meetings(catalog: Catalog, code: str, term: str, section: str) -> list[Meeting]:
    return next(s for s in catalog.course(code).sections_in(term) if s.id == section).meetings


def _overlap(a: list[Meeting], b: list[Meeting]) -> bool:
    return any(
        set(x.days) & set(y.days) and x.start < y.end and y.start < x.end for x in a for y in b
    )


def _depth(catalog: Catalog, code: str) -> int:
    """Longest prerequisite chain below ``code``, counted in edges."""
    below = courses_in(catalog.course(code).prerequisites)
    return max((1 + _depth(catalog, c) for c in below), default=0)


# --------------------------------------------------------------------------- catalog


def test_sample_catalog_passes_schema_and_reference_checks(catalog: Catalog) -> None:
    assert reference_problems(catalog) == []


def test_sample_catalog_sizes_and_identity(catalog: Catalog) -> None:
    assert catalog.institution.name == "Northfield Institute of Technology"
    assert catalog.catalog_year == "2026-2027"
    assert len(catalog.courses) == 210
    assert len(catalog.policies) == 15
    assert {p.code for p in catalog.programs if p.kind == "major"} == {
        "CS-BS",
        "IS-BS",
        "MATH-BS",
        "ECON-BA",
        "STAT-BS",
    }
    assert {p.code for p in catalog.programs if p.kind == "minor"} == {
        "CS-MIN",
        "MATH-MIN",
        "ECON-MIN",
        "DS-MIN",
        "PHIL-MIN",
        "BUS-MIN",
    }
    assert {d.id for d in catalog.documents} == {
        "academic-policies",
        "registration-calendar",
        "program-cs-bs",
        "program-is-bs",
        "program-math-bs",
        "program-econ-ba",
        "program-stat-bs",
        "program-cs-min",
        "program-math-min",
        "program-econ-min",
        "program-ds-min",
        "program-phil-min",
        "program-bus-min",
    }


def test_course_levels_follow_the_code(catalog: Catalog) -> None:
    assert all(c.level == int(c.code[3]) * 100 for c in catalog.courses)
    assert catalog.course("15-112").level == 100


def test_operating_systems_sits_on_a_depth_four_chain(catalog: Catalog) -> None:
    chain = ["15-410", "15-213", "15-122", "15-112", "15-110"]
    for upper, lower in itertools.pairwise(chain):
        assert lower in courses_in(catalog.course(upper).prerequisites)
    assert courses_in(catalog.course("15-410").prerequisites) == ["15-213", "15-251", "15-210"]
    assert _depth(catalog, "15-410") == 4
    assert catalog.course("15-110").prerequisites is None
    assert _depth(catalog, "21-259") == 2  # 21-259 -> 21-122 -> 21-120


def test_prerequisites_have_no_cycles(catalog: Catalog) -> None:
    done: set[str] = set()
    remaining = {c.code: set(courses_in(c.prerequisites)) for c in catalog.courses}
    while remaining:
        ready = [code for code, pre in remaining.items() if pre <= done]
        assert ready, f"cycle among {sorted(remaining)}"
        for code in ready:
            done.add(code)
            del remaining[code]


def test_both_prerequisite_forms_are_used() -> None:
    raw = json.loads(CATALOG_PATH.read_text(encoding="utf-8"))
    forms = {c["code"]: type(c["prerequisites"]) for c in raw["courses"] if "prerequisites" in c}
    assert forms["15-122"] is str
    assert {code for code, kind in forms.items() if kind is dict} == {
        "15-410",
        "21-355",
        "36-401",
        "67-373",
    }


def test_alternate_year_courses(catalog: Catalog) -> None:
    alternate = {
        c.code: (c.offered.terms[0], c.offered.years)
        for c in catalog.courses
        if c.offered.years != "every"
    }
    assert alternate == ALTERNATE_YEAR
    assert catalog.course("15-415").offered.offered_in(Term.parse("F2027"))
    assert not catalog.course("15-415").offered.offered_in(Term.parse("F2026"))


def test_single_season_course_counts(catalog: Catalog) -> None:
    every = [c for c in catalog.courses if c.offered.years == "every"]
    assert sum(c.offered.terms == ["fall"] for c in every) == 44
    assert sum(c.offered.terms == ["spring"] for c in every) == 53


@pytest.mark.parametrize("term", ["S2027", "F2027"])
def test_sections_follow_the_offering_pattern(catalog: Catalog, term: str) -> None:
    t = Term.parse(term)
    for c in catalog.courses:
        n = len(c.sections_in(term))
        if not c.offered.offered_in(t):
            assert n == 0, c.code
        elif c.level >= 300:
            assert n == 1, c.code
        else:
            assert 1 <= n <= 3, c.code
        for s in c.sections_in(term):
            assert s.meetings, (c.code, s.id)
            assert all("08:00" <= m.start < m.end <= "20:00" for m in s.meetings)
    assert {s.term for c in catalog.courses for s in c.sections} == {"S2027", "F2027"}


def test_spring_2027_clash_between_67_272_and_70_311(catalog: Catalog) -> None:
    tr = [Meeting(days="TR", start="13:30", end="14:50")]
    for code in ("67-272", "70-311"):
        sections = catalog.course(code).sections_in("S2027")
        assert [s.id for s in sections] == ["A"]
        assert [m.model_copy(update={"location": None}) for m in sections[0].meetings] == tr


def test_15_213_a_clashes_with_21_259_a_and_the_other_sections_do_not(catalog: Catalog) -> None:
    assert [s.id for s in catalog.course("15-213").sections_in("S2027")] == ["A", "B"]
    assert [s.id for s in catalog.course("21-259").sections_in("S2027")] == ["A", "B"]
    a213 = _meetings(catalog, "15-213", "S2027", "A")
    b213 = _meetings(catalog, "15-213", "S2027", "B")
    a259 = _meetings(catalog, "21-259", "S2027", "A")
    b259 = _meetings(catalog, "21-259", "S2027", "B")
    assert _overlap(a213, a259)
    assert not _overlap(a213, b259)
    assert not _overlap(b213, a259)
    assert not _overlap(b213, b259)


def test_schedule_has_early_and_friday_meetings(catalog: Catalog) -> None:
    meetings = [m for c in catalog.courses for s in c.sections_in("S2027") for m in s.meetings]
    assert any(m.start == "08:00" for m in meetings)
    assert any("F" in m.days for m in meetings)


def test_every_policy_rule_cites_a_section_that_exists(catalog: Catalog) -> None:
    for rule in catalog.policies:
        section = catalog.section_text(rule.citation.document, rule.citation.section)
        assert len(section.text) > 100, rule.id
    assert {r.id for r in catalog.policies} == {
        "LOAD-MAX",
        "LOAD-OVERLOAD",
        "LOAD-MIN",
        "PROB-MAX",
        "FIRST-YEAR-MAX",
        "MAX-COURSES",
        "SUSPENDED-NO-REG",
        "REPEAT-LIMIT",
        "PF-LIMIT",
        "MINOR-SHARE",
        "MINOR-ELIG",
        "MAX-TERMS",
        "RESIDENCY",
        "GRAD-GPA",
        "TOTAL-UNITS",
    }
    overload = catalog.rule_by_id["LOAD-OVERLOAD"]
    assert (overload.limit, overload.severity) == (63, "soft")
    assert overload.requires_approval == "advisor"
    assert overload.applies_when.gpa_min == 3.0
    assert "63 units" in catalog.section_text("academic-policies", "overload").text


def test_programs_share_year_documents_and_minor_sharing(catalog: Catalog) -> None:
    for p in catalog.programs:
        assert p.catalog_year == "2026-2027"
        assert p.document in catalog.document_by_id
        if p.kind == "major":
            assert p.total_units == 360
        else:
            assert [(s.with_kind, s.max_courses, s.rule) for s in p.sharing] == [
                ("major", 2, "MINOR-SHARE")
            ]
    assert catalog.program("CS-MIN").excluded_majors == ["CS-BS"]
    assert "CS" in catalog.program("CS-BS").aliases


# --------------------------------------------------------------------------- students


def _prereq_met(
    node: PrereqNode, catalog: Catalog, student: StudentRecord, best: dict[str, float], units: float
) -> bool:
    if isinstance(node, CourseCond):
        if node.course not in best:
            return False
        need = catalog.grade_by_symbol[node.min_grade].points if node.min_grade else 0.0
        return best[node.course] >= need
    if isinstance(node, AllOf):
        return all(_prereq_met(c, catalog, student, best, units) for c in node.all)
    if isinstance(node, AnyOf):
        return any(_prereq_met(c, catalog, student, best, units) for c in node.any)
    if isinstance(node, StandingCond):
        order = ["first_year", "sophomore", "junior", "senior"]
        return order.index(catalog.standing_for_units(units)) >= order.index(node.standing)
    if isinstance(node, UnitsCond):
        return units >= node.units_completed
    if isinstance(node, ProgramCond):
        return node.program in student.programs
    assert isinstance(node, ConsentCond)
    return False  # no demo history relies on consent


def test_there_are_34_student_records_including_the_named_ones() -> None:
    ids = {p.stem for p in STUDENT_FILES}
    assert len(ids) == 34
    assert ids >= NAMED_STUDENTS


@pytest.mark.parametrize("path", STUDENT_FILES, ids=lambda p: p.stem)
def test_student_record_validates_against_the_catalog(catalog: Catalog, path: Path) -> None:
    student = load_student(path)
    assert student.id == path.stem
    assert student.current_term == "F2026"
    assert student.catalog_year == "2026-2027"
    assert student.interests
    assert check_student_against_catalog(student, catalog) == []
    kinds = [catalog.program(code).kind for code in student.programs]
    assert kinds.count("major") == 1


@pytest.mark.parametrize("path", STUDENT_FILES, ids=lambda p: p.stem)
def test_student_history_respects_offerings_and_prerequisites(catalog: Catalog, path: Path) -> None:
    student = load_student(path)
    for a in student.courses:
        if a.source != "institution":
            assert a.term == student.start_term and a.grade == "TR", a.course
            continue
        term = Term.parse(a.term)
        course = catalog.course(a.course)
        assert course.offered.offered_in(term), f"{a.course} not offered in {a.term}"
        assert (a.status == "in_progress") == (a.term == "F2026"), a.course
        earlier = [
            b
            for b in student.courses
            if b.status == "completed"
            and catalog.grade_meets(b.grade, None)
            and (b.source != "institution" or Term.parse(b.term) < term)
        ]
        best: dict[str, float] = {}
        for b in earlier:
            best[b.course] = max(best.get(b.course, 0.0), catalog.grade_by_symbol[b.grade].points)
        units = sum(catalog.course(code).units for code in best)
        if course.prerequisites is not None:
            assert _prereq_met(course.prerequisites, catalog, student, best, units), (
                f"{a.course} in {a.term}: prerequisites not met"
            )
        if course.corequisites is not None:
            taken = {
                b.course
                for b in student.courses
                if b.source != "institution" or Term.parse(b.term) <= term
            }
            same_or_earlier = dict.fromkeys(taken, 4.0)
            assert _prereq_met(course.corequisites, catalog, student, same_or_earlier, units)


def test_scenario_students_have_the_facts_their_scenarios_need(catalog: Catalog) -> None:
    def get(student_id: str) -> StudentRecord:
        return load_student(ROOT / "demos" / "students" / f"{student_id}.json")

    low, high = get("overload-low-gpa"), get("overload-high-gpa")
    assert (low.gpa, high.gpa) == (2.6, 3.8)
    for s in (low, high):
        assert s.programs == ["CS-BS"] and s.start_term == "F2025"
        assert s.class_standing(catalog) == "sophomore"
        left = 360 - s.units_earned(catalog, include_in_progress=True)
        assert left == 229  # four terms to December 2028 need more than 4 x 54 units

    probation = get("probation-student")
    assert (probation.academic_status, probation.gpa) == ("probation", 1.9)
    assert probation.class_standing(catalog) == "sophomore"

    repeat = get("repeat-student")
    assert [(a.term, a.grade) for a in repeat.attempts_of("15-122")] == [
        ("S2025", "R"),
        ("F2025", "B"),
    ]

    transfer = get("transfer-student")
    assert {a.source for a in transfer.courses} == {"transfer", "ap", "institution"}
    assert transfer.class_standing(catalog) == "junior"

    assert get("study-abroad").terms_away == ["F2027"]
    assert get("senior-on-track").class_standing(catalog) == "senior"
    assert get("cs-senior-pf").attempts_of("80-130")[0].pass_fail

    econ = get("econ-senior")
    assert econ.programs == ["ECON-BA"]
    assert {"21-120", "21-256"} <= econ.earned_courses(catalog)
    assert "21-122" not in econ.earned_courses(catalog, include_in_progress=True)

    is_junior = get("is-junior-cs-minor")
    assert is_junior.class_standing(catalog) == "junior"
    assert "15-112" in is_junior.earned_courses(catalog)

    first = get("first-year-undeclared-ish")
    assert all(a.status == "in_progress" for a in first.courses)

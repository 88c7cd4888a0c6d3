"""The shipped Northfield catalog: schema and reference checks, sizes and identity, course
levels, prerequisite chains and forms, offerings, policy rules and programs.

Other parts of the pipeline (planner, scheduler, demos, eval) rely on the facts checked
here, so each test pins an exact fact rather than a loose property.
"""

from __future__ import annotations

import itertools
import json

from agents.catalog import Catalog, Term, courses_in, reference_problems
from tests.sample_data_helpers import CATALOG_PATH, catalog

__all__ = ["catalog"]  # the module fixture, imported so pytest finds it here


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


def _depth(catalog: Catalog, code: str) -> int:
    """Longest prerequisite chain below ``code``, counted in edges."""
    below = courses_in(catalog.course(code).prerequisites)
    return max((1 + _depth(catalog, c) for c in below), default=0)


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
        "program-is-bs-2024",
        "program-math-bs",
        "program-econ-ba",
        "program-stat-bs",
        "program-cs-min",
        "program-cs-min-2024",
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
    # Two programs as the 2024-2025 catalog published them, each with its own document.
    assert [(p.code, p.catalog_year, p.document) for p in catalog.program_versions] == [
        ("CS-MIN", "2024-2025", "program-cs-min-2024"),
        ("IS-BS", "2024-2025", "program-is-bs-2024"),
    ]

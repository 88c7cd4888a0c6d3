"""Catalog years per program: a catalog holds several years' versions of a program, each
student follows a year per program (their own catalog year by default), and the audit,
the planner, the intake and the recommendation all use that version."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.audit import audit
from agents.catalog import Catalog, StudentRecord, load_catalog
from agents.catalog.crossref import reference_problems
from agents.catalog.model import Catalog as CatalogModel
from agents.catalog.student import check_student_against_catalog
from agents.catalog.years import choose, program_year, version_problems
from agents.planner import PlanConstraints, plan
from agents.synthesis import years_phrase

ROOT = Path(__file__).resolve().parents[1]
STUDENT = ROOT / "demos" / "students" / "is-junior-2024-catalog.json"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def record(**changes: Any) -> StudentRecord:
    raw = json.loads(STUDENT.read_text())
    raw.update(changes)
    return StudentRecord.model_validate(raw)


def _leaf_ids(catalog: Catalog, student: StudentRecord, code: str) -> dict[str, str]:
    report = audit(catalog, student, [code])
    prog = next(p for p in report.programs if p.code == code)
    out: dict[str, str] = {}
    stack = [prog.root]
    while stack:
        node = stack.pop()
        out[node.id] = node.status
        stack.extend(node.children)
    return out


def test_the_version_in_effect_is_the_latest_published_in_or_before_the_year(
    catalog: Catalog,
) -> None:
    assert choose(catalog, "IS-BS", "2024-2025")[0].catalog_year == "2024-2025"
    # Unchanged in 2025-2026: the 2024-2025 version carries forward.
    older = next(p for p in catalog.program_versions if p.code == "IS-BS")
    assert choose(catalog, "IS-BS", "2025-2026") == (older, None)
    assert choose(catalog, "IS-BS", "2026-2027")[0] is catalog.program("IS-BS")
    assert choose(catalog, "IS-BS", "2030-2031")[0] is catalog.program("IS-BS")
    # A program with one version: that one, whatever the year (said when it is earlier).
    assert choose(catalog, "CS-BS", "2027-2028") == (catalog.program("CS-BS"), None)
    assert choose(catalog, "CS-BS", "2024-2025")[0] is catalog.program("CS-BS")


def test_a_year_before_every_version_follows_the_first_with_a_note(catalog: Catalog) -> None:
    version, note = choose(catalog, "IS-BS", "2022-2023")
    assert version.catalog_year == "2024-2025"
    assert note == (
        "the catalog holds no version of IS-BS for the 2022-2023 catalog the student follows; "
        "it follows the 2024-2025 catalog, the earliest it holds"
    )
    version, note = choose(catalog, "IS-BS", "next year")
    assert version is catalog.program("IS-BS")
    assert note == "catalog year 'next year' cannot be read; IS-BS follows the 2026-2027 catalog"


def test_each_program_follows_the_record_year_unless_program_years_names_another(
    catalog: Catalog,
) -> None:
    old = record()
    assert program_year(catalog, old, "IS-BS").used == "2024-2025"
    assert program_year(catalog, old, "CS-MIN").used == "2024-2025"
    mixed = record(program_years={"CS-MIN": "2026-2027"})
    assert program_year(catalog, mixed, "IS-BS").used == "2024-2025"
    assert program_year(catalog, mixed, "CS-MIN").used == "2026-2027"


def test_the_audit_uses_the_students_version(catalog: Catalog) -> None:
    # 2024-2025: 36-226 itself is required; the student's 36-202 does not count for it.
    old = _leaf_ids(catalog, record(), "IS-BS")
    assert old["36-226"] == "unmet"
    assert "is-stats-2" not in old
    # 2026-2027: 36-202 is one of the two options, so the node is met.
    new = _leaf_ids(catalog, record(catalog_year="2026-2027"), "IS-BS")
    assert new["is-stats-2"] == "met"
    report = audit(catalog, record())
    assert [(p.code, p.catalog_year) for p in report.programs] == [("IS-BS", "2024-2025")]
    assert report.warnings == []


def test_mixed_years_are_a_warning_of_the_audit(catalog: Catalog) -> None:
    report = audit(catalog, record(program_years={"CS-MIN": "2026-2027"}), add_programs=["CS-MIN"])
    years = {p.code: p.catalog_year for p in report.programs}
    assert years == {"IS-BS": "2024-2025", "CS-MIN": "2026-2027"}
    assert (
        "the programs follow different catalog years: IS-BS the 2024-2025 catalog, CS-MIN the "
        "2026-2027 catalog"
    ) in report.warnings
    electives = next(p for p in report.programs if p.code == "CS-MIN").root.children[3]
    assert electives.courses_needed == 2  # the 2026-2027 minor asks for two electives
    default = audit(catalog, record(), add_programs=["CS-MIN"])
    older = next(p for p in default.programs if p.code == "CS-MIN").root.children[3]
    assert older.courses_needed == 3  # the 2024-2025 minor asked for three


def test_the_planner_plans_the_students_version(catalog: Catalog) -> None:
    pc = PlanConstraints(max_units_per_term=54, target_term="S2028")
    old = plan(catalog, record(), ["IS-BS"], pc)
    assert old.status == "optimal"
    assert old.requirement_of["36-226"] == ["IS-BS/36-226"]
    new = plan(catalog, record(catalog_year="2026-2027"), ["IS-BS"], pc)
    assert "36-226" not in new.requirement_of


def test_version_problems_name_the_entry_and_the_fix(catalog: Catalog) -> None:
    raw = json.loads((ROOT / "agents" / "data" / "catalog.json").read_text())
    extra = dict(raw["program_versions"][0], code="XX-MIN")
    dup = dict(raw["program_versions"][0])
    bad_ref = json.loads(json.dumps(raw["program_versions"][1]))
    bad_ref["catalog_year"] = "2023-2024"
    bad_ref["requirement"]["children"][0]["children"][0]["course"] = "99-999"
    raw["program_versions"] += [extra, dup, bad_ref]
    cat = CatalogModel.model_validate(raw)
    assert version_problems(cat) == [
        "$.program_versions[2] (XX-MIN 2024-2025): program 'XX-MIN' is not in programs; a "
        "catalog lists every program it holds in programs (the version of its own year, or "
        "the latest one)",
        "$.program_versions[3] (CS-MIN 2024-2025): CS-MIN already has a 2024-2025 version; "
        "give each version its own catalog_year",
    ]
    problems = reference_problems(cat)
    assert (
        "$.program_versions[4] (IS-BS 2023-2024).requirement.children[0].children[0]: "
        "unknown course '99-999'"
    ) in problems


def test_a_record_naming_an_unknown_program_year_is_a_problem(catalog: Catalog) -> None:
    student = record(program_years={"NOPE": "2025-2026", "CS-MIN": "soon"})
    problems = check_student_against_catalog(student, catalog)
    assert problems[0].startswith("$.program_years.NOPE: unknown program 'NOPE'; expected one of")
    assert problems[1] == (
        "$.program_years.CS-MIN: catalog year 'soon' cannot be read; write it like '2026-2027'"
    )


def test_years_phrase_only_when_mixed() -> None:
    assert years_phrase({"IS-BS": "2024-2025", "GEN": "2024-2025"}) == ""
    assert years_phrase({"IS-BS": "2024-2025", "CS-MIN": "2026-2027"}) == (
        " IS-BS follows the 2024-2025 catalog and CS-MIN the 2026-2027 one."
    )


def test_a_request_names_the_year_of_an_added_program() -> None:
    from agents.artifacts import PlanRequest
    from agents.intake import read_request
    from agents.toolbox import Toolbox

    tools = Toolbox(catalog=load_catalog())
    ok = read_request(
        PlanRequest(
            request_id="r1",
            student=record(),
            add_programs=["CS-MIN"],
            program_years={"CS-MIN": "2026-2027"},
        ),
        tools,
    )
    assert ok.student is not None and ok.student.program_years == {"CS-MIN": "2026-2027"}
    assert "CS-MIN follows the 2026-2027 catalog" in ok.notes
    assert ok.open_questions == []
    bad = read_request(
        PlanRequest(
            request_id="r2",
            student=record(),
            add_programs=["CS-MIN"],
            program_years={"XX": "2026-2027", "CS-MIN": "later"},
        ),
        tools,
    )
    assert [(q.field, q.question) for q in bad.open_questions] == [
        ("program_years", "'XX' in program_years is not a program in the catalog"),
        (
            "program_years",
            "the catalog year 'later' for CS-MIN cannot be read; write it like '2026-2027'",
        ),
    ]
    assert bad.student is not None and bad.student.program_years == {}


def test_programs_without_an_early_enough_version_share_one_note(catalog: Catalog) -> None:
    raw = json.loads((ROOT / "demos" / "students" / "econ-junior.json").read_text())
    raw["catalog_year"] = "2023-2024"
    report = audit(catalog, StudentRecord.model_validate(raw))
    assert report.warnings == [
        "the catalog holds no version of ECON-BA, PHIL-MIN for the 2023-2024 catalog the "
        "student follows; they follow the 2026-2027 catalog, the earliest it holds"
    ]

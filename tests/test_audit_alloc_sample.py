"""The audit's course allocation on the sample-catalog cases where a greedy allocation went
wrong, and a search that runs out of steps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.audit import RequirementAudit, audit, unmet
from agents.audit import search as audit_search
from agents.catalog import Catalog, StudentRecord, load_catalog
from tests.audit_alloc_helpers import nodes

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def sample() -> Catalog:
    return load_catalog()


def is_student(courses: list[tuple[str, str]], programs: list[str]) -> StudentRecord:
    return StudentRecord.model_validate(
        {
            "id": "S-2",
            "name": "Test",
            "programs": programs,
            "catalog_year": "2026-2027",
            "start_term": "F2024",
            "current_term": "F2026",
            "courses": [{"course": c, "term": "S2026", "grade": g} for c, g in courses],
        }
    )


def find(node: RequirementAudit, id_: str) -> RequirementAudit:
    return next(n for n, _ in nodes(node) if n.id == id_)


def test_writing_takes_76_271_so_67_308_completes_the_is_electives(sample: Catalog) -> None:
    record = is_student(
        [("67-308", "B"), ("76-271", "B"), ("67-340", "A"), ("67-343", "B")], ["IS-BS"]
    )
    root = audit(sample, record).programs[0].root
    writing = find(root, "is-writing")
    assert (writing.status, [c.status for c in writing.children]) == (
        "met",
        ["unmet", "unmet", "met"],
    )
    assert find(root, "is-writing-76-271").counted[0].course == "76-271"
    electives = find(root, "is-electives")
    assert (electives.status, [c.course for c in electives.counted]) == (
        "met",
        ["67-308", "67-340", "67-343"],
    )


def test_is_senior_with_business_minor_shares_70_122_and_70_311(sample: Catalog) -> None:
    scenario = json.loads(
        (ROOT / "eval" / "scenarios" / "senior-is-business-minor.json").read_text()
    )
    record = StudentRecord.model_validate(scenario["request"]["student"])
    plan = {"67-475": "S2027", "70-332": "S2027", "70-340": "S2027"}
    report = audit(sample, record, planned=plan)
    assert unmet(report) == []
    is_bs, bus = report.programs
    assert [(s.course, s.requirement, s.other_requirement) for s in bus.shared_courses] == [
        ("70-122", "70-122", "70-122"),
        ("70-311", "70-311", "70-311"),
    ]
    soc = find(is_bs.root, "gen-ed-soc")
    assert [c.course for c in soc.counted] == ["85-102", "85-241"]
    assert find(bus.root, "70-100").counted[0].course == "70-100"


def test_a_search_that_runs_out_of_steps_is_reported_and_counts_as_unmet(
    sample: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(audit_search, "SEARCH_BUDGET", 0)
    scenario = json.loads(
        (ROOT / "eval" / "scenarios" / "senior-is-business-minor.json").read_text()
    )
    record = StudentRecord.model_validate(scenario["request"]["student"])
    report = audit(sample, record, planned={"67-475": "S2027", "70-332": "S2027"})
    assert report.warnings[-1] == (
        "the course allocation search hit its step limit; a requirement reported unmet "
        "may still be satisfiable by moving courses between requirements"
    )
    assert not report.all_met

"""Synthesis agent, risks: approvals to seek named in the summary, citations and letter,
approvals grouped by rule across terms, other reasons turned into risks, and a next-term
section clash reported as a sections risk."""

from __future__ import annotations

import pytest

from agents import synthesis
from agents.advice import answers
from agents.artifacts import (
    NextTermSections,
    Risk,
)
from agents.catalog import Catalog, parse_catalog
from agents.llm import check_letter
from agents.toolbox import Toolbox
from tests.synthesis_helpers import (
    PROPOSAL,
    RAW_CATALOG,
    ROUNDS,
    _critique,
    _intake,
    _profile,
    _schedule,
)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return parse_catalog(RAW_CATALOG, "test-synthesis-catalog")


def test_approved_with_risks_names_the_approval_and_turns_reasons_into_risks(
    catalog: Catalog,
) -> None:
    overload = answers.cite(catalog, "academic-policies", "overload", "LOAD-OVERLOAD")
    approval = Risk(
        kind="approval_needed",
        message="Spring 2027 has 45 units and needs advisor approval.",
        term="S2027",
        rule_id="LOAD-OVERLOAD",
        citation=overload,
    )
    schedule = _schedule(catalog, reasons=["70-311 needs the instructor's consent."])
    rec = synthesis.synthesize(
        _intake(profile=_profile(gpa=3.8)),
        PROPOSAL,
        schedule,
        _critique(approval="conditional", risks=[approval]),
        ROUNDS,
        "approved_with_risks",
        Toolbox(catalog=catalog),
    )
    assert rec.summary == (
        "Approved with risks: graduate in Fall 2027 with IS-BS, adding CS-MIN. Spring 2027 "
        "needs advisor approval for 45 units (LOAD-OVERLOAD). 1 other risk to review."
    )
    assert rec.risks == [
        approval,
        Risk(kind="consent_needed", message="70-311 needs the instructor's consent."),
    ]
    assert [(c.section, c.rule_id) for c in rec.citations] == [
        ("overload", "LOAD-OVERLOAD"),
        ("course-load", "LOAD-MAX"),
        ("overview", None),
    ]
    assert (
        "Approvals to seek:\n- Spring 2027: Spring 2027 has 45 units and needs "
        "advisor approval.\n\nThings to keep in mind:\n- 70-311 needs the instructor's consent.\n"
    ) in rec.letter
    assert check_letter(rec.letter, rec) == []


def test_summary_groups_approvals_by_rule_and_names_a_program_switch(catalog: Catalog) -> None:
    overload = answers.cite(catalog, "academic-policies", "overload", "LOAD-OVERLOAD")
    risks = [
        Risk(
            kind="approval_needed",
            message=f"{term} is an overload.",
            term=term,
            rule_id="LOAD-OVERLOAD",
            citation=overload,
        )
        for term in ("S2027", "F2027")
    ]
    intake = _intake(
        intent="switch_program",
        profile=_profile(gpa=3.8),
        target_programs=["IS-BS"],
        added_programs=["IS-BS"],
        dropped_programs=["CS-BS"],
    )
    rec = synthesis.synthesize(
        intake,
        PROPOSAL,
        _schedule(catalog),
        _critique(approval="conditional", risks=risks),
        ROUNDS[1:],
        "approved_with_risks",
        Toolbox(catalog=catalog),
    )
    assert rec.summary == (
        "Approved with risks: graduate in Fall 2027 switching from CS-BS to IS-BS. Spring 2027 "
        "and Fall 2027 need advisor approval for 21-45 units (LOAD-OVERLOAD)."
    )
    assert rec.citations == [overload]


def test_next_term_clash_becomes_a_sections_risk(catalog: Catalog) -> None:
    clash = NextTermSections(
        term="S2027",
        status="clash",
        clashes=["67-272 A and 70-311 A both meet TR 13:30-14:50"],
        alternative=["15-122", "67-250", "67-272"],
    )
    rec = synthesis.synthesize(
        _intake(),
        PROPOSAL,
        _schedule(catalog, next_term=clash),
        _critique(),
        ROUNDS[1:],
        "approved_with_risks",
        Toolbox(catalog=catalog),
    )
    assert rec.risks == [
        Risk(
            kind="sections",
            term="S2027",
            message="No clash-free sections for Spring 2027: 67-272 A and 70-311 A both meet "
            "TR 13:30-14:50",
        )
    ]

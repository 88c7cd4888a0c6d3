"""The audit's memo (``agents.audit.memo``): a question asked again - of the base catalog or
of the student's effective one - is answered once, with what a fresh audit says; a record
whose advisor exceptions or catalog years differ is another question; the memo keeps the
questions asked last."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import agents.audit.core as core
from agents.audit import AuditReport, audit
from agents.audit import memo as audit_memo
from agents.catalog import (
    SEMESTER_CALENDAR,
    Catalog,
    StudentRecord,
    load_catalog,
    load_student,
    use_calendar,
    use_catalog,
)
from agents.catalog.exceptions import Substitution
from agents.catalog.overrides import base_catalog, effective_catalog

STUDENTS = Path(__file__).resolve().parents[1] / "demos" / "students"
GRANT: dict[str, Any] = {"by": "Dr. Rivera", "date": "2026-09-01", "reason": "Equivalent content."}


@pytest.fixture
def cat() -> Catalog:
    """The sample catalog as a new object: its own memo, empty."""
    return load_catalog().model_copy()


@pytest.fixture
def computed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The student ids of the audits actually computed (not answered from the memo)."""
    calls: list[str] = []
    real = core._audit

    def counting(catalog: Catalog, student: StudentRecord, *args: Any, **kw: Any) -> AuditReport:
        calls.append(student.id)
        return real(catalog, student, *args, **kw)

    monkeypatch.setattr(core, "_audit", counting)
    return calls


def record(name: str, **changes: Any) -> StudentRecord:
    return load_student(STUDENTS / f"{name}.json").model_copy(update=changes)


def substitution() -> Substitution:
    return Substitution(kind="substitute", course="33-142", requirement="cs-math-elective", **GRANT)


def leaf_status(report: AuditReport, program: str, node_id: str) -> str:
    prog = next(p for p in report.programs if p.code == program)
    stack = [prog.root]
    while stack:
        node = stack.pop()
        if node.id == node_id:
            return node.status
        stack.extend(node.children)
    raise LookupError(node_id)


def test_a_question_asked_again_is_answered_once_with_what_a_fresh_audit_says(
    cat: Catalog, computed: list[str]
) -> None:
    student = record("cs-junior")
    planned = {"15-213": "S2027", "15-251": "S2027"}
    first = audit(cat, student, planned=planned)
    # The same content in other objects is the same question: nothing is keyed on id().
    again = audit(cat, StudentRecord.model_validate_json(student.model_dump_json()),
                  planned=dict(planned))  # fmt: skip
    assert again is first
    assert computed == ["cs-junior"]
    fresh = audit(load_catalog().model_copy(), student, planned=planned)
    assert fresh == first and fresh is not first
    assert computed == ["cs-junior", "cs-junior"]


def test_the_base_and_the_effective_catalog_share_one_answer(
    cat: Catalog, computed: list[str]
) -> None:
    student = record("cs-junior", exceptions=[substitution()])
    effective = effective_catalog(cat, student)
    assert effective is not cat and base_catalog(effective) is cat
    planned = {"15-213": "S2027"}
    from_stage = audit(cat, student, planned=planned)
    from_planner = audit(effective, student, planned=planned)
    assert from_planner is from_stage
    assert computed == ["cs-junior"]
    assert audit_memo.kept(effective) == audit_memo.kept(cat) == 1


def test_other_exceptions_are_another_question(cat: Catalog, computed: list[str]) -> None:
    plain = record("cs-junior")
    excepted = record("cs-junior", exceptions=[substitution()])
    before = audit(cat, plain)
    after = audit(cat, excepted)
    assert leaf_status(before, "CS-BS", "cs-math-elective") != "met"
    assert leaf_status(after, "CS-BS", "cs-math-elective") == "met"
    assert audit(cat, plain) is before and audit(cat, excepted) is after
    assert computed == ["cs-junior", "cs-junior"]
    assert after == audit(load_catalog().model_copy(), excepted)


def test_other_catalog_years_are_another_question(cat: Catalog, computed: list[str]) -> None:
    raw = json.loads((STUDENTS / "is-junior-2024-catalog.json").read_text("utf-8"))
    own = StudentRecord.model_validate(raw)
    later = StudentRecord.model_validate({**raw, "program_years": {"IS-BS": "2026-2027"}})
    years = [
        next(p.catalog_year for p in audit(cat, s).programs if p.code == "IS-BS")
        for s in (own, later, own)
    ]
    assert years == ["2024-2025", "2026-2027", "2024-2025"]
    assert len(computed) == 2


def test_the_memo_keeps_the_questions_asked_last(
    cat: Catalog, computed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(audit_memo, "AUDIT_MEMO_SIZE", 2)
    a, b, c = record("cs-junior"), record("is-senior"), record("math-major")
    for student in (a, b, a, c):  # asking a again makes b the least recently asked
        audit(cat, student)
    assert computed == ["cs-junior", "is-senior", "math-major"]
    assert audit_memo.kept(cat) == 2
    audit(cat, a)
    audit(cat, b)
    assert computed == ["cs-junior", "is-senior", "math-major", "is-senior"]


def test_a_calendar_other_than_the_catalogs_is_part_of_the_question() -> None:
    harrow = load_catalog(Path(__file__).resolve().parents[1] / "demos" / "harrow-bay")
    student = record("cs-junior")
    with use_catalog(harrow):
        own = audit_memo.audit_key(harrow, student, None, (), {})
    with use_calendar(SEMESTER_CALENDAR):
        other = audit_memo.audit_key(harrow, student, None, (), {})
    assert own[-1] == "" and other[-1] == SEMESTER_CALENDAR.model_dump_json()
    assert own[:-1] == other[:-1]

"""Degree audit: the published JSON schema (agents/schemas/audit.schema.json) matches the
models, and reports validate against it - mini-catalog records (see tests/audit_helpers.py)
and every demo student on the sample catalog."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from agents.audit import SCHEMA_FILE, audit, audit_schema
from agents.catalog import Catalog, load_catalog, load_student
from agents.catalog.exceptions import ExceptionsFile, load_exceptions
from tests.audit_helpers import MIXED, catalog, student

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_PATH = ROOT / "agents" / "schemas" / SCHEMA_FILE

__all__ = ["catalog"]  # the module fixture, imported so pytest finds it here


def test_published_schema_file_matches_the_models() -> None:
    text = SCHEMA_PATH.read_text(encoding="utf-8")
    assert json.loads(text) == audit_schema(), (
        "agents/schemas/audit.schema.json is stale; regenerate it with "
        "agents.audit.core.write_audit_schema(Path('agents/schemas'))"
    )
    assert text == json.dumps(audit_schema(), indent=2, sort_keys=True) + "\n"


def test_reports_validate_against_the_published_schema(catalog: Catalog) -> None:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    report = audit(catalog, student(MIXED, ("CS-BS", "MATH-MIN")), add_programs=["DS-MIN"])
    jsonschema.validate(report.model_dump(mode="json"), schema)


DEMO_CATALOG = ROOT / "agents" / "data" / "catalog.json"


DEMO_STUDENTS = sorted((ROOT / "demos" / "students").glob("*.json"))


@pytest.mark.skipif(
    not DEMO_CATALOG.exists() or not DEMO_STUDENTS,
    reason="the sample catalog and demo students are not there yet",
)
@pytest.mark.parametrize("path", DEMO_STUDENTS, ids=[p.stem for p in DEMO_STUDENTS])
def test_demo_students_audit_against_the_published_schema(path: Path) -> None:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    catalog = load_catalog(DEMO_CATALOG)
    record = load_student(path)
    report = audit(catalog, record)
    jsonschema.validate(report.model_dump(mode="json"), schema)
    assert audit(catalog, record) == report


def test_a_report_with_every_kind_of_exception_use_validates() -> None:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    catalog = load_catalog(DEMO_CATALOG)
    record = load_student(ROOT / "demos" / "students" / "is-senior.json")
    grants = load_exceptions(ROOT / "demos" / "exceptions" / "is-senior.json")
    extra = ExceptionsFile.model_validate(
        {
            "student_id": record.id,
            "exceptions": [
                {"kind": "substitute", "course": "67-999", "for_course": "67-475", "by": "A",
                 "date": "2026-09-30", "reason": "unknown course"},
                {"kind": "apply", "course": "70-381", "requirement": "bus-min-upper",
                 "program": "BUS-MIN", "by": "A", "date": "2026-09-30", "reason": "waived"},
                {"kind": "approve", "rule": "LOAD-MAX", "term": "S2027", "by": "A",
                 "date": "2026-09-30", "reason": "not approvable"},
            ],
        }
    )  # fmt: skip
    report = audit(catalog, record.with_exceptions(grants).with_exceptions(extra))
    assert [u.status for u in report.exceptions] == [
        "used", "used", "invalid", "conflicting", "invalid"
    ]  # fmt: skip
    jsonschema.validate(report.model_dump(mode="json"), schema)

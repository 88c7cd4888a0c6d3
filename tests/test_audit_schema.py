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

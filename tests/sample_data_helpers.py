"""Shared pieces for the sample-data tests (tests/test_sample_data_*.py): where the shipped
Northfield catalog and demo student records live, and the ``catalog`` fixture loading it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.catalog import Catalog, load_catalog

ROOT = Path(__file__).resolve().parent.parent


CATALOG_PATH = ROOT / "agents" / "data" / "catalog.json"


STUDENT_FILES = sorted((ROOT / "demos" / "students").glob("*.json"))


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(CATALOG_PATH)

"""Policy rules as data in the authoring layout: policies.yaml mirrors the rule model, so a
catalog using every new rule field exports and builds back to the same catalog, and a
misused field is reported with the file and line it is on."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.catalog import parse_catalog
from agents.catalog.authoring import LayoutError, build_catalog, catalog_json, export_catalog
from tests.policy_data_helpers import EVERY_FORM, raw_with

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop


def test_every_new_rule_field_survives_export_then_build(tmp_path: Path) -> None:
    catalog = parse_catalog(raw_with(*EVERY_FORM))
    export_catalog(catalog, tmp_path / "cat")
    text = (tmp_path / "cat" / "policies.yaml").read_text("utf-8")
    for name in (
        "limit_table:",
        "recent_gpa_min: 3.5",
        "recent_terms: 3",
        "term_kinds:",
        "grade_ceiling: C-",
        "measure: courses",
        "scope: program",
        "program_kinds:",
        "kind: academic_standing",
    ):
        assert name in text, name
    built, data = build_catalog(tmp_path / "cat")
    assert built == catalog
    assert data == catalog_json(catalog)
    assert built.rule_by_id["PF-MAJOR"].program_kinds == ["major"]


def test_a_hand_written_table_builds(tmp_path: Path) -> None:
    export_catalog(parse_catalog(raw_with()), tmp_path / "cat")
    path = tmp_path / "cat" / "policies.yaml"
    path.write_text(
        path.read_text("utf-8")
        + """- id: SUMMER-MAX
  title: Summer load
  kind: max_units_per_term
  applies_when: {term_kinds: [U]}
  limit: 18
  limit_table:
  - when: {standing_in: [first_year]}
    limit: 9
  citation: {document: academic-policies, section: course-load}
""",
        "utf-8",
    )
    built, _ = build_catalog(tmp_path / "cat")
    summer = built.rule_by_id["SUMMER-MAX"]
    assert (summer.applies_when.term_kinds, summer.limit_table[0].limit) == (["U"], 9)


def test_a_grade_ceiling_off_the_scale_names_the_file_and_line(tmp_path: Path) -> None:
    export_catalog(parse_catalog(raw_with(*EVERY_FORM)), tmp_path / "cat")
    path = tmp_path / "cat" / "policies.yaml"
    lines = path.read_text("utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if "grade_ceiling: C-" in line)
    lines[at] = lines[at].replace("C-", "Z")
    path.write_text("\n".join(lines) + "\n", "utf-8")
    with pytest.raises(LayoutError) as info:
        build_catalog(tmp_path / "cat")
    assert info.value.problems == [
        f"policies.yaml:{at + 1} field 'grade_ceiling': unknown grade 'Z'; the grade scale "
        "has A, A-, B+, B, B-, C+, C, C-, D+, D, F, R, P, NP, W, I, TR"
    ]

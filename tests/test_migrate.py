"""Catalog format version 3 and ``advise catalog migrate``: a version 2 catalog (file or
directory) is upgraded to 3 with only its version changed, a version 1 one still gets the
semester calendar on the way, a version 3 one is left alone, and a version 2 catalog is
still read as it is."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from agents.catalog import default_catalog_path, load_catalog
from agents.catalog.migrate import CURRENT_VERSION, migrate_institution_yaml, migrate_raw
from agents.catalog.upgrade import migrate_catalog
from agents.errors import CatalogError
from pipeline.cli import main

REPO = Path(__file__).resolve().parents[1]
LAYOUT = REPO / "demos" / "catalog-layout"


def _shipped() -> dict[str, Any]:
    return json.loads(default_catalog_path().read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _at(version: int, tmp_path: Path) -> Path:
    raw = _shipped()
    raw["schema_version"] = version
    if version == 1:
        raw.pop("calendar")
    path = tmp_path / f"v{version}.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


def test_the_current_version_is_3_and_the_samples_are_at_it() -> None:
    assert CURRENT_VERSION == 3
    assert _shipped()["schema_version"] == 3
    for root in ("demos/harrow-bay", "demos/catalog-layout", "eval/catalogs/fenwick-college"):
        assert load_catalog(REPO / root).schema_version == 3


def test_a_version_2_file_is_upgraded_with_only_its_version_changed(tmp_path: Path) -> None:
    out = tmp_path / "v3.json"
    lines = migrate_catalog(_at(2, tmp_path), out)
    assert lines == [
        f"{out}: written from {tmp_path / 'v2.json'}: schema_version 2 -> 3 (nothing else "
        "changes: the forms of version 3 are optional)"
    ]
    assert json.loads(out.read_text(encoding="utf-8")) == _shipped()
    assert migrate_catalog(out, tmp_path / "again.json") == [
        f"{tmp_path / 'again.json'}: written from {out}: already at version 3"
    ]


def test_a_version_1_file_is_upgraded_to_3_with_the_semester_calendar(tmp_path: Path) -> None:
    new, notes = migrate_raw(json.loads(_at(1, tmp_path).read_text(encoding="utf-8")))
    assert new["schema_version"] == 3
    assert new["calendar"]["terms"][0] == {
        "code": "S", "name": "Spring", "aliases": [], "regular": True, "main": None,
        "months": [1, 2, 3, 4, 5], "typical_dates": None,
    }  # fmt: skip
    assert [n.split(" (")[0].split(":")[0] for n in notes] == [
        "schema_version 1 -> 2", "calendar", "schema_version 2 -> 3",
    ]  # fmt: skip


def test_a_version_2_catalog_is_still_read_as_it_is(tmp_path: Path) -> None:
    catalog = load_catalog(_at(2, tmp_path))
    assert catalog.schema_version == 2
    assert catalog.model_copy(update={"schema_version": 3}) == load_catalog()


def test_a_version_2_directory_changes_only_its_version_line(tmp_path: Path) -> None:
    d = tmp_path / "cat"
    shutil.copytree(LAYOUT, d)
    head = (d / "institution.yaml").read_text(encoding="utf-8")
    v2 = "# kept by the registrar\n" + head.replace("schema_version: 3", "schema_version: 2  # old")
    (d / "institution.yaml").write_text(v2, encoding="utf-8")
    assert load_catalog(d).schema_version == 2
    assert migrate_catalog(d, None) == [
        f"{d / 'institution.yaml'}: schema_version 2 -> 3 (nothing else changes: the forms of "
        "version 3 are optional)"
    ]
    assert (d / "institution.yaml").read_text(encoding="utf-8") == v2.replace(
        "schema_version: 2  # old", "schema_version: 3 # old"
    )
    assert load_catalog(d) == load_catalog(LAYOUT)
    assert migrate_catalog(d, None) == [f"{d / 'institution.yaml'}: already at version 3"]


def test_a_version_1_directory_is_upgraded_to_3(tmp_path: Path) -> None:
    text, notes = migrate_institution_yaml("schema_version: 1\ncatalog_year: 2026-2027\n")
    assert text.startswith("schema_version: 3\ncatalog_year: 2026-2027\ncalendar:\n")
    assert notes[0] == "schema_version 1 -> 2" and notes[-1].startswith("schema_version 2 -> 3")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("catalog_year: 2026-2027\n", "no 'schema_version: 1' or 'schema_version: 2' line"),
        ("schema_version: 9\n", "schema_version 9 is not a catalog format this program knows"),
    ],
)
def test_a_directory_without_a_known_version_is_refused(
    tmp_path: Path, text: str, problem: str
) -> None:
    d = tmp_path / "cat"
    d.mkdir()
    (d / "institution.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(CatalogError, match=problem):
        migrate_catalog(d, None)


@pytest.mark.slow
def test_migrate_command_upgrades_a_version_2_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "v3.json"
    assert main(["catalog", "migrate", str(_at(2, tmp_path)), "-o", str(out)]) == 0
    assert "schema_version 2 -> 3" in capsys.readouterr().out
    assert load_catalog(out) == load_catalog()

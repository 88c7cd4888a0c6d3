"""Reading a catalog directory into raw catalog JSON, with the place of every value.

::

    institution.yaml      schema_version, institution, catalog_year (+ optional fields)
    courses.csv           one row per course
    sections.csv          one row per meeting of a section (optional)
    programs/<CODE>.yaml  one program each (optional directory)
    program-versions/<CODE>@<YEAR>.yaml
                          a program as published in another catalog year (optional
                          directory; read in file-name order)
    policies.yaml         the list of policy rules (optional)
    documents/<id>.md     one document each (optional directory)

Problems are collected across all files; the raw catalog is only worth validating when
there are none.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agents.catalog.authoring.courses_csv import read_courses, read_sections
from agents.catalog.authoring.documents_md import read_document
from agents.catalog.authoring.sourcemap import SourceMap
from agents.catalog.authoring.yamlfiles import read_yaml
from agents.catalog.migrate import CURRENT_VERSION
from agents.catalog.sessions import SESSION_CODE_PATTERN
from agents.catalog.terms import SEMESTER_CALENDAR, Calendar

INSTITUTION_FIELDS = (
    "schema_version",
    "institution",
    "catalog_year",
    "calendar",
    "grade_scale",
    "standing_thresholds",
    "course_code_pattern",
    "milestones",
    "program_order",
    "document_order",
)
CATALOG_FIELDS = INSTITUTION_FIELDS[:8]
VERSIONS = "program-versions"
INSTITUTION_HINT = "create it with schema_version, institution and catalog_year"


def _ordered(folder: Path, suffix: str, order: Any, field: str, problems: list[str]) -> list[Path]:
    """Files of ``folder``: those named in institution.yaml's ``field`` first, in that
    order, then the rest by name. Files with another suffix are reported, not skipped."""
    if not folder.is_dir():
        return []
    files: dict[str, Path] = {}
    for p in sorted(folder.iterdir()):
        if p.name.startswith("."):
            continue
        if p.suffix != suffix or not p.is_file():
            problems.append(
                f"{folder.name}/{p.name}: not read - files in {folder.name}/ end in {suffix}"
            )
            continue
        files[p.stem] = p
    out: list[Path] = []
    for stem in order or []:
        if str(stem) not in files:
            problems.append(
                f"institution.yaml field {field!r}: {stem!r} has no file "
                f"{folder.name}/{stem}{suffix} - add the file or remove it from the list"
            )
        elif files[str(stem)] not in out:
            out.append(files[str(stem)])
    return out + [p for p in files.values() if p not in out]


def _institution(directory: Path, smap: SourceMap, problems: list[str]) -> dict[str, Any]:
    path = directory / "institution.yaml"
    if not path.is_file():
        problems.append(f"institution.yaml: file not found in {directory} - {INSTITUTION_HINT}")
        return {}
    ok, value = read_yaml(path, "institution.yaml", (), smap, problems)
    if not ok:
        return {}
    if not isinstance(value, dict):
        problems.append(f"institution.yaml:1: expected fields, got {value!r} - {INSTITUTION_HINT}")
        return {}
    for key in value:
        if key not in INSTITUTION_FIELDS:
            problems.append(
                f"{smap.locate((str(key),))}: unknown field {key!r} - the fields are "
                f"{', '.join(INSTITUTION_FIELDS)}"
            )
    return value


def _programs(
    directory: Path, order: Any, smap: SourceMap, problems: list[str]
) -> list[dict[str, Any]]:
    programs: list[Any] = []
    for path in _ordered(directory / "programs", ".yaml", order, "program_order", problems):
        name = f"programs/{path.name}"
        ok, value = read_yaml(path, name, ("programs", len(programs)), smap, problems)
        if not ok:
            continue
        if not isinstance(value, dict):
            problems.append(f"{name}:1: expected the program's fields, got {value!r}")
            continue
        if value.get("code") != path.stem:
            problems.append(
                f"{smap.locate(('programs', len(programs), 'code'))}: {value.get('code')!r} "
                f"does not match the file name - the code of {name} is {path.stem!r}; "
                "rename the file or fix the code"
            )
        programs.append(value)
    return programs


def _versions(directory: Path, smap: SourceMap, problems: list[str]) -> list[dict[str, Any]]:
    """``program-versions/<CODE>@<YEAR>.yaml``: programs as published in other years."""
    versions: list[Any] = []
    for path in _ordered(directory / VERSIONS, ".yaml", None, "", problems):
        name = f"{VERSIONS}/{path.name}"
        ok, value = read_yaml(path, name, ("program_versions", len(versions)), smap, problems)
        if not ok:
            continue
        if not isinstance(value, dict):
            problems.append(f"{name}:1: expected the program's fields, got {value!r}")
            continue
        stem = f"{value.get('code')}@{value.get('catalog_year')}"
        if stem != path.stem:
            problems.append(
                f"{smap.locate(('program_versions', len(versions), 'code'))}: the file of "
                f"{value.get('code')!r} for catalog year {value.get('catalog_year')!r} is "
                f"{VERSIONS}/{stem}.yaml; rename the file or fix code and catalog_year"
            )
        versions.append(value)
    return versions


def _policies(directory: Path, smap: SourceMap, problems: list[str]) -> list[Any]:
    path = directory / "policies.yaml"
    if not path.is_file():
        return []
    ok, value = read_yaml(path, "policies.yaml", ("policies",), smap, problems)
    if not ok or value is None:
        return []
    if not isinstance(value, list):
        problems.append("policies.yaml:1: expected a list of rules, each starting with '- id: ...'")
        return []
    return value


def _calendar(directory: Path, head: dict[str, Any], problems: list[str]) -> Calendar:
    """The calendar institution.yaml declares (the semester calendar when it declares none,
    or when the declaration is broken - that problem is reported here)."""
    if head.get("schema_version") == 1:
        problems.append(
            "institution.yaml: schema_version 1 is no longer read - run "
            f"`advise catalog migrate {directory}` to add the semester calendar version 1 "
            f"assumed and set schema_version to {CURRENT_VERSION}"
        )
    if "calendar" not in head:
        return SEMESTER_CALENDAR
    try:
        return Calendar.model_validate(head["calendar"])
    except ValidationError as exc:
        for err in exc.errors():
            where = ".".join(str(p) for p in err["loc"])
            msg = err["msg"].removeprefix("Value error, ")
            problems.append(
                f"institution.yaml: calendar{'.' + where if where else ''}: {msg} - "
                "see 'calendar' in docs/catalog-guide.md"
            )
        return _undated(head["calendar"])


def _undated(raw: Any) -> Calendar:
    """The calendar without its term dates and with only its sessions' codes, to read the
    other files with when only the dates or sessions are wrong (so a mistyped date is one
    problem, not one per course); else the semester calendar."""
    if isinstance(raw, dict) and isinstance(raw.get("terms"), list):
        kinds = [
            {k: v for k, v in kind.items() if k != "typical_dates"} | _session_codes(kind)
            if isinstance(kind, dict)
            else kind
            for kind in raw["terms"]
        ]
        try:
            return Calendar.model_validate({**raw, "terms": kinds, "dates": []})
        except ValidationError:
            pass
    return SEMESTER_CALENDAR


def _session_codes(kind: dict[str, Any]) -> dict[str, Any]:
    """A kind's sessions reduced to their distinct codes, for ``_undated``."""
    raw = kind.get("sessions")
    if not isinstance(raw, list):
        return {}
    codes = dict.fromkeys(s["code"] for s in raw if isinstance(s, dict) and "code" in s)
    return {
        "sessions": [
            {"code": c, "name": str(c), "first_week": 1, "last_week": 1}
            for c in codes
            if isinstance(c, str) and re.match(SESSION_CODE_PATTERN, c)
        ]
    }


def read_layout(directory: Path) -> tuple[dict[str, Any], SourceMap, list[str]]:
    """The raw catalog a directory describes, where its values came from, and its problems."""
    smap = SourceMap()
    problems: list[str] = []
    if not directory.is_dir():
        problems.append(f"{directory}: not a directory - pass a catalog directory")
        return {}, smap, problems
    head = _institution(directory, smap, problems)
    raw: dict[str, Any] = {k: head[k] for k in CATALOG_FIELDS if k in head}
    calendar = _calendar(directory, head, problems)

    courses: list[dict[str, Any]] = []
    courses_csv = directory / "courses.csv"
    if courses_csv.is_file():
        courses, index = read_courses(courses_csv, calendar, smap, problems)
        if (directory / "sections.csv").is_file():
            read_sections(directory / "sections.csv", courses, index, calendar, smap, problems)
    else:
        problems.append(
            f"courses.csv: file not found in {directory} - create it with a header row "
            "such as 'code,title,units,department,level,offered_terms'"
        )
    raw["courses"] = courses
    raw["programs"] = _programs(directory, head.get("program_order"), smap, problems)
    versions = _versions(directory, smap, problems)
    if versions:
        raw["program_versions"] = versions
    raw["policies"] = _policies(directory, smap, problems)
    documents: list[dict[str, Any]] = []
    for path in _ordered(
        directory / "documents", ".md", head.get("document_order"), "document_order", problems
    ):
        doc = read_document(path, len(documents), smap, problems)
        if doc is not None:
            documents.append(doc)
    raw["documents"] = documents
    return raw, smap, problems

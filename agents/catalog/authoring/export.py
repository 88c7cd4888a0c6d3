"""Writing a catalog as a catalog directory: the inverse of ``build_catalog``.

Used to migrate an existing catalog JSON to files a registrar keeps. Every value is written
so that building the directory gives back the same catalog; a value the layout cannot hold
(document text that opens with a blank line, an attribute containing ';') is reported
instead of being changed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agents.catalog.authoring.build import catalog_json, prereq_text
from agents.catalog.authoring.courses_csv import COURSE_COLUMNS, SECTION_COLUMNS
from agents.catalog.authoring.csvfiles import csv_text, format_number
from agents.catalog.authoring.documents_md import document_problems, document_text
from agents.catalog.authoring.layout import CATALOG_FIELDS, VERSIONS
from agents.catalog.authoring.yamlfiles import dump_yaml
from agents.catalog.codes import CodeIndex
from agents.catalog.courses import Course
from agents.catalog.model import Catalog
from agents.catalog.prereq import PrereqNode
from agents.errors import LayoutError
from agents.files import atomic_write_text


def _prereq_cell(node: PrereqNode | None, codes: CodeIndex) -> str:
    if node is None:
        return ""
    text = prereq_text(node, codes)
    if text is not None:
        return text
    # A tree no expression reads back to exactly: the cell holds its JSON.
    return json.dumps(node.model_dump(mode="json", exclude_none=True), separators=(",", ":"))


def _list_cell(items: list[str], where: str, problems: list[str]) -> str:
    for item in items:
        if ";" in item or item != item.strip() or not item:
            problems.append(
                f"{where}: {item!r} cannot be written in a ';'-separated list - it is empty, "
                "contains ';' or starts or ends with a space"
            )
    return ";".join(items)


def _course_row(
    c: Course, course_columns: list[str], codes: CodeIndex, problems: list[str]
) -> list[str]:
    at = f"course {c.code!r}"
    values = {
        "code": c.code,
        "title": c.title,
        "units": format_number(c.units),
        "department": c.department,
        "subject": c.subject or "",
        "level": str(c.level),
        "description": c.description,
        "attributes": _list_cell(c.attributes, f"{at} attributes", problems),
        "offered_terms": ";".join(c.offered.terms),
        "offered_years": c.offered.years,
        "offered_only": ";".join(c.offered.only_in),
        "offered_last": ";".join(c.offered.last_run),
        "open_to_programs": ";".join(c.open_to_programs),
        "closed_to_programs": ";".join(c.closed_to_programs),
        "prerequisites": _prereq_cell(c.prerequisites, codes),
        "corequisites": _prereq_cell(c.corequisites, codes),
        "antirequisites": _list_cell(c.antirequisites, f"{at} antirequisites", problems),
        "repeatable": "yes" if c.repeatable else "no",
        "grading": c.grading,
        "free_elective": "yes" if c.free_elective else "no",
        "restricted_to": ";".join(c.restricted_to),
        "status": c.status,
        "last_offered": c.last_offered or "",
    }
    return [values[column] for column in course_columns]


def _section_rows(c: Course, problems: list[str]) -> list[list[str]]:
    """One row per meeting (one row for a section without meetings); the instructor and
    capacity are repeated on each row of a section."""
    rows = []
    for s in c.sections:
        at = f"course {c.code!r} section {s.term}/{s.id}"
        if s.id != s.id.strip():
            problems.append(f"{at}: the section id starts or ends with a space")
        if s.instructor == "" or any(m.location == "" for m in s.meetings):
            # An empty cell means "not given" (None); empty text cannot be told apart.
            problems.append(f"{at}: an instructor or location is empty text - use null")
        people = [s.instructor or "", "" if s.capacity is None else str(s.capacity)]
        meetings = [[m.days, m.start, m.end, m.location or ""] for m in s.meetings]
        for meeting in meetings or [["", "", "", ""]]:
            rows.append([c.code, s.term, s.id, *meeting, *people])
    return rows


def layout_files(catalog: Catalog) -> dict[str, str]:
    """Every file of the directory for ``catalog``: relative path -> text. Raises
    ``LayoutError`` naming every value the layout cannot hold exactly."""
    problems: list[str] = []
    data = catalog_json(catalog)
    head: dict[str, Any] = {k: data[k] for k in CATALOG_FIELDS if k in data}
    head["program_order"] = [p.code for p in catalog.programs]
    head["document_order"] = [d.id for d in catalog.documents]
    files = {"institution.yaml": dump_yaml(head)}
    # The subject column only when a course gives one (others derive it from the code), and
    # offered_only only when a course runs in specific terms, restricted_to only when a
    # course is closed to some standings, free_elective only when some course is not one,
    # status and last_offered only when some course is not active or has a last run recorded,
    # offered_last only when some course has an offering history, the program restrictions
    # only when some course has one.
    used = {
        "subject": any(c.subject for c in catalog.courses),
        "restricted_to": any(c.restricted_to for c in catalog.courses),
        "offered_only": any(c.offered.only_in for c in catalog.courses),
        "offered_last": any(c.offered.last_run for c in catalog.courses),
        "open_to_programs": any(c.open_to_programs for c in catalog.courses),
        "closed_to_programs": any(c.closed_to_programs for c in catalog.courses),
        "free_elective": not all(c.free_elective for c in catalog.courses),
        "status": any(c.status != "active" for c in catalog.courses),
        "last_offered": any(c.last_offered for c in catalog.courses),
    }
    columns = [k for k in COURSE_COLUMNS if used.get(k, True)]
    course_rows = [_course_row(c, columns, catalog.code_index, problems) for c in catalog.courses]
    files["courses.csv"] = csv_text(columns, course_rows)
    section_rows = [row for c in catalog.courses for row in _section_rows(c, problems)]
    files["sections.csv"] = csv_text(SECTION_COLUMNS, section_rows)
    for program in data["programs"]:
        files[f"programs/{program['code']}.yaml"] = dump_yaml(program)
    for program in data.get("program_versions", []):
        name = f"{VERSIONS}/{program['code']}@{program['catalog_year']}.yaml"
        files[name] = dump_yaml(program)
    files["policies.yaml"] = dump_yaml(data["policies"])
    for doc in catalog.documents:
        problems.extend(document_problems(doc))
        files[f"documents/{doc.id}.md"] = document_text(doc)
    if problems:
        raise LayoutError("export", problems)
    return files


def export_catalog(catalog: Catalog, directory: str | Path, force: bool = False) -> list[Path]:
    """Write ``catalog`` as a catalog directory and return the files written.

    The directory must be new or empty unless ``force``; with ``force`` the layout's files
    are overwritten and any other ``programs/*.yaml``, ``program-versions/*.yaml`` and
    ``documents/*.md`` removed, so the directory builds to exactly this catalog."""
    root = Path(directory)
    if root.exists() and any(root.iterdir()) and not force:
        raise LayoutError(
            str(root), ["the directory is not empty - export to a new directory, or pass --force"]
        )
    files = layout_files(catalog)
    for folder in ("programs", "documents", *([VERSIONS] if catalog.program_versions else [])):
        (root / folder).mkdir(parents=True, exist_ok=True)
    if force:
        for folder, suffix in (("programs", ".yaml"), (VERSIONS, ".yaml"), ("documents", ".md")):
            for p in (root / folder).glob(f"*{suffix}"):
                if f"{folder}/{p.name}" not in files:
                    p.unlink()
    written = []
    for name, text in files.items():
        path = root / name
        atomic_write_text(path, text)
        written.append(path)
    return written

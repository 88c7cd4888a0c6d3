"""Catalog format migrations: version 1 (a fixed spring/summer/fall calendar) to version 2
(the calendar declared in the catalog).

A version 1 catalog becomes version 2 by writing that fixed calendar out: the semester
calendar (``SEMESTER_CALENDAR``) with spring ``S``, an optional summer ``U`` and fall ``F``,
academic years starting in the fall. Term codes, offerings and everything else keep their
values, so a migrated catalog plans exactly as before.
"""

from __future__ import annotations

import re
from typing import Any

from agents.catalog.terms import SEMESTER_CALENDAR

CURRENT_VERSION = 2

MIGRATE_HINT = (
    "catalog format version 1 is no longer read; upgrade the file with "
    "`advise catalog migrate {source} -o NEW.json` (it adds the semester calendar the "
    "version 1 format assumed and sets schema_version to 2)"
)


def catalog_version(raw: Any) -> Any:
    return raw.get("schema_version") if isinstance(raw, dict) else None


def migrate_raw(raw: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``raw`` (a catalog's JSON object) at the current version, and what was changed."""
    version = raw.get("schema_version")
    if version == CURRENT_VERSION:
        return raw, []
    if version != 1:
        raise ValueError(
            f"schema_version {version!r} is not a catalog format this program knows "
            f"(1 or {CURRENT_VERSION})"
        )
    out: dict[str, Any] = {}
    for key, value in raw.items():
        out[key] = CURRENT_VERSION if key == "schema_version" else value
        if key == "catalog_year" and "calendar" not in raw:
            out["calendar"] = semester_calendar_json()
    out.setdefault("calendar", semester_calendar_json())
    return out, [
        "schema_version 1 -> 2",
        "calendar: the semester calendar version 1 assumed (S spring, U summer "
        "(optional), F fall; academic years start in the fall); term codes unchanged",
    ]


def calendar_yaml(calendar: dict[str, Any]) -> str:
    """A calendar as institution.yaml writes it: one line per kind of term."""
    import yaml  # only for migrating a catalog directory: not on every catalog load

    lines = ["calendar:"]
    for key in ("system", "academic_year_starts"):
        lines.append(f"  {key}: {yaml.safe_dump(calendar[key]).splitlines()[0]}")
    lines.append("  terms:")
    for kind in calendar["terms"]:
        shown = {
            k: v for k, v in kind.items() if v not in ([], None) and (k, v) != ("regular", True)
        }
        lines.append(
            "    - "
            + yaml.safe_dump(shown, default_flow_style=True, width=200, sort_keys=False).strip()
        )
    return "\n".join(lines) + "\n"


def semester_calendar_json() -> dict[str, Any]:
    return SEMESTER_CALENDAR.model_dump(mode="json", exclude_defaults=False)


_VERSION_LINE = re.compile(r"^schema_version:\s*1\s*(#.*)?$", re.MULTILINE)


def migrate_institution_yaml(text: str) -> tuple[str, list[str]]:
    """institution.yaml of a version 1 catalog directory at version 2: the version line
    rewritten and the semester calendar appended; comments and every other line kept."""
    if not _VERSION_LINE.search(text):
        if re.search(r"^schema_version:\s*2\b", text, re.MULTILINE):
            return text, []
        raise ValueError("no 'schema_version: 1' line; is this a version 1 institution.yaml?")
    out = _VERSION_LINE.sub("schema_version: 2", text, count=1)
    notes = ["schema_version 1 -> 2"]
    if not re.search(r"^calendar:", out, re.MULTILINE):
        out = out.rstrip("\n") + "\n" + calendar_yaml(semester_calendar_json())
        notes.append("calendar: the semester calendar version 1 assumed; term codes unchanged")
    return out, notes

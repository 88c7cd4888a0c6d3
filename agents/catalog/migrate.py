"""Catalog format migrations, one version at a time up to ``CURRENT_VERSION``.

- Version 1 (a fixed spring/summer/fall calendar) to 2 (the calendar declared in the
  catalog): the fixed calendar is written out - the semester calendar
  (``SEMESTER_CALENDAR``) with spring ``S``, an optional summer ``U`` and fall ``F``,
  academic years starting in the fall.
- Version 2 to 3 (the catalog forms of issue #28: the institution's course code syntax,
  ``course_code_pattern``, and the forms after it): every new field is optional, so only
  the version changes. A version 2 catalog is still read as it is.

Term codes, offerings and everything else keep their values, so a migrated catalog plans
exactly as before.
"""

from __future__ import annotations

import re
from typing import Any

from agents.catalog.terms import SEMESTER_CALENDAR

CURRENT_VERSION = 3
KNOWN_VERSIONS = (1, 2, 3)

MIGRATE_HINT = (
    "catalog format version 1 is no longer read; upgrade the file with "
    "`advise catalog migrate {source} -o NEW.json` (it adds the semester calendar the "
    f"version 1 format assumed and sets schema_version to {CURRENT_VERSION})"
)


def catalog_version(raw: Any) -> Any:
    return raw.get("schema_version") if isinstance(raw, dict) else None


def migrate_raw(raw: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``raw`` (a catalog's JSON object) at the current version, and what was changed."""
    version = raw.get("schema_version")
    if version == CURRENT_VERSION:
        return raw, []
    if version not in KNOWN_VERSIONS or isinstance(version, bool):
        raise ValueError(
            f"schema_version {version!r} is not a catalog format this program knows "
            f"({', '.join(map(str, KNOWN_VERSIONS))})"
        )
    out: dict[str, Any] = {}
    notes: list[str] = []
    if version == 1:
        for key, value in raw.items():
            out[key] = value
            if key == "catalog_year" and "calendar" not in raw:
                out["calendar"] = semester_calendar_json()
        out.setdefault("calendar", semester_calendar_json())
        notes += ["schema_version 1 -> 2", _CALENDAR_NOTE]
    else:
        out = dict(raw)
    out["schema_version"] = CURRENT_VERSION
    return out, [*notes, _V3_NOTE]


_CALENDAR_NOTE = (
    "calendar: the semester calendar version 1 assumed (S spring, U summer (optional), F "
    "fall; academic years start in the fall); term codes unchanged"
)
_V3_NOTE = "schema_version 2 -> 3 (nothing else changes: the forms of version 3 are optional)"


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
    out = SEMESTER_CALENDAR.model_dump(mode="json", exclude_defaults=False)
    for kind in out["terms"]:  # fields newer than version 2 stay out of a migrated file
        if not kind["sessions"]:
            del kind["sessions"]
    return out


_VERSION_LINE = re.compile(r"^schema_version:[ \t]*([0-9]+)[ \t]*(#.*)?$", re.MULTILINE)


def migrate_institution_yaml(text: str) -> tuple[str, list[str]]:
    """institution.yaml of a version 1 or 2 catalog directory at the current version: the
    version line rewritten (and for version 1 the semester calendar appended); comments
    and every other line kept."""
    m = _VERSION_LINE.search(text)
    if m is None:
        raise ValueError(
            "no 'schema_version: 1' or 'schema_version: 2' line; is this the "
            "institution.yaml of a catalog directory?"
        )
    version = int(m.group(1))
    if version not in KNOWN_VERSIONS:
        raise ValueError(
            f"schema_version {version} is not a catalog format this program knows "
            f"({', '.join(map(str, KNOWN_VERSIONS))})"
        )
    if version == CURRENT_VERSION:
        return text, []
    comment = f" {m.group(2)}" if m.group(2) else ""
    out = text[: m.start()] + f"schema_version: {CURRENT_VERSION}{comment}" + text[m.end() :]
    notes = []
    if version == 1:
        notes.append("schema_version 1 -> 2")
        if not re.search(r"^calendar:", out, re.MULTILINE):
            out = out.rstrip("\n") + "\n" + calendar_yaml(semester_calendar_json())
            notes.append("calendar: the semester calendar version 1 assumed; term codes unchanged")
    return out, [*notes, _V3_NOTE]

"""Catalog years per program: which version of a program a student follows.

A catalog holds each program as published in its own catalog year (``Catalog.programs``)
and, in ``Catalog.program_versions``, the same programs as published in other years. A
version applies from its catalog year until the next version: a catalog that changed a
major in 2023 and again in 2026 holds two versions, and a student of the 2024-2025 catalog
follows the 2023 one.

A student follows, for each program, the catalog year named in
``StudentRecord.program_years`` (a minor added later may follow a later catalog than the
major) and otherwise the record's own ``catalog_year`` (the year they entered). The version
used is the latest one published in or before that year; when the catalog holds none that
early, the earliest version, and ``ProgramYear.note`` says so.

``dated_programs`` gives a catalog's program list with every program replaced by the
version the student follows; ``agents.catalog.overrides.effective_catalog`` applies it
before the advisor's exceptions, so the audit, the planner, the verifier and the critique
all read the student's own versions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agents.catalog.model import Catalog
from agents.catalog.programs import Program
from agents.catalog.student import StudentRecord

_YEAR = re.compile(r"^\s*(\d{4})")


def year_start(text: str) -> int | None:
    """The first calendar year of a catalog year ('2026-2027' -> 2026; None if unreadable)."""
    m = _YEAR.match(text)
    return int(m.group(1)) if m else None


@dataclass(frozen=True)
class ProgramYear:
    """The catalog year a student follows for one program, and the version used."""

    code: str
    requested: str  # the year the record names for the program (or its own catalog year)
    used: str  # the catalog year of the version the audit and planner use
    note: str | None = None  # why ``used`` differs from ``requested``


def versions(catalog: Catalog, code: str) -> list[Program]:
    """Every version of program ``code`` the catalog holds, earliest catalog year first
    (a version whose year cannot be read sorts last, in catalog order)."""
    found = [p for p in (*catalog.programs, *catalog.program_versions) if p.code == code]
    return sorted(
        found, key=lambda p: (year_start(p.catalog_year) is None, year_start(p.catalog_year) or 0)
    )


def requested_year(student: StudentRecord, code: str) -> str:
    """The catalog year ``student`` follows for ``code``."""
    return student.program_years.get(code, student.catalog_year)


def choose(catalog: Catalog, code: str, year: str) -> tuple[Program, str | None]:
    """The version of ``code`` in effect in catalog year ``year``, and a note when it is
    not a version of that very year (``code`` must be a catalog program)."""
    current = catalog.program(code)
    found = versions(catalog, code)
    exact = [p for p in found if p.catalog_year == year]
    if exact:
        return exact[0], None
    wanted = year_start(year)
    if wanted is None:
        return current, (
            f"catalog year {year!r} cannot be read; {code} follows the "
            f"{current.catalog_year} catalog"
        )
    dated = [p for p in found if (y := year_start(p.catalog_year)) is not None and y <= wanted]
    if dated:
        # Catalogs carry an unchanged program forward: the last version before the year.
        return dated[-1], None
    first = found[0]
    return first, (
        f"the catalog holds no version of {code} for the {year} catalog the student "
        f"follows; it follows the {first.catalog_year} catalog, the earliest it holds"
    )


def program_year(catalog: Catalog, student: StudentRecord, code: str) -> ProgramYear:
    """Which version of ``code`` ``student`` follows (``catalog`` may be the student's
    effective catalog: the versions are looked up in the catalog it was made from)."""
    base: Catalog = catalog.derived.get("overrides.base", catalog)
    year = requested_year(student, code)
    version, note = choose(base, code, year)
    return ProgramYear(code, year, version.catalog_year, note)


def year_notes(years: list[ProgramYear]) -> list[str]:
    """The notes of ``years``, one per catalog year asked and version used: a catalog that
    holds only the current programs gives one note for all of them, not one each."""
    groups: dict[tuple[str, str, bool], list[str]] = {}
    for y in years:
        if y.note is not None:
            readable = year_start(y.requested) is not None
            groups.setdefault((y.requested, y.used, readable), []).append(y.code)
    out = []
    for (requested, used, readable), codes in groups.items():
        names = ", ".join(codes)
        if not readable:
            out.append(
                f"catalog year {requested!r} cannot be read; {names} follow the {used} catalog"
            )
        else:
            out.append(
                f"the catalog holds no version of {names} for the {requested} catalog the "
                f"student follows; {'it follows' if len(codes) == 1 else 'they follow'} the "
                f"{used} catalog, the earliest it holds"
            )
    return out


def mixed_years(catalog: Catalog, years: list[ProgramYear]) -> str | None:
    """A sentence naming each program's catalog year when the student's programs follow
    more than one (the institution's own requirements included only when they differ)."""
    used = {y.used for y in years}
    if len(used) < 2:
        return None
    parts = [f"{y.code} the {y.used} catalog" for y in years]
    return f"the programs follow different catalog years: {', '.join(parts)}"


def dated_programs(catalog: Catalog, student: StudentRecord) -> list[Program] | None:
    """``catalog.programs`` with each program replaced by the version ``student``
    follows, or None when every program is already that version."""
    out: list[Program] = []
    changed = False
    for p in catalog.programs:
        version, _ = choose(catalog, p.code, requested_year(student, p.code))
        changed = changed or version is not p
        out.append(version)
    return out if changed else None


def years_key(catalog: Catalog, student: StudentRecord) -> tuple[tuple[str, str], ...]:
    """What the choice of versions depends on, for memo keys: the catalog year asked for
    each program that has versions to choose between."""
    multi = {p.code for p in catalog.program_versions}
    if not multi:
        return ()
    return tuple(sorted((code, requested_year(student, code)) for code in multi))


def version_problems(catalog: Catalog) -> list[str]:
    """Problems of ``program_versions``: a code not in ``programs``, a year already held."""
    problems: list[str] = []
    seen = {(p.code, p.catalog_year) for p in catalog.programs}
    for i, p in enumerate(catalog.program_versions):
        at = f"$.program_versions[{i}] ({p.code} {p.catalog_year})"
        if p.code not in catalog.program_by_code:
            problems.append(
                f"{at}: program {p.code!r} is not in programs; a catalog lists every program "
                "it holds in programs (the version of its own year, or the latest one)"
            )
        if (p.code, p.catalog_year) in seen:
            problems.append(
                f"{at}: {p.code} already has a {p.catalog_year} version; give each version "
                "its own catalog_year"
            )
        seen.add((p.code, p.catalog_year))
    return problems

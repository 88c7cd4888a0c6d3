"""Reading a local copy of circles' processed data into typed records.

The source is a directory holding ``coursesProcessed.json``, ``conditionsProcessed.json``,
``programsProcessed.json`` and ``specialisationsProcessed.json`` as the repository
devsoc-unsw/circles publishes them under ``backend/data/final_data/``. Only facts are read
(codes, titles, units of credit, terms, levels, exclusions, condition expressions, program
and specialisation structure); descriptions, overviews and notes are read only to count
them, never copied. A file that is missing, not JSON, or not shaped as expected raises
``SourceError`` naming the file, the JSON path and the value.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.unsw.errors import SourceError

FILES = {
    "courses": "coursesProcessed.json",
    "conditions": "conditionsProcessed.json",
    "programs": "programsProcessed.json",
    "specialisations": "specialisationsProcessed.json",
}


@dataclass(frozen=True)
class SourceCourse:
    """One course as circles lists it."""

    code: str
    title: str
    uoc: int
    level: int
    study_level: str
    terms: tuple[str, ...]
    exclusions: tuple[str, ...]
    equivalents: tuple[str, ...]
    faculty: str
    school: str
    campus: str
    gen_ed: bool


@dataclass(frozen=True)
class SourceCondition:
    """A course's enrolment conditions: circles' processed expression and whether the
    handbook gave text, a note or a warning beside it (their words are not kept)."""

    processed: str
    has_text: bool
    has_note: bool
    has_warning: bool


@dataclass(frozen=True)
class Item:
    """One entry of a requirement's course list: its key ('COMP1511', 'MATH1131 or
    MATH1141', 'COMP3', '....1', 'any course', ...)."""

    key: str


@dataclass(frozen=True)
class Block:
    """A requirement block of a program or a specialisation."""

    type: str  # core_courses, prescribed_electives, gened, limit_rule, info_rule, other
    title: str
    credits: int | None
    items: tuple[Item, ...]
    levels: tuple[int, ...]
    has_notes: bool


@dataclass(frozen=True)
class SpecGroup:
    """A group of specialisations a program offers (e.g. its majors)."""

    kind: str  # majors, minors, honours
    name: str
    optional: bool
    specs: tuple[str, ...]


@dataclass(frozen=True)
class SourceProgram:
    code: str
    title: str
    uoc: int
    duration: int
    faculty: str
    blocks: tuple[Block, ...]
    groups: tuple[SpecGroup, ...]


@dataclass(frozen=True)
class SourceSpec:
    code: str
    name: str
    type: str  # major, minor, honours
    uoc: int
    programs: tuple[str, ...]
    blocks: tuple[Block, ...]
    constraints: int  # course constraints (text only; counted, not converted)


@dataclass(frozen=True)
class Source:
    """Everything read from one copy of the data."""

    directory: Path
    courses: dict[str, SourceCourse]
    conditions: dict[str, SourceCondition]
    programs: dict[str, SourceProgram]
    specs: dict[str, SourceSpec]


def read_source(directory: Path) -> Source:
    """Read the four files of ``directory``; raises ``SourceError`` on a bad file."""
    path = {key: str(directory / name) for key, name in FILES.items()}
    raw = {key: _load(directory, name) for key, name in FILES.items()}

    def items(key: str) -> list[tuple[str, dict[str, Any]]]:
        return _items(path[key], raw[key])

    return Source(
        directory=directory,
        courses={k: _course(path["courses"], k, v) for k, v in items("courses")},
        conditions={k: _condition(path["conditions"], k, v) for k, v in items("conditions")},
        programs={k: _program(path["programs"], k, v) for k, v in items("programs")},
        specs={k: _spec(path["specialisations"], k, v) for k, v in items("specialisations")},
    )


def _load(directory: Path, name: str) -> Any:
    path = directory / name
    if not path.is_file():
        raise SourceError(
            str(path), "$", None,
            f"file not found; export it from circles' backend/data/final_data/{name}",
        )  # fmt: skip
    try:
        return json.loads(path.read_text("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SourceError(str(path), "$", str(exc), "the file is not UTF-8 JSON") from None


def _items(file: str, data: Any) -> list[tuple[str, dict[str, Any]]]:
    if not isinstance(data, dict):
        raise SourceError(file, "$", type(data).__name__, "expected an object keyed by code")
    out = []
    for code, value in sorted(data.items()):
        if not isinstance(value, dict):
            raise SourceError(file, f"$[{code!r}]", value, "expected an object")
        out.append((code, value))
    return out


_KIND = {int: "a whole number", str: "text", list: "a list", dict: "an object"}


def _get(
    file: str, at: str, obj: dict[str, Any], field: str, kind: type, default: Any = ...
) -> Any:
    """``obj[field]`` checked to be of ``kind`` (``default`` when absent, if given)."""
    if field not in obj or obj[field] is None:
        if default is not ...:
            return default
        raise SourceError(file, f"{at}.{field}", None, f"missing; expected {_KIND[kind]}")
    value = obj[field]
    if (kind is int and isinstance(value, bool)) or not isinstance(value, kind):
        raise SourceError(file, f"{at}.{field}", value, f"expected {_KIND[kind]}")
    return value


def _codes(file: str, at: str, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, dict):
        return tuple(sorted(str(k) for k in value))
    if isinstance(value, list):
        return tuple(sorted(str(k) for k in value))
    raise SourceError(file, at, value, "expected an object or a list of codes")


def _course(file: str, code: str, v: dict[str, Any]) -> SourceCourse:
    at = f"$[{code!r}]"
    terms = _get(file, at, v, "terms", list, [])
    if not all(isinstance(t, str) for t in terms):
        raise SourceError(file, f"{at}.terms", terms, "expected a list of term names")
    return SourceCourse(
        code=code,
        title=_get(file, at, v, "title", str).strip(),
        uoc=_get(file, at, v, "UOC", int),
        level=_get(file, at, v, "level", int),
        study_level=_get(file, at, v, "study_level", str),
        terms=tuple(terms),
        exclusions=_codes(file, f"{at}.exclusions", v.get("exclusions")),
        equivalents=_codes(file, f"{at}.equivalents", v.get("equivalents")),
        faculty=_get(file, at, v, "faculty", str, ""),
        school=_get(file, at, v, "school", str, ""),
        campus=_get(file, at, v, "campus", str, ""),
        gen_ed=bool(_get(file, at, v, "gen_ed", int, 0)),
    )


def _condition(file: str, code: str, v: dict[str, Any]) -> SourceCondition:
    at = f"$[{code!r}]"
    return SourceCondition(
        processed=_get(file, at, v, "processed", str, "").strip(),
        has_text=bool(_get(file, at, v, "original", str, "").strip()),
        has_note=bool(_get(file, at, v, "handbook_note", str, "").strip()),
        has_warning=bool(v.get("warning")),
    )


def _block(file: str, at: str, v: Any, type_: str | None = None) -> Block:
    if not isinstance(v, dict):
        raise SourceError(file, at, v, "expected a requirement object")
    courses = v.get("courses")
    if courses is not None and not isinstance(courses, dict):
        raise SourceError(file, f"{at}.courses", courses, "expected an object keyed by course")
    credits = v.get("credits_to_complete")
    if credits is not None and (isinstance(credits, bool) or not isinstance(credits, int)):
        raise SourceError(file, f"{at}.credits_to_complete", credits, "expected a whole number")
    levels = v.get("levels") or []
    if not all(isinstance(x, int) for x in levels):
        raise SourceError(file, f"{at}.levels", levels, "expected a list of levels")
    if type_ is None:
        type_ = "core_courses" if v.get("core") else "prescribed_electives"
    return Block(
        type=type_,
        title=str(v.get("title") or "").strip(),
        credits=credits,
        items=tuple(Item(str(k).strip()) for k in (courses or {})),
        levels=tuple(levels),
        has_notes=bool(str(v.get("notes") or "").strip()),
    )


def _program(file: str, code: str, v: dict[str, Any]) -> SourceProgram:
    at = f"$[{code!r}]"
    comps = _get(file, at, v, "components", dict)
    blocks = []
    for i, b in enumerate(comps.get("non_spec_data") or []):
        where = f"{at}.components.non_spec_data[{i}]"
        kind = b.get("type") if isinstance(b, dict) else None
        if not isinstance(kind, str):
            raise SourceError(file, f"{where}.type", kind, "expected a requirement type")
        blocks.append(_block(file, where, b, kind))
    groups = []
    for kind, by_name in sorted((comps.get("spec_data") or {}).items()):
        for name, g in sorted(by_name.items()):
            where = f"{at}.components.spec_data.{kind}[{name!r}]"
            if not isinstance(g, dict):
                raise SourceError(file, where, g, "expected a specialisation group")
            specs = g.get("specs") or {}
            groups.append(
                SpecGroup(kind, name, bool(g.get("is_optional")), _codes(file, where, specs))
            )
    return SourceProgram(
        code=code,
        title=_get(file, at, v, "title", str).strip(),
        uoc=_get(file, at, v, "UOC", int),
        duration=_get(file, at, v, "duration", int),
        faculty=_get(file, at, v, "faculty", str, ""),
        blocks=tuple(blocks),
        groups=tuple(groups),
    )


def _spec(file: str, code: str, v: dict[str, Any]) -> SourceSpec:
    at = f"$[{code!r}]"
    curriculum = _get(file, at, v, "curriculum", list, [])
    return SourceSpec(
        code=code,
        name=_get(file, at, v, "name", str).strip(),
        type=_get(file, at, v, "type", str),
        uoc=_get(file, at, v, "UOC", int),
        programs=_codes(file, f"{at}.programs", v.get("programs")),
        blocks=tuple(_block(file, f"{at}.curriculum[{i}]", b) for i, b in enumerate(curriculum)),
        constraints=len(v.get("course_constraints") or []),
    )

"""Catalog loading: schema errors, reference errors, cycles, the published schema, the CLI."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agents.catalog import catalog_schema, load_catalog, parse_catalog
from agents.errors import CatalogError, CatalogReferenceError, CatalogSchemaError
from pipeline.cli import main
from tests.catalog_base import base_catalog

Mutation = Callable[[dict[str, Any]], None]


def _set(path: str, value: Any) -> Mutation:
    def apply(d: dict[str, Any]) -> None:
        *parents, last = [int(p) if p.isdigit() else p for p in path.split("/")]
        target: Any = d
        for p in parents:
            target = target[p]
        target[last] = value

    return apply


def _drop(path: str) -> Mutation:
    def apply(d: dict[str, Any]) -> None:
        *parents, last = [int(p) if p.isdigit() else p for p in path.split("/")]
        target: Any = d
        for p in parents:
            target = target[p]
        del target[last]

    return apply


def _duplicate_first_course(d: dict[str, Any]) -> None:
    d["courses"].append(dict(d["courses"][0]))


BROKEN: list[tuple[str, Mutation, type[CatalogError], str]] = [
    (
        "unknown prerequisite course",
        _set("courses/1/prerequisites", "15-999"),
        CatalogReferenceError,
        "$.courses[1] (15-112).prerequisites: unknown course '15-999'",
    ),
    (
        "prerequisite cycle",
        _set("courses/0/prerequisites", "15-122"),
        CatalogReferenceError,
        "prerequisite cycle: 15-110 -> 15-122 -> 15-112 -> 15-110",
    ),
    (
        "bad grade",
        _set("courses/2/prerequisites/all/0/min_grade", "E"),
        CatalogReferenceError,
        "$.courses[2] (15-122).prerequisites: unknown grade 'E'; the grade scale has A, A-, B+, "
        "B, B-, C+, C, C-, D+, D, F, R, P, NP, W, I, TR",
    ),
    (
        "missing policy document section",
        _set("policies/0/citation/section", "overload"),
        CatalogReferenceError,
        "$.policies[0] (MINOR-SHARE).citation.section: document 'academic-policies' has no "
        "section 'overload'; it has minors",
    ),
    (
        "wrong type",
        _set("courses/0/units", "nine"),
        CatalogSchemaError,
        "$.courses[0].units: expected a number, got 'nine'",
    ),
    (
        "negative units",
        _set("courses/0/units", -3),
        CatalogSchemaError,
        "$.courses[0].units: expected a number > 0, got -3",
    ),
    (
        "missing field",
        _drop("courses/0/title"),
        CatalogSchemaError,
        "$.courses[0].title: required field missing; add 'title' (course title)",
    ),
    (
        "unknown field",
        _set("courses/0/credits", 9),
        CatalogSchemaError,
        "$.courses[0]: unknown field 'credits'; allowed fields: antirequisites, attributes, "
        "closed_to_programs, code, corequisites, department, description, free_elective, "
        "grading, last_offered, level, offered, open_to_programs, prerequisites, repeatable, "
        "restricted_to, sections, status, subject, title, units",
    ),
    (
        "unknown season",
        _set("courses/0/offered/terms", ["winter"]),
        CatalogReferenceError,
        "$.courses[0] (15-110).offered.terms: 'winter' is not a kind of term of the catalog's "
        "calendar; use a code, name or alias of S (Spring), U (Summer), F (Fall)",
    ),
    (
        "prerequisite syntax error",
        _set("courses/1/prerequisites", "15-110 and"),
        CatalogSchemaError,
        "$.courses[1].prerequisites: prerequisite syntax error at column 11: expression ends "
        "early; expected a course code, '(' or a condition (got '15-110 and')",
    ),
    (
        "unknown requirement course",
        _set("programs/0/requirement/children/0/course", "15-999"),
        CatalogReferenceError,
        "$.programs[0] (CS-MIN).requirement.children[0]: unknown course '15-999'",
    ),
    (
        "duplicate course",
        _duplicate_first_course,
        CatalogReferenceError,
        "duplicate course code '15-110'",
    ),
    (
        "section in a term not offered",
        _set("courses/2/sections", [{"term": "F2027", "id": "A"}]),
        CatalogReferenceError,
        "$.courses[2] (15-122).sections[0]: section 'A' is in F2027, a term the course is not "
        "offered (offered: spring, every year)",
    ),
    (
        "pattern matching nothing",
        _set("programs/0/requirement/children/1/patterns", ["99-9xx"]),
        CatalogReferenceError,
        "$.programs[0] (CS-MIN).requirement.children[1]: pattern '99-9xx' matches no course",
    ),
    (
        "bad requirement kind",
        _set("programs/0/requirement/children/0/kind", "courses"),
        CatalogSchemaError,
        "$.programs[0].requirement.children[0].kind: expected one of 'all_of', 'course', "
        "'course_set', 'n_of', got 'courses'",
    ),
    (
        "bad meeting time",
        _set("courses/0/sections/0/meetings/0/start", "9am"),
        CatalogSchemaError,
        "$.courses[0].sections[0].meetings[0].start: expected text matching "
        "'^([01][0-9]|2[0-3]):[0-5][0-9]$', got '9am'",
    ),
    (
        "prerequisite tree with unknown field",
        _set("courses/2/prerequisites", {"all": [{"course": "15-112", "grade": "C"}]}),
        CatalogSchemaError,
        "$.courses[2].prerequisites.all[0]: unknown field 'grade'; allowed fields: concurrent, "
        "course, min_grade",
    ),
    (
        "prerequisite of the wrong type",
        _set("courses/2/prerequisites", 12),
        CatalogSchemaError,
        "$.courses[2].prerequisites: expected a string, an object or null, got 12",
    ),
    (
        "unknown sharing rule",
        _set("programs/0/sharing/0/rule", "SHARE-TWO"),
        CatalogReferenceError,
        "$.programs[0] (CS-MIN).sharing[0]: unknown policy rule 'SHARE-TWO'",
    ),
    (
        "unknown program document",
        _set("programs/0/document", "program-cs"),
        CatalogReferenceError,
        "$.programs[0] (CS-MIN).document: unknown document 'program-cs'",
    ),
]


def test_base_catalog_is_valid() -> None:
    cat = parse_catalog(base_catalog(), "base.json")
    assert [c.code for c in cat.courses] == ["15-110", "15-112", "15-122"]


@pytest.mark.parametrize(
    ("mutate", "error_type", "message"),
    [case[1:] for case in BROKEN],
    ids=[case[0] for case in BROKEN],
)
def test_broken_catalog_reports_exact_problem(
    mutate: Mutation, error_type: type[CatalogError], message: str
) -> None:
    raw = base_catalog()
    mutate(raw)
    with pytest.raises(CatalogError) as info:
        parse_catalog(raw, "broken.json")
    assert type(info.value) is error_type
    assert info.value.problems == [message]
    assert str(info.value) == f"broken.json: 1 problem\n  - {message}"


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    bad = tmp_path / "cat.json"
    bad.write_text('{"schema_version": 1,\n "courses": [}\n', encoding="utf-8")
    with pytest.raises(CatalogSchemaError) as info:
        load_catalog(bad)
    assert info.value.problems == ["not valid JSON at line 2 column 14: Expecting value"]
    assert info.value.source == str(bad.resolve())


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CatalogError) as info:
        load_catalog(tmp_path / "nope.json")
    assert str(info.value) == (
        f"{tmp_path / 'nope.json'}: 1 problem\n"
        "  - file not found; pass the path of a catalog JSON file"
    )


def test_published_schema_matches_models() -> None:
    published = json.loads(
        (Path(__file__).parent.parent / "agents" / "schemas" / "catalog.schema.json").read_text()
    )
    assert published == json.loads(json.dumps(catalog_schema()))


def test_cli_validate_broken_file_exits_nonzero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = base_catalog()
    raw["courses"][1]["prerequisites"] = "15-999"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    assert main(["catalog", "validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"error: {path.resolve()}: 1 problem\n"
        "  - $.courses[1] (15-112).prerequisites: unknown course '15-999'\n"
    )


def test_cli_validate_good_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "good.json"
    path.write_text(json.dumps(base_catalog()), encoding="utf-8")
    assert main(["catalog", "validate", str(path)]) == 0
    assert capsys.readouterr().out == (
        f"{path}: ok (3 courses, 1 programs, 1 policy rules, 2 documents)\n"
    )

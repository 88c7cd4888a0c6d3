"""``advise catalog programs``, ``course`` and ``search``, and the catalog every catalog
subcommand reads: ``PATH`` or ``--catalog PATH``, never two different ones."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from pipeline.cli import build_parser, main
from tests.catalog_base import base_catalog

BROWSE = ("programs", "course", "search")


@pytest.fixture(autouse=True)
def _index_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADVISE_INDEX_DIR", str(tmp_path / "index"))


def browse_catalog() -> dict[str, Any]:
    """The test catalog in credits, with a course that shows every field and a course
    offered in one term only."""
    raw = base_catalog()
    raw["institution"]["unit_name"] = "credits"
    raw["courses"].append(
        {
            "code": "MATH 301",
            "title": "Topics in Analysis",
            "units": 1,
            "department": "Mathematics",
            "level": 300,
            "attributes": ["QR"],
            "description": "Sequences, series and limits.",
            "offered": {"terms": ["fall"], "years": "odd"},
            "prerequisites": "15-112[C] or standing(junior)",
            "corequisites": "15-122",
            "antirequisites": ["15-110"],
            "repeatable": True,
            "restricted_to": ["junior", "senior"],
            "grading": "pass_fail_only",
            "sections": [
                {"term": "F2029", "id": "1"},
                {
                    "term": "F2027",
                    "id": "2",
                    "meetings": [
                        {"days": "TR", "start": "10:00", "end": "11:20", "location": "Hall 1"},
                        {"days": "F", "start": "10:00", "end": "10:50"},
                    ],
                    "instructor": "A. Lee",
                    "capacity": 30,
                },
            ],
        }
    )
    raw["courses"][2]["offered"]["only_in"] = ["S2027"]
    program = raw["programs"][0]
    program["aliases"] = ["cs minor", "minor in computer science"]
    program["requirement"]["children"].append(
        {
            "kind": "course_set",
            "id": "math",
            "title": "Upper-level mathematics",
            "subjects": ["MATH"],
            "min_level": 300,
            "min_courses": 1,
        }
    )
    return raw


@pytest.fixture
def cat(tmp_path: Path) -> str:
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(browse_catalog()), encoding="utf-8")
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- programs


def test_programs_prints_a_table(cat: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "catalog", "programs", cat)
    assert code == 0
    assert out.splitlines() == [
        "Test College programs, catalog 2026-2027",
        "┏━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳"
        "━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓",
        "┃ code   ┃ name                   ┃ kind  ┃ aliases                             ┃"
        " catalog year ┃ total credits ┃",
        "┡━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇"
        "━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩",
        "│ CS-MIN │ Computer Science minor │ minor │ cs minor, minor in computer science │"
        " 2026-2027    │             - │",
        "└────────┴────────────────────────┴───────┴─────────────────────────────────────┴"
        "──────────────┴───────────────┘",
    ]


def test_programs_json_on_the_sample_names_units_per_program(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "catalog", "programs", "--json")
    rows = json.loads(out)
    assert code == 0
    assert [r["code"] for r in rows][:3] == ["CS-BS", "IS-BS", "MATH-BS"]
    assert rows[-1] == {
        "aliases": ["business minor", "minor in business", "business administration minor"],
        "catalog_year": "2026-2027",
        "code": "BUS-MIN",
        "kind": "minor",
        "name": "Business minor",
        "total_units": None,
    }
    assert rows[0]["total_units"] == 360


# --------------------------------------------------------------------------- course

MATH_301 = [
    "MATH 301 Topics in Analysis",
    "  units           1 credit",
    "  level           300",
    "  department      Mathematics (subject MATH)",
    "  attributes      QR",
    "  grading         pass fail only",
    "  repeatable      yes",
    "  open to         junior, senior",
    "  prerequisites   15-112[C] or standing(junior)",
    "  corequisites    15-122",
    "  antirequisites  15-110",
    "  offered         Fall; odd years",
    "  description     Sequences, series and limits.",
    "  sections",
    "    Fall 2027 2: TR 10:00-11:20 Hall 1; F 10:00-10:50 (A. Lee, 30 seats)",
    "    Fall 2029 1: no meetings",
    "  used by",
    "    CS-MIN  math - Upper-level mathematics (course set)",
]
IMPERATIVE = [
    "15-122 Imperative Computation",
    "  units           12 credits",
    "  level           100",
    "  department      CS (subject 15)",
    "  attributes      none",
    "  grading         graded",
    "  repeatable      no",
    "  open to         every class standing",
    "  prerequisites   (15-112[C])",
    "  corequisites    none",
    "  antirequisites  none",
    "  offered         Spring; only in Spring 2027",
    "  description     none",
    "  sections        none scheduled",
    "  used by",
    "    CS-MIN  elective (course set)",
]


@pytest.mark.parametrize(
    ("code", "lines"),
    [("MATH 301", MATH_301), ("math 301", MATH_301), (" 15-122 ", IMPERATIVE)],
)
def test_course_prints_every_field(
    cat: str, capsys: pytest.CaptureFixture[str], code: str, lines: list[str]
) -> None:
    status, out, _ = run(capsys, "catalog", "course", code, cat)
    assert status == 0
    assert out.splitlines() == lines


def test_course_json(cat: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "catalog", "course", "15-112", "--catalog", cat, "--json")
    assert status == 0
    assert json.loads(out) == {
        "antirequisites": [],
        "attributes": [],
        "code": "15-112",
        "corequisites": None,
        "department": "CS",
        "description": "",
        "grading": "graded",
        "level": 100,
        "offered": {"only_in": [], "terms": ["S", "F"], "years": "every"},
        "prerequisites": "15-110",
        "repeatable": False,
        "restricted_to": [],
        "sections": [],
        "subject": "15",
        "title": "Fundamentals of Programming",
        "units": 12,
        "units_text": "12 credits",
        "used_by": [
            {"how": "named", "program": "CS-MIN", "requirement": "intro", "title": ""},
            {"how": "course set", "program": "CS-MIN", "requirement": "elective", "title": ""},
        ],
    }


def test_unknown_course_exits_2_with_close_codes(
    cat: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, "catalog", "course", "15-11", cat)
    assert (status, out) == (2, "")
    assert err == (
        "error: unknown course '15-11'; did you mean 15-110, 15-112, 15-122? "
        "find courses with 'advise catalog search TEXT'\n"
    )


# --------------------------------------------------------------------------- search


def test_search_json_ranks_courses_and_document_sections(
    cat: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "catalog", "search", "programming minors", cat, "--json")
    assert status == 0
    found = json.loads(out)
    assert found["query"] == "programming minors"
    assert found["courses"] == [
        {"code": "15-112", "score": 1.0, "title": "Fundamentals of Programming"}
    ]
    assert [(d["document"], d["section"], d["program"]) for d in found["documents"]] == [
        ("program-cs-min", "overview", "CS-MIN"),
        ("academic-policies", "minors", None),
    ]
    assert found["documents"][0]["score"] > found["documents"][1]["score"] > 0


def test_search_limit_keeps_the_best_of_each_kind(
    cat: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(capsys, "catalog", "search", "minors", "--catalog", cat, "--limit", "1",
                    "--json")  # fmt: skip
    assert [d["section"] for d in json.loads(out)["documents"]] == ["overview"]


def test_search_prints_tables_and_says_when_nothing_matches(
    cat: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "catalog", "search", "programming", cat)
    assert status == 0
    assert out.splitlines() == [
        "courses for 'programming' (score: 1 = best course)",
        "┏━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━┓",
        "┃ code   ┃ title                       ┃  score ┃",
        "┡━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━┩",
        "│ 15-112 │ Fundamentals of Programming │ 1.0000 │",
        "└────────┴─────────────────────────────┴────────┘",
        "no document section matches 'programming'",
    ]
    _, out, _ = run(capsys, "catalog", "search", "zebra", cat)
    assert out.splitlines() == [
        "no course matches 'zebra'",
        "no document section matches 'zebra'",
    ]


# --------------------------------------------------------------------------- PATH or --catalog


@pytest.mark.parametrize(
    "argv",
    [
        ["catalog", "validate", "{cat}"],
        ["catalog", "validate", "--catalog", "{cat}"],
        ["catalog", "validate", "{cat}", "--catalog", "{cat}"],
    ],
)
def test_validate_reads_path_or_catalog_option(
    cat: str, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    status, out, _ = run(capsys, *(a.format(cat=cat) for a in argv))
    assert status == 0
    assert out == f"{cat}: ok (4 courses, 1 programs, 1 policy rules, 2 documents)\n"


def _courses(found: Any) -> Any:
    return found["courses"]


@pytest.mark.parametrize(
    ("argv", "read", "expected"),
    [
        (["show", "{cat}", "--json"], _courses, 4),
        (["show", "--json", "--catalog", "{cat}"], _courses, 4),
        (["programs", "--json", "{cat}"], lambda rows: [r["code"] for r in rows], ["CS-MIN"]),
        (["programs", "--catalog", "{cat}", "--json"], lambda rows: len(rows), 1),
        (["course", "15-110", "{cat}", "--json"], lambda c: c["title"], "Principles of Computing"),
        (["search", "computing", "--catalog", "{cat}", "--json"],
         lambda f: [c["code"] for c in f["courses"]], ["15-110", "15-122"]),
    ],
)  # fmt: skip
def test_every_reader_takes_path_or_catalog_option(
    cat: str, capsys: pytest.CaptureFixture[str], argv: list[str], read: Any, expected: Any
) -> None:
    status, out, _ = run(capsys, "catalog", *(a.format(cat=cat) for a in argv))
    assert status == 0
    assert read(json.loads(out)) == expected


def test_export_and_build_take_catalog_option(
    cat: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = str(tmp_path / "dir")
    status, out, _ = run(capsys, "catalog", "export", "--catalog", cat, directory)
    assert status == 0
    assert out.startswith(f"{directory}: wrote ") and out.endswith(f" files from {cat}\n")
    built = str(tmp_path / "built.json")
    status, out, _ = run(capsys, "catalog", "build", "--catalog", directory, "-o", built)
    assert status == 0
    assert out == (
        f"{built}: built from {directory} (4 courses, 1 programs, 1 policy rules, 2 documents)\n"
    )
    status, out, _ = run(capsys, "catalog", "course", "math 301", "--catalog", directory)
    assert (status, out.splitlines()) == (0, MATH_301)


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["validate", "a.json", "--catalog", "b.json"], "validate"),
        (["show", "--catalog", "b.json", "a.json"], "show"),
        (["programs", "a.json", "--catalog", "b.json"], "programs"),
        (["course", "15-112", "a.json", "--catalog", "b.json"], "course"),
        (["search", "minors", "a.json", "--catalog", "b.json"], "search"),
        (["build", "a.json", "--catalog", "b.json", "-o", "x.json"], "build"),
        (["export", "a.json", "dir", "--catalog", "b.json"], "export"),
        (["migrate", "a.json", "--catalog", "b.json", "-o", "x.json"], "migrate"),
    ],
)
def test_two_different_catalogs_are_a_usage_error(
    capsys: pytest.CaptureFixture[str], argv: list[str], command: str
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["catalog", *argv])
    assert info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"advise catalog {command}: error: the catalog is given twice, as PATH 'a.json' and "
        "as --catalog 'b.json'; give one of them"
    )


@pytest.mark.parametrize(
    "argv", [["build", "-o", "x.json"], ["export", "dir"], ["migrate", "-o", "x.json"]]
)
def test_commands_that_write_need_a_catalog(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["catalog", *argv])
    assert info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"advise catalog {argv[0]}: error: no catalog given: pass PATH or --catalog PATH"
    )


# --------------------------------------------------------------------------- help


def _help(command: str) -> str:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    catalog = sub.choices["catalog"]  # type: ignore[attr-defined]
    csub = next(a for a in catalog._actions if a.dest == "catalog_cmd")
    return str(csub.choices[command].format_help())


@pytest.mark.parametrize("command", BROWSE)
def test_browse_help_examples_run_on_the_sample_catalog(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _help(command)
    examples = [
        line.strip() for line in text.split("examples:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    ]
    assert examples and all(e.startswith(f"advise catalog {command}") for e in examples)
    for example in examples:
        if "my-catalog" not in example:
            assert main(shlex.split(example)[1:]) == 0, example
    capsys.readouterr()

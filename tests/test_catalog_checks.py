"""Catalog checks that warn about what cannot work (``agents.catalog.checks``).

For each check a small catalog that triggers it beside one that does not (each pair differs
in one value, at the edge); ``advise catalog validate`` and ``build`` list the warnings
after their line (on stderr, exit code 0) and in ``--json``, a catalog directory's by file
and line; the sample catalogs give none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.catalog import load_catalog, parse_catalog
from agents.catalog.authoring import export_catalog
from agents.catalog.checks import CatalogWarning, catalog_warnings
from pipeline.cli import main
from tests.catalog_base import base_catalog

ROOT = Path(__file__).resolve().parents[1]
SEMESTERS = 12  # the default horizon of a semester catalog: six academic years
ELECTIVE = "$.programs[0].requirement.children[1]"


def _warnings(raw: dict[str, Any], check: str | None = None) -> list[CatalogWarning]:
    found = catalog_warnings(parse_catalog(raw), SEMESTERS)
    return [w for w in found if check is None or w.check == check]


def _texts(raw: dict[str, Any], check: str | None = None) -> list[str]:
    return [w.text() for w in _warnings(raw, check)]


def _elective(**fields: Any) -> dict[str, Any]:
    """The base catalog (CS-MIN: 15-112, then a set of 15-1xx courses: 15-110 with 10
    units, 15-112 and 15-122 with 12) with the set's fields replaced."""
    raw = base_catalog()
    node = raw["programs"][0]["requirement"]["children"][1]
    node.pop("min_courses")
    node.update(fields)
    return raw


def _course(code: str, **fields: Any) -> dict[str, Any]:
    return {"code": code, "title": f"Course {code}", "units": 9, "department": "X",
            "level": 100, "offered": {"terms": ["fall", "spring"]}, **fields}  # fmt: skip


# --------------------------------------------------------------------------- program units


def test_a_set_needing_more_courses_than_match_warns() -> None:
    assert _texts(_elective(min_courses=4)) == [
        "$.programs[0] (CS-MIN).requirement.children[1].min_courses: requirement 'elective': "
        "it needs 4 courses but at most 3 courses can count toward it (running courses it can "
        "count: 15-110, 15-112, 15-122) - lower min_courses, widen the set, or offer the "
        "courses it names"
    ]
    assert _warnings(_elective(min_courses=2)) == []


def test_a_group_counts_each_course_once() -> None:
    # 15-112 is required on its own, so only two 15-1xx courses are left for the set.
    assert _texts(_elective(min_courses=3)) == [
        "$.programs[0] (CS-MIN).requirement: requirement 'core': its parts need 4 courses "
        "and 46 units but at most 3 courses and 34 units can count toward it (running "
        "courses it can count: 15-110, 15-112, 15-122) - ask for less in its parts, or let "
        "more courses count (each counts once in a program)"
    ]
    assert _warnings(_elective(min_courses=3))[0].value == "4 courses and 46 units"
    assert _warnings(_elective(min_courses=2)) == []


def test_units_a_set_needs_beyond_its_courses_warn() -> None:
    # 34 units in all, 12 of them 15-112's, which the course node takes.
    assert [(w.path, w.value) for w in _warnings(_elective(min_units=35))] == [
        (f"{ELECTIVE}.min_units", "35")
    ]
    assert "it needs 35 units but at most 34 units can count toward it" in (
        _warnings(_elective(min_units=35))[0].message
    )
    group = _warnings(_elective(min_units=23))
    assert [w.path for w in group] == ["$.programs[0].requirement"]
    assert "its parts need 35 units but at most 34 units can count" in group[0].message
    assert _warnings(_elective(min_units=22)) == []


def test_caps_limit_what_a_set_can_provide() -> None:
    cap = {"courses": ["15-112", "15-122"], "max_units": 12}
    assert "at most 22 units" in _warnings(_elective(min_units=23, caps=[cap]))[0].message
    assert _warnings(_elective(min_units=22, caps=[cap])) == []


def test_a_repeatable_course_provides_any_number() -> None:
    raw = _elective(min_courses=4)
    raw["courses"][0]["repeatable"] = True  # 15-110: every passing attempt counts
    assert _warnings(raw) == []


def test_a_total_beyond_the_requirements_and_free_electives_warns() -> None:
    raw = base_catalog()
    raw["courses"].append(_course("80-100", free_elective=False))  # an arranged course
    raw["programs"][0]["total_units"] = 35  # the three CS courses give 34
    assert _texts(raw, "program_units") == [
        "$.programs[0] (CS-MIN).total_units: CS-MIN needs 35 units to graduate, but the "
        "running courses of its requirements and the free electives give at most 34 units "
        "(3 courses) - lower total_units, add courses, or let more courses be free "
        "electives (free_elective)"
    ]
    raw["programs"][0]["total_units"] = 34
    assert _warnings(raw, "program_units") == []
    raw["programs"][0]["total_units"] = 43
    assert len(_warnings(raw, "program_units")) == 1
    raw["courses"][3]["free_elective"] = True  # now the planner may add it: 34 + 9
    assert _warnings(raw, "program_units") == []


# --------------------------------------------------------------------------- standing


def _standing(senior: float, total: float, rule: float | None = None) -> dict[str, Any]:
    raw = base_catalog()
    raw["standing_thresholds"] = {"sophomore": 10, "junior": 20, "senior": senior}
    raw["programs"][0]["total_units"] = total
    if rule is not None:
        raw["policies"].append({"id": "TOTAL", "title": "Degree total", "kind": "total_units",
                                "limit": rule,
                                "citation": {"document": "academic-policies",
                                             "section": "minors"}})  # fmt: skip
    return raw


def test_a_standing_above_the_degree_total_warns() -> None:
    assert _texts(_standing(senior=34.5, total=34)) == [
        "$.standing_thresholds.senior: senior standing needs 34.5 units, more than the 34 "
        "units a degree needs (CS-MIN's total_units): a student graduates before becoming a "
        "senior, so what asks for senior standing (restricted_to, standing() prerequisites, "
        "rules by class year) never applies - lower standing_thresholds.senior below the "
        "degree total, or correct the degree total"
    ]
    assert _warnings(_standing(senior=34, total=34)) == []


def test_a_degree_total_rule_raises_every_program_s_total() -> None:
    # The rule asks 40 of everyone (the minor's own 34 is not the degree's total); the
    # courses cannot give 40, which is the program_units check's to say.
    assert _warnings(_standing(senior=40, total=34, rule=40), "standing_total") == []
    found = _warnings(_standing(senior=41, total=34, rule=40), "standing_total")
    assert [(w.path, w.value) for w in found] == [("$.standing_thresholds.senior", "41")]
    assert "more than the 40 units a degree needs (rule TOTAL)" in found[0].message


# --------------------------------------------------------------------------- never offered


def test_a_required_course_offered_only_in_the_past_warns() -> None:
    raw = base_catalog()
    raw["courses"][1]["offered"] = {"terms": ["fall"], "only_in": ["F2020"]}  # 15-112
    assert _texts(raw, "never_offered") == [
        "$.programs[0] (CS-MIN).requirement.children[0].course: requirement 'intro': it requires "
        "15-112, which does not run from F2026 to S2032: offered only in F2020 - offer "
        "15-112 again (status, offered_terms, offered_only) or require a course that runs"
    ]
    raw["courses"][1]["offered"]["only_in"] = ["F2031"]
    assert _warnings(raw) == []


def test_a_set_whose_courses_are_all_retired_warns() -> None:
    raw = _elective(courses=["15-122"], patterns=[], min_courses=1)
    raw["courses"][2]["status"] = "retired"
    assert _texts(raw) == [
        "$.programs[0] (CS-MIN).requirement.children[1]: requirement 'elective': no course "
        "it can count runs from F2026 to S2032: 15-122 (retired) - offer one of its courses "
        "again, or widen the set"
    ]
    raw["courses"][2]["status"] = "dormant"  # still runs as its pattern says
    assert _warnings(raw) == []


# --------------------------------------------------------------------------- chains


def _chain(length: int) -> dict[str, Any]:
    """CH 101 -> CH 102 -> ...: each course only in the fall of odd years."""
    raw = base_catalog()
    for n in range(1, length + 1):
        before = {"prerequisites": f"CH {100 + n - 1}"} if n > 1 else {}
        raw["courses"].append(
            _course(f"CH {100 + n}", offered={"terms": ["fall"], "years": "odd"}, **before)
        )
    return raw


def test_a_chain_longer_than_the_horizon_warns_at_its_first_course_past_it() -> None:
    # Started in F2027: CH 101 F2027, CH 102 F2029, CH 103 F2031, CH 104 F2033 - the 13th
    # regular term; CH 105 (F2035) is past it only because CH 104 is.
    expected = [
        "$.courses[6] (CH 104).prerequisites: CH 104 takes at least 13 regular semesters "
        "from a student's first semester (prerequisite chain CH 101 -> CH 102 -> CH 103 -> "
        "CH 104, each course in a semester it runs), more than the 12 a plan may span by "
        "default (6 academic years): no plan can include it - offer courses of the chain "
        "more often (offered_terms, offered_years) or shorten the chain (prerequisites)"
    ]
    assert _texts(_chain(4)) == expected
    assert _texts(_chain(5)) == expected
    assert _warnings(_chain(3)) == []


def test_a_chain_through_a_course_that_never_runs_warns() -> None:
    raw = base_catalog()
    raw["courses"][1]["status"] = "retired"  # 15-112, before 15-122
    raw["programs"][0]["requirement"]["children"][0]["course"] = "15-110"
    assert _texts(raw, "prerequisite_chain") == [
        "$.courses[2] (15-122).prerequisites: 15-122 can never be taken: its prerequisite "
        "chain 15-112 -> 15-122 starts with 15-112, which does not run (retired) - offer "
        "15-112 again, or give 15-122 a prerequisite route that runs"
    ]
    raw["courses"][2]["prerequisites"] = "15-112 or 15-110"
    assert _warnings(raw) == []


# --------------------------------------------------------------------------- the commands


def _file(raw: dict[str, Any], tmp_path: Path) -> Path:
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(raw), "utf-8")
    return path


def test_validate_lists_warnings_after_ok_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _file(_elective(min_courses=4), tmp_path)
    assert main(["catalog", "validate", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out == f"{path}: ok (3 courses, 1 programs, 1 policy rules, 2 documents)\n"
    [warning] = _warnings(_elective(min_courses=4))
    assert err == f"warning: {path}: 1 warning\n  - {warning.text()}\n"


def test_validate_json_carries_the_warnings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _file(_elective(min_courses=4), tmp_path)
    assert main(["catalog", "validate", str(path), "--json"]) == 0
    out, err = capsys.readouterr()
    found = json.loads(out)
    assert (found["ok"], found["courses"], err) == (True, 3, "")
    [w] = found["warnings"]
    assert {k: w[k] for k in ("check", "path", "item", "value", "where")} == {
        "check": "program_units",
        "path": f"{ELECTIVE}.min_courses",
        "item": "CS-MIN",
        "value": "4",
        "where": "$.programs[0] (CS-MIN).requirement.children[1].min_courses",
    }
    assert w["fix"] == "lower min_courses, widen the set, or offer the courses it names"


def test_build_names_the_file_and_line_of_each_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = tmp_path / "dir"
    export_catalog(parse_catalog(_elective(min_courses=4)), directory)
    out_file = tmp_path / "out.json"
    assert main(["catalog", "build", str(directory), "-o", str(out_file), "--json"]) == 0
    [w] = json.loads(capsys.readouterr().out)["warnings"]
    lines = (directory / "programs" / "CS-MIN.yaml").read_text("utf-8").splitlines()
    start = next(i for i, text in enumerate(lines, 1) if "id: elective" in text)
    line = next(i for i, text in enumerate(lines, 1) if i > start and "min_courses:" in text)
    assert w["where"] == f"programs/CS-MIN.yaml:{line} field 'min_courses'"
    assert main(["catalog", "build", str(directory), "-o", str(out_file)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"{out_file}: built from {directory} (3 courses")
    assert err.splitlines()[:2] == [
        f"warning: {directory}: 1 warning",
        f"  - programs/CS-MIN.yaml:{line} field 'min_courses': requirement 'elective': it "
        "needs 4 courses but at most 3 courses can count toward it (running courses it can "
        "count: 15-110, 15-112, 15-122) - lower min_courses, widen the set, or offer the "
        "courses it names",
    ]


@pytest.mark.parametrize(
    "source",
    [None, "demos/harrow-bay", "eval/catalogs/fenwick-college", "demos/catalog-layout"],
)
def test_the_sample_catalogs_give_no_warning(source: str | None) -> None:
    from agents.toolbox import Toolbox

    cat = load_catalog(ROOT / source if source else None)
    assert catalog_warnings(cat, Toolbox(catalog=cat).horizon_terms) == []

"""Offering history (#28 item 10): the last term of each kind a course actually ran
(``Offering.last_run``). The sample catalog's year begins in F2026; its pattern promises
15-251 every fall and spring and 15-418 every spring. Recorded as last run in fall 2019
(and spring 2026), 15-251 missed the falls 2020-2025 its pattern promised (6): the planner
places it in a spring term, never a fall one, unless the student pins it there - then the
pin holds and the plan carries the risk. 15-418 last run in spring 2019 has lapsed in every
kind it runs in: it is weighed like a dormant course, and the systems requirement takes
another of its courses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.catalog import Catalog, Term, load_catalog, load_student, use_catalog
from agents.catalog.history import all_lapsed, lapse_note, missed_runs, routine_in
from agents.catalog.offerings import offering_problems
from agents.errors import CatalogError
from agents.planner import PlanConstraints, plan
from agents.policy import catalog_load_caps
from agents.verifier import verify_plan

ROOT = Path(__file__).resolve().parents[1]


def _catalog(tmp_path: Path, history: dict[str, list[str]]) -> Catalog:
    raw: dict[str, Any] = json.loads((ROOT / "agents" / "data" / "catalog.json").read_text())
    for course in raw["courses"]:
        if course["code"] in history:
            course["offered"]["last_run"] = history[course["code"]]
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(raw))
    return load_catalog(path)


def _plan(cat: Catalog, **more: Any) -> tuple[dict[str, str], list[str]]:
    with use_catalog(cat):
        student = load_student(ROOT / "demos" / "students" / "cs-sophomore.json")
        c = PlanConstraints(max_units_per_term=catalog_load_caps(cat).standard, **more)
        result = plan(cat, student, ["CS-BS"], c)
        assert result.status in ("optimal", "feasible")
        defects = verify_plan(cat, student, ["CS-BS"], c, result)
    placed = {code: t.term for t in result.terms for code in t.courses}
    return placed, [d.message for d in defects]


@pytest.mark.slow
def test_a_lapsed_kind_counts_the_runs_its_pattern_promised(tmp_path: Path) -> None:
    cat = _catalog(tmp_path, {"15-251": ["F2019", "S2026"], "15-418": ["S2019"]})
    with use_catalog(cat):
        c251, c418 = cat.course("15-251"), cat.course("15-418")
        assert {k: (t.code, n) for k, (t, n) in missed_runs(cat, c251).items()} == {
            "F": ("F2019", 6)
        }
        assert not all_lapsed(cat, c251) and all_lapsed(cat, c418)
        assert not routine_in(cat, c251, Term.parse("F2027"))
        assert routine_in(cat, c251, Term.parse("S2027"))
        assert routine_in(cat, c418, Term.parse("S2027"))  # no kind more routine than another
        assert lapse_note(cat, c251, Term.parse("F2027")) == (
            "15-251 last ran in Fall 2019; its pattern promised 6 fall runs since that did "
            "not happen"
        )
        assert lapse_note(cat, c251, Term.parse("S2027")) is None
    assert offering_problems(cat) == []


@pytest.mark.slow
def test_the_planner_places_a_course_in_the_kind_it_still_runs_in(tmp_path: Path) -> None:
    before, _ = _plan(load_catalog())
    assert before["15-251"].startswith("F")  # where the plan puts it without a history
    placed, defects = _plan(_catalog(tmp_path, {"15-251": ["F2019", "S2026"]}))
    assert placed["15-251"].startswith("S")
    assert defects == []


def test_a_pin_in_a_lapsed_kind_holds(tmp_path: Path) -> None:
    placed, defects = _plan(
        _catalog(tmp_path, {"15-251": ["F2019", "S2026"]}), fixed={"15-251": "F2027"}
    )
    assert placed["15-251"] == "F2027"
    assert defects == []


@pytest.mark.slow
def test_a_course_lapsed_in_every_kind_gives_way_to_another_option(tmp_path: Path) -> None:
    before, _ = _plan(load_catalog())
    assert "15-418" in before
    placed, defects = _plan(_catalog(tmp_path, {"15-418": ["S2019"]}))
    assert "15-418" not in placed
    assert {"15-410", "15-411", "15-440", "15-441", "15-445"} & set(placed)
    assert defects == []


@pytest.mark.parametrize(
    ("history", "says"),
    [
        (["F2019", "F2021"], "a second last run of Fall terms"),
        (["U2019"], "is a Summer term, but the course is offered in fall, spring"),
        (["Fall 20x9"], "not a term"),
    ],
)
def test_a_history_that_cannot_be_read_is_refused_with_its_path(
    tmp_path: Path, history: list[str], says: str
) -> None:
    with pytest.raises(CatalogError) as refused:
        _catalog(tmp_path, {"15-251": history})
    assert "offered.last_run" in str(refused.value) and says in str(refused.value)

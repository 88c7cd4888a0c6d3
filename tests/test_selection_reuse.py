"""The course selection's fewest units are solved once per model: when the suited set will
not place and the planner asks the same selector for the plain tie-breaks (``fit=False``,
``agents.planner.solve``), only the tie-break solve runs again, on a copy of the model as it
stood before them - and the answer is the one a new ``SelectionModel`` gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import agents.planner.cpsat as cpsat
from agents.catalog import StudentRecord, load_catalog
from agents.planner import PlanConstraints
from agents.planner.cpsat import catalog_steps
from agents.planner.select import Selection, SelectionModel
from agents.planner.setup import PlanSetup
from agents.planner.solve import SELECT_DTIME, TIE_DTIME

STUDENTS = sorted((Path(__file__).resolve().parents[1] / "demos" / "students").glob("*.json"))


def _selector(path: Path) -> SelectionModel:
    catalog = load_catalog(None)
    student = StudentRecord.model_validate(json.loads(path.read_text("utf-8")))
    setup = PlanSetup(catalog, student, student.programs, PlanConstraints(max_units_per_term=54))
    prep = setup.prep(setup.latest)
    scale = catalog_steps(catalog)
    units = {c: scale.count(prep.course(c).units) for c in prep.pool}
    gain = {c: scale.count(prep.gain(c)) for c in prep.pool}
    return SelectionModel(prep, scale, units, gain)


def _solve(sm: SelectionModel, fit: bool) -> Selection | None:
    return sm.solve(60.0, SELECT_DTIME, TIE_DTIME, fit=fit)


@pytest.mark.parametrize("path", STUDENTS[:6], ids=lambda p: p.stem)
def test_asking_a_selector_again_reruns_only_the_tie_breaks_and_answers_as_a_new_one(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh_suited = _solve(_selector(path), fit=True)
    fresh_plain = _solve(_selector(path), fit=False)
    solves: list[str] = []
    solve = cpsat.Solver.solve

    def counted(self: cpsat.Solver, model: object, callback: object = None) -> object:
        solves.append(self.where)
        return solve(self, model, callback)  # type: ignore[arg-type]

    monkeypatch.setattr(cpsat.Solver, "solve", counted)
    sm = _selector(path)
    suited = _solve(sm, fit=True)
    first = len(solves)
    plain = _solve(sm, fit=False)
    assert suited == fresh_suited
    assert plain == fresh_plain
    if suited is None:  # no set (proved, or none in the budget): asked again, no solve
        assert plain is None and len(solves) == first
        return
    assert first >= 2  # the fewest units, then the tie-breaks
    assert len(solves) - first == 1  # asked again: the tie-breaks alone

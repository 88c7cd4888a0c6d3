"""What the planner keeps with a catalog across plans (issue #26, real scale): each term's
offered courses, and the earliest-term analysis of the whole catalog, reused only under
the exact inputs it was computed from."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.catalog import Catalog, StudentRecord, load_catalog, load_student, offered_in
from agents.catalog.offerings import offered_codes
from agents.planner import PlanConstraints, plan
from agents.planner.prep import Analysis, Prep
from agents.planner.reach import reach_all
from agents.planner.setup import PlanSetup

REPO = Path(__file__).resolve().parents[1]

C = PlanConstraints(max_units_per_term=18)


@pytest.fixture
def catalog() -> Iterator[Catalog]:
    cat = load_catalog()
    cat.derived.pop("planner.reach", None)
    yield cat
    cat.derived.pop("planner.reach", None)


def _student(name: str = "is-junior-cs-minor") -> StudentRecord:
    return load_student(REPO / "demos" / "students" / f"{name}.json")


def _fresh(prep: Prep) -> Analysis:
    """The analysis computed from nothing, as the planner did before it kept any."""
    return prep.analyse({c.code for c in prep.catalog.courses if prep.plannable(c.code)})


def test_each_term_offered_set_is_offered_in_for_every_course(catalog: Catalog) -> None:
    setup = PlanSetup(catalog, _student(), ["IS-BS"], C)
    prep = setup.prep(setup.latest)
    for term in prep.terms:
        want = {c.code for c in catalog.courses if offered_in(catalog, c, term)}
        assert offered_codes(catalog, term) == want


@pytest.mark.slow
def test_a_second_plan_of_the_same_student_reuses_the_whole_catalog_analysis(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    student = _student()
    first = plan(catalog, student, ["IS-BS"], C)
    sizes: list[int] = []
    real = Prep.analyse

    def counting(self: Prep, universe: set[str]) -> Analysis:
        sizes.append(len(universe))
        return real(self, universe)

    monkeypatch.setattr(Prep, "analyse", counting)
    again = plan(catalog, student, ["IS-BS"], C)
    assert again.model_dump(exclude={"solve_ms"}) == first.model_dump(exclude={"solve_ms"})
    whole = sum(1 for c in catalog.courses if c.status != "retired")
    assert all(n < whole // 2 for n in sizes), sizes  # pools only, never the catalog again


@pytest.mark.parametrize(
    "change",
    ["passed one more", "a term away", "a forced course", "a course avoided", "other caps"],
)
def test_a_kept_analysis_is_used_only_where_a_fresh_one_equals_it(
    catalog: Catalog, change: str
) -> None:
    student = _student()
    base = PlanSetup(catalog, student, ["IS-BS"], C)
    kept = base.prep(base.latest)
    assert reach_all(kept) == _fresh(kept)  # computed, then kept with the catalog
    c = C
    if change == "passed one more":
        course = next(x for x in kept.pool if x not in kept.history.passed)
        record = student.model_dump()
        record["courses"].append({"course": course, "term": "S2026", "grade": "A"})
        student = StudentRecord.model_validate(record)
    elif change == "a term away":
        c = C.model_copy(update={"terms_away": [kept.term_codes[1]]})
    elif change == "a forced course":
        far = max(kept.pool, key=lambda x: kept.reach.est[x] if kept.reach else 0)
        c = C.model_copy(update={"forced": [far]})
    elif change == "a course avoided":
        c = C.model_copy(update={"avoid": [kept.pool[0]]})
    else:
        c = C.model_copy(update={"max_units_per_term": 12})
    other = PlanSetup(catalog, student, ["IS-BS"], c)
    prep = other.prep(other.latest)
    assert reach_all(prep) == _fresh(prep)

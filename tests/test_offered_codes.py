"""The courses that run in a term, and those that run there as routine, are computed once
per catalog and term by offering pattern (``offerings.offered_codes``,
``history.routine_codes``): the same answer as asking ``offered_in`` and ``routine_in`` of
every course, on every catalog the project ships, over six years of terms - published
schedules, alternate years, ``only_in`` terms, retired courses and lapsed histories
included."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.catalog import Catalog, load_catalog
from agents.catalog.history import routine_codes, routine_in
from agents.catalog.offerings import offered_codes, offered_in
from agents.catalog.terms import Term

REPO = Path(__file__).resolve().parents[1]
CATALOGS = [None, REPO / "demos" / "harrow-bay", REPO / "demos" / "unsw",
            REPO / "eval" / "catalogs" / "fenwick-college"]  # fmt: skip


def _terms(catalog: Catalog) -> list[Term]:
    cal = catalog.calendar
    first = cal.term(cal.academic_year_starts, 2024)
    terms = [first]
    while terms[-1].year < 2030:
        terms.append(terms[-1].shift(1))
    return terms


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: "sample" if p is None else p.name)
def test_offered_and_routine_codes_are_every_course_asked_one_by_one(path: Path | None) -> None:
    catalog = load_catalog(path)
    kinds = set()
    for term in _terms(catalog):
        offered = {c.code for c in catalog.courses if offered_in(catalog, c, term)}
        routine = {c.code for c in catalog.courses if routine_in(catalog, c, term)}
        assert offered_codes(catalog, term) == offered, term.code
        assert routine_codes(catalog, term) == routine, term.code
        kinds.add(term.kind)
    assert len(kinds) >= 2  # the terms walked cover the calendar, not one kind of term


def test_a_course_of_each_kind_the_index_groups_is_asked_for_itself() -> None:
    """Retired, published-schedule and alternate-year courses on the sample: the grouping
    by pattern keeps each course's own status and sections."""
    catalog = load_catalog(None)
    data = catalog.model_dump(mode="json")
    first, second = data["courses"][0], data["courses"][1]
    second["offered"] = dict(first["offered"])  # one pattern, two courses
    second["status"] = "retired"
    changed = Catalog.model_validate(data)
    for term in _terms(changed):
        codes = offered_codes(changed, term)
        assert second["code"] not in codes
        assert (first["code"] in codes) == offered_in(changed, changed.courses[0], term)

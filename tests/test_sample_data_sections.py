"""The shipped Northfield catalog's sections: they follow the offering pattern, and the
exact S2027 meeting clashes, early meetings and Friday meetings are there.

Other parts of the pipeline (planner, scheduler, demos, eval) rely on the facts checked
here, so each test pins an exact fact rather than a loose property.
"""

from __future__ import annotations

import pytest

from agents.catalog import Catalog, Meeting, Term
from tests.sample_data_helpers import catalog

__all__ = ["catalog"]  # the module fixture, imported so pytest finds it here


def _meetings(catalog: Catalog, code: str, term: str, section: str) -> list[Meeting]:
    return next(s for s in catalog.course(code).sections_in(term) if s.id == section).meetings


def _overlap(a: list[Meeting], b: list[Meeting]) -> bool:
    return any(
        set(x.days) & set(y.days) and x.start < y.end and y.start < x.end for x in a for y in b
    )


@pytest.mark.parametrize("term", ["S2027", "F2027"])
def test_sections_follow_the_offering_pattern(catalog: Catalog, term: str) -> None:
    t = Term.parse(term)
    for c in catalog.courses:
        n = len(c.sections_in(term))
        if not c.offered.offered_in(t):
            assert n == 0, c.code
        elif c.level >= 300:
            assert n == 1, c.code
        else:
            assert 1 <= n <= 3, c.code
        for s in c.sections_in(term):
            assert s.meetings, (c.code, s.id)
            assert all("08:00" <= m.start < m.end <= "20:00" for m in s.meetings)
    assert {s.term for c in catalog.courses for s in c.sections} == {"S2027", "F2027"}


def test_spring_2027_clash_between_67_272_and_70_311(catalog: Catalog) -> None:
    tr = [Meeting(days="TR", start="13:30", end="14:50")]
    for code in ("67-272", "70-311"):
        sections = catalog.course(code).sections_in("S2027")
        assert [s.id for s in sections] == ["A"]
        assert [m.model_copy(update={"location": None}) for m in sections[0].meetings] == tr


def test_15_213_a_clashes_with_21_259_a_and_the_other_sections_do_not(catalog: Catalog) -> None:
    assert [s.id for s in catalog.course("15-213").sections_in("S2027")] == ["A", "B"]
    assert [s.id for s in catalog.course("21-259").sections_in("S2027")] == ["A", "B"]
    a213 = _meetings(catalog, "15-213", "S2027", "A")
    b213 = _meetings(catalog, "15-213", "S2027", "B")
    a259 = _meetings(catalog, "21-259", "S2027", "A")
    b259 = _meetings(catalog, "21-259", "S2027", "B")
    assert _overlap(a213, a259)
    assert not _overlap(a213, b259)
    assert not _overlap(b213, a259)
    assert not _overlap(b213, b259)


def test_schedule_has_early_and_friday_meetings(catalog: Catalog) -> None:
    meetings = [m for c in catalog.courses for s in c.sections_in("S2027") for m in s.meetings]
    assert any(m.start == "08:00" for m in meetings)
    assert any("F" in m.days for m in meetings)

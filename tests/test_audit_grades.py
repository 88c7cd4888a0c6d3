"""Degree audit: how grades count against the mini catalog (see tests/audit_helpers.py) -
minimum grades, repeated courses (best attempt only), failed courses, and a course set's GPA
minimum over the best grades."""

from __future__ import annotations

from agents.audit import audit
from agents.catalog import Catalog
from tests.audit_helpers import catalog, cc, find, node, student

__all__ = ["catalog"]  # the module fixture, imported so pytest finds it here


def test_c_minus_is_below_a_c_minimum_and_c_meets_it(catalog: Catalog) -> None:
    low = find(
        audit(catalog, student([("15-122", "S2026", "C-")]))
        .programs[0]
        .root.model_dump(mode="json"),
        "core-122",
    )
    assert low == node(
        "core-122",
        "Imperative computation",
        "course",
        "unmet",
        False,
        "15-122 earned C-, below the minimum C",
        need=1,
        units=12.0,
        options=["15-122"],
    )
    ok = audit(catalog, student([("15-122", "S2026", "C")])).programs[0].root
    assert find(ok.model_dump(mode="json"), "core-122")["explanation"] == (
        "15-122 completed with C in S2026"
    )


def test_repeated_course_counts_only_the_best_attempt(catalog: Catalog) -> None:
    report = audit(catalog, student([("15-150", "F2025", "R"), ("15-150", "S2026", "B")]))
    assert find(report.programs[0].root.model_dump(mode="json"), "core-150") == node(
        "core-150",
        "Functional programming",
        "course",
        "met",
        True,
        "15-150 completed with B in S2026",
        counted=[cc("15-150", "S2026", "B", 12.0, note="best attempt; also R in F2025")],
    )
    assert report.units_earned == 12.0


def test_failed_course_earns_nothing_and_says_so(catalog: Catalog) -> None:
    report = audit(catalog, student([("15-150", "F2025", "F")]))
    assert find(report.programs[0].root.model_dump(mode="json"), "core-150") == node(
        "core-150",
        "Functional programming",
        "course",
        "unmet",
        False,
        "15-150 earned F in F2025, which earns no credit",
        need=1,
        units=12.0,
        options=["15-150"],
    )


def test_course_set_gpa_below_minimum_is_partly_met_and_best_grades_are_chosen(
    catalog: Catalog,
) -> None:
    low = audit(catalog, student([("15-312", "F2026", "C"), ("15-317", "F2026", "C")]))
    assert find(low.programs[0].root.model_dump(mode="json"), "cs-electives") == node(
        "cs-electives",
        "CS electives",
        "course_set",
        "partly_met",
        False,
        "2 of 2 courses counted (minimum grade C); GPA 2.00 over the counted courses is below "
        "the minimum 2.50",
        counted=[cc("15-312", "F2026", "C", 12.0), cc("15-317", "F2026", "C", 12.0)],
        options=["15-351"],
    )
    better = audit(
        catalog,
        student([("15-312", "F2026", "C"), ("15-317", "F2026", "C"), ("15-351", "S2026", "A")]),
    )
    assert find(better.programs[0].root.model_dump(mode="json"), "cs-electives") == node(
        "cs-electives",
        "CS electives",
        "course_set",
        "met",
        True,
        "2 of 2 courses counted (minimum grade C); GPA 3.00 meets the minimum 2.50",
        counted=[cc("15-351", "S2026", "A", 12.0), cc("15-312", "F2026", "C", 12.0)],
    )

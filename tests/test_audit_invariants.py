"""Degree audit: properties on the mini catalog (see tests/audit_helpers.py) - the report does
not depend on record order, and invariants (determinism, no course counted twice, met nodes
need nothing, sharing within limits) hold for generated records."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.audit import audit
from agents.catalog import Catalog
from tests.audit_helpers import IN_PROGRESS, MIXED, TITLES, catalog, student

__all__ = ["catalog"]  # the module fixture, imported so pytest finds it here


def test_same_input_in_any_record_order_gives_the_same_report(catalog: Catalog) -> None:
    forward = audit(catalog, student(MIXED, ("CS-BS", "MATH-MIN")), planned={"15-317": "F2027"})
    backward = audit(
        catalog, student(MIXED[::-1], ("CS-BS", "MATH-MIN")), planned={"15-317": "F2027"}
    )
    assert forward == backward
    assert forward.model_dump_json() == backward.model_dump_json()


COURSE_POOL = [*sorted(TITLES), "15-251", "15-390", "76-101", "85-102"]


GRADE_POOL = ["A", "B", "C", "C-", "D", "F", "R", "P", "TR"]


TERM_POOL = ["F2025", "S2026", "F2026"]


def _walk(node: Any) -> Any:
    yield node
    for child in node.children:
        yield from _walk(child)


@settings(max_examples=150, deadline=None)
@given(
    taken=st.lists(
        st.tuples(
            st.sampled_from(COURSE_POOL),
            st.sampled_from(TERM_POOL),
            st.sampled_from(GRADE_POOL),
            st.booleans(),
        ),
        max_size=14,
    ),
    current=st.lists(st.sampled_from(COURSE_POOL), max_size=3, unique=True),
    plan=st.dictionaries(st.sampled_from(COURSE_POOL), st.sampled_from(["F2027", "S2028"])),
    minors=st.lists(st.sampled_from(["MATH-MIN", "DS-MIN", "AI-CONC"]), unique=True),
)
@pytest.mark.slow
def test_audit_invariants_hold_for_any_record(
    catalog: Catalog,
    taken: list[tuple[str, str, str, bool]],
    current: list[str],
    plan: dict[str, str],
    minors: list[str],
) -> None:
    rows: list[tuple[Any, ...]] = [
        (c, t, g, {"source": "transfer"} if g == "TR" else {"pass_fail": pf and g == "P"})
        for c, t, g, pf in taken
    ]
    rows += [(c, "S2027", None, IN_PROGRESS) for c in current]
    record = student(rows, ("CS-BS", *minors))
    report = audit(catalog, record, planned=plan)
    assert audit(catalog, record, planned=plan) == report
    assert report.all_met == all(p.status == "met" for p in report.programs)
    counted_by: dict[str, set[str]] = {}
    for program in report.programs:
        codes = [
            c.course
            for n in _walk(program.root)
            for c in n.counted
            if not catalog.course_by_code[c.course].repeatable
        ]
        assert len(codes) == len(set(codes)), f"{program.code} counts a course twice: {codes}"
        counted_by[program.code] = set(codes)
        for n in _walk(program.root):
            if n.met_by_completed:
                assert n.status == "met", (program.code, n.id)
            if n.status == "met":
                assert n.courses_needed == 0 and n.units_needed == 0.0
    for shared in report.programs[1:]:
        overlap = counted_by["CS-BS"] & counted_by[shared.code]
        if shared.code == "MATH-MIN":
            assert len(overlap) <= 1
        assert sorted(overlap) == sorted(
            s.course for s in shared.shared_courses if s.with_program == "CS-BS"
        )

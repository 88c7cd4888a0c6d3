"""The audit's course allocation is exact: checked against the brute-force enumerator of
tests/audit_alloc_helpers.py on small random instances - the allocation follows the rules, is
maximal, and completed and planned courses only ever add."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from agents.audit import audit
from agents.catalog import StudentRecord
from tests.audit_alloc_helpers import (
    Enumerator,
    build,
    check_allocation,
    instances,
    met_sets,
    nodes,
)

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop


@settings(max_examples=300, deadline=None)
@given(inst=instances())
def test_allocation_is_exact_and_maximal_against_brute_force(inst: dict[str, Any]) -> None:
    catalog, student, planned = build(inst)
    report = audit(catalog, student, planned=planned)
    check_allocation(inst, report)
    brute = Enumerator(inst)
    roots = [{tree["id"]} for _, tree in inst["programs"]]
    assert report.all_met == brute.feasible(roots)
    # Maximal: no allocation meets everything the audit meets plus one more node that the
    # audit leaves open (unmet, with no met ancestor).
    met = met_sets(report)
    for i, program in enumerate(report.programs):
        for n, up in nodes(program.root):
            if n.status != "met" and not any(a.status == "met" for a in up):
                more = [set(m) for m in met]
                more[i].add(n.id)
                assert not brute.feasible(more), f"{program.code}/{n.id} could also be met"


@settings(max_examples=150, deadline=None)
@given(inst=instances())
def test_met_by_completed_and_planned_courses_only_add(inst: dict[str, Any]) -> None:
    catalog, student, planned = build(inst)
    with_plan = audit(catalog, student, planned=planned)
    without = audit(catalog, student)
    done_only = StudentRecord.model_validate(
        {
            **student.model_dump(),
            "courses": [a.model_dump() for a in student.courses if a.status == "completed"],
        }
    )
    completed = met_sets(audit(catalog, done_only))
    by_completed = [
        {n.id for n, _ in nodes(p.root) if n.met_by_completed} for p in with_plan.programs
    ]
    for p, before, after, done, mbc in zip(
        with_plan.programs,
        met_sets(without),
        met_sets(with_plan),
        completed,
        by_completed,
        strict=True,
    ):
        assert all(n.status == "met" for n, _ in nodes(p.root) if n.met_by_completed)
        assert mbc <= done
        if not with_plan.all_met:
            # Nothing met before is given up, and what completed courses meet stays met.
            assert before <= after, p.code
            assert mbc == done, p.code
    for a, b in zip(without.programs, with_plan.programs, strict=True):
        assert a.status != "met" or b.status == "met"
    assert audit(catalog, student, planned=planned) == with_plan

"""Overloads only as far as a target needs them: with standard loads below the caps
(``ConstraintSet.standard``), the planner plans within the standard loads whenever that
meets the target, and otherwise keeps the units above them - then the terms above them -
as few as it can; round 1 of a request with a target offers the overload ceiling together
with the standard loads."""

from __future__ import annotations

from agents.artifacts import ConstraintSet
from agents.catalog import Catalog, StudentRecord
from agents.intake import read_request
from agents.planner import PlanConstraints, PlanResult, StandardLoads, plan
from agents.planning import initial_constraints
from agents.toolbox import Toolbox
from agents.verifier import verify_plan
from tests.harrow_helpers import hb_request, hb_tools, round_one
from tests.planner_helpers import FS, required
from tests.planner_strategies import catalog, course, program, student

__all__ = ["hb_tools"]  # the module fixture, imported so pytest finds it here

CODES = [f"10-10{i}" for i in range(7)]


def _major(n: int) -> tuple[Catalog, StudentRecord]:
    """A major of ``n`` required 9-unit courses offered every fall and spring."""
    cat = catalog([course(c, 9, FS) for c in CODES[:n]], [program("MAJ", required(*CODES[:n]))])
    return cat, student(["MAJ"])


def _loads(result: PlanResult) -> list[tuple[str, float]]:
    return [(t.term, t.units) for t in result.terms]


STANDARD_18 = StandardLoads(max_units_per_term=18)


def test_a_target_met_at_standard_loads_is_planned_without_an_overload() -> None:
    cat, st = _major(5)  # 45 units: two terms at the 27-unit cap, three at the standard 18
    c = PlanConstraints(max_units_per_term=27, target_term="S2028", standard=STANDARD_18)
    result = plan(cat, st, ["MAJ"], c)
    assert result.status == "optimal"
    assert _loads(result) == [("S2027", 18.0), ("F2027", 18.0), ("S2028", 9.0)]
    # Without standard loads the cap is all there is: the earliest graduation uses it.
    capped = plan(cat, st, ["MAJ"], c.model_copy(update={"standard": None}))
    assert _loads(capped) == [("S2027", 27.0), ("F2027", 18.0)]


def test_a_target_that_needs_an_overload_gets_the_least_one() -> None:
    cat, st = _major(7)  # 63 units by S2028: 9 above three standard terms of 18
    c = PlanConstraints(max_units_per_term=27, target_term="S2028", standard=STANDARD_18)
    result = plan(cat, st, ["MAJ"], c)
    assert result.graduation_term == "S2028"
    assert sorted(u for _, u in _loads(result)) == [18.0, 18.0, 27.0]  # one term, 9 units
    assert verify_plan(cat, st, ["MAJ"], c, result) == []


def test_an_overload_the_target_needs_takes_the_fewest_approvals() -> None:
    """Terms above the standard load (approvals) are kept fewest before the load is
    balanced: the 9 units above sit in one term, not spread over two."""
    cat, st = _major(7)
    c = PlanConstraints(max_units_per_term=27, target_term="S2028", standard=STANDARD_18)
    loads = [u for _, u in _loads(plan(cat, st, ["MAJ"], c))]
    assert sum(u > 18 for u in loads) == 1


def test_standard_loads_without_a_target_hold_like_caps() -> None:
    cat, st = _major(5)
    c = PlanConstraints(max_units_per_term=27, standard=STANDARD_18)  # e.g. the target dropped
    result = plan(cat, st, ["MAJ"], c)
    assert max(u for _, u in _loads(result)) == 18.0
    assert result.graduation_term == "S2028"


def test_round_one_offers_the_ceiling_with_the_standard_loads(hb_tools: Toolbox) -> None:
    cs = initial_constraints(read_request(hb_request("hb-double-major"), hb_tools), hb_tools)
    assert (cs.max_units_per_term, cs.target_term) == (5.0, "T32028")
    assert cs.standard == StandardLoads(max_units_per_term=4.0)
    assert cs.term_max_units["U2027"] == 2.0  # no overload in a summer


def test_a_double_major_graduates_on_time_at_standard_loads(hb_tools: Toolbox) -> None:
    """13 credits by T32028: four terms at 4.0 hold them, so no term needs an overload
    (the first plan used to graduate in T12027 with three overload terms)."""
    r = round_one("hb-double-major", hb_tools)
    assert r.proposal.plan is not None and r.proposal.plan.graduation_term == "T22028"
    assert max(u for _, u in r.loads) <= 4.0
    assert "LOAD-OVERLOAD" not in {v.rule_id for v in r.critique.violations}
    assert not [k for k in r.critique.risks if k.kind == "approval_needed"]


def test_graduating_in_eleven_terms_needs_no_overload(hb_tools: Toolbox) -> None:
    r = round_one("hb-graduate-in-eleven-terms", hb_tools)
    assert r.proposal.plan is not None and r.proposal.plan.graduation_term == "T12028"
    assert max(u for _, u in r.loads) <= 4.0
    assert r.critique.approval == "approved"


def test_the_students_own_cap_above_the_standard_load_plans_within_it(
    hb_tools: Toolbox,
) -> None:
    """'Up to 5.0 credits a term, done by T32028': the standard loads reach the target, so
    no term carries an overload and no approval is asked for (a student's cap used to
    replace the standard loads, and the plan front-loaded terms that each needed one)."""
    request = hb_request("hb-double-major").model_copy(update={"max_units_per_term": 5.0})
    intake = read_request(request, hb_tools)
    cs = initial_constraints(intake, hb_tools)
    assert (cs.max_units_per_term, cs.target_term) == (5.0, "T32028")
    assert cs.standard == StandardLoads(max_units_per_term=4.0)
    result = plan(hb_tools.catalog, intake.student, intake.target_programs, _pc(cs, hb_tools))
    assert result.graduation_term == "T22028"
    assert max(u for _, u in _loads(result)) <= 4.0


def _pc(cs: ConstraintSet, tools: Toolbox) -> PlanConstraints:
    return PlanConstraints.from_constraint_set(cs, horizon_terms=tools.horizon_terms)

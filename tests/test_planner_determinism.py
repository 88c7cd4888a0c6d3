"""The CP-SAT planner is deterministic - the same input twice, and across processes with
different hash seeds - and plans a full degree on a generated catalog optimally, passing the
verifier."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from agents.planner import PlanConstraints, plan
from agents.verifier import verify_plan
from tests.planner_helpers import FS, whole
from tests.planner_strategies import (
    catalog,
    course,
    program,
    realistic_catalog,
    realistic_student,
    student,
)

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop


def test_same_input_twice_gives_the_same_plan() -> None:
    cat = catalog(
        [course(f"10-1{i:02d}", 9 + (i % 2) * 3, FS, None) for i in range(12)],
        [
            program(
                "MAJ",
                {"kind": "course_set", "id": "s", "patterns": ["10-1xx"], "min_units": 60},
                total=90,
            )
        ],
    )
    c = PlanConstraints(max_units_per_term=30)
    first = whole(plan(cat, student(["MAJ"]), ["MAJ"], c))
    assert all(whole(plan(cat, student(["MAJ"]), ["MAJ"], c)) == first for _ in range(2))


_RUN = """
import json, sys
from tests.planner_strategies import realistic_catalog, realistic_student
from agents.planner import PlanConstraints, plan
cat = realistic_catalog(1)
record = realistic_student(cat, "ECON-BA", 1, 1)
result = plan(cat, record, ["ECON-BA", "PHIL-MIN"], PlanConstraints(max_units_per_term=54))
out = result.model_dump()
out.pop("solve_ms")
print(json.dumps(out, sort_keys=True))
"""


def test_same_plan_across_processes_with_different_hash_seeds() -> None:
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", _RUN], capture_output=True, text=True, env=env, check=True
        )
        outputs.append(done.stdout.strip().splitlines()[-1])
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0])["status"] == "optimal"


def test_full_degree_plan_on_a_generated_catalog_is_optimal_and_verified() -> None:
    cat = realistic_catalog(2)
    record = realistic_student(cat, "CS-BS", 0, 2)
    c = PlanConstraints(max_units_per_term=54)
    result = plan(cat, record, ["CS-BS"], c)
    assert (result.status, result.graduation_term) == ("optimal", "F2029")
    # Before #18 the pruned pool planned 316 units and called it optimal; the whole
    # catalog's proof widens the pool to the true optimum.
    assert (result.units_planned, result.extra_units) == (315.0, 0.0)
    assert verify_plan(cat, record, ["CS-BS"], c, result) == []

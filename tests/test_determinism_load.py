"""The same request gives the same answer whatever the machine's load: scenarios whose
plans take the planner's longest solves (full-model portfolios on a graduation target,
widened pools, minors close by, alternatives, overloads and probation caps) are run through
the whole pipeline on one core, first alone and then sharing it with two spinning
processes; every checkpoint and output must hash the same (``eval.under_load``, which also
runs the whole suite: ``python -m eval.under_load``)."""

from __future__ import annotations

import os

import pytest

from eval.suite import SCENARIO_DIR
from eval.under_load import compare

HEAVY = [
    "accel-five-courses",
    "close-minors-is-junior",
    "alternatives-econ-multivariable",
    "hb-probation-sophomore",
    "hb-overload-recent-gpa-low",
    "hb-next-term-five-not-eligible",
]


@pytest.mark.slow
def test_answers_do_not_depend_on_the_machine_load() -> None:
    core = min(os.sched_getaffinity(0))
    result = compare(HEAVY, core=core, busy=2, source=SCENARIO_DIR)
    assert result["scenarios"] == len(HEAVY)
    assert result["differences"] == []
    # The load was real: the loaded run took clearly longer than the idle one.
    assert result["loaded_s"] > 1.5 * result["idle_s"], result

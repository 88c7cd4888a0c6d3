"""The demo batch with the real stages, SIGKILLed at random moments and rerun until it
finishes, ends with every request's outputs and committed checkpoint equal to those of an
uninterrupted run - every request compared, none excused (the planner's budgets are
deterministic, so a request redone after a kill gives the answer it gave before).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.shared_helpers import DemoBatch
from tests.test_crash_safety import Batch, _committed, _outputs

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
@pytest.mark.parametrize(("workers", "kills", "seed"), [(2, 5, 20263)])
def test_demo_batch_killed_and_rerun_gives_every_request_the_same_outputs(
    tmp_path: Path, workers: int, kills: int, seed: int, demo_batch: DemoBatch
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    shutil.copy(REPO / "demos" / "requests.jsonl", ws / "in.jsonl")
    ref, want = demo_batch.root, demo_batch.report  # the same batch, uninterrupted
    rng = random.Random(seed)
    done_kills, runs, rc = 0, 0, None
    deadline = time.monotonic() + 300
    while rc not in (0, 4):  # 4: a request waits for an approval, as in the reference
        assert time.monotonic() < deadline, f"no clean finish after {runs} runs"
        runs += 1
        batch = Batch(ws, workers, {**os.environ, "PYTHONPATH": str(REPO)}, fake=False)
        try:
            if done_kills < kills:
                assert batch.working.wait(timeout=120)
                try:
                    rc = batch.proc.wait(timeout=rng.uniform(0.05, 0.8))
                except subprocess.TimeoutExpired:
                    batch.kill(whole_group=True)
                    done_kills += 1
                    continue
            else:
                rc = batch.proc.wait(timeout=300)
        finally:
            batch.finish()

    # The last runs may finish the few requests left before their kill lands.
    assert done_kills >= 2, f"only {done_kills} kill(s) landed; the test proved little"
    assert rc == want.exit_code
    got, expected = _outputs(ws / "out"), _outputs(ref / "out")
    assert sorted(got) == sorted(expected)
    assert [name for name in got if got[name] != expected[name]] == []
    assert _committed(ws / "state") == _committed(ref / "state")

"""Every demo script runs offline from a checkout and prints its artifact."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

ROOT = Path(__file__).resolve().parents[1]

# (script, what its default run must print)
DEMOS = [
    ("demo_intake.py", "intent"),
    ("demo_requirements.py", "Proposed courses"),
    ("demo_scheduling.py", "Sections for S2027: clash"),
    ("demo_critique.py", "Verdict: REJECTED"),
    ("demo_refinement.py", "max_units_per_term"),
    ("demo_synthesis.py", "Approved with risks"),
    ("demo_pipeline.py", "round 2: Graduate in Spring 2029"),
]


@pytest.mark.parametrize(("script", "expected"), DEMOS, ids=[d[0] for d in DEMOS])
def test_demo_runs_offline_and_prints_its_artifact(
    script: str, expected: str, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "GEMINI_API_KEY"}
    env["ADVISE_INDEX_DIR"] = str(tmp_path / "index")
    done = subprocess.run(
        [sys.executable, str(ROOT / "demos" / script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout


def _closed_reader(argv: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` with its output going to a reader that has already gone (as ``| head``
    does once it has its lines): every write fails, whatever the machine's speed."""
    env = {k: v for k, v in os.environ.items() if k != "GEMINI_API_KEY"}
    env["ADVISE_INDEX_DIR"] = str(tmp_path / "index")
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(argv, cwd=tmp_path, env=env, stdout=write, stderr=subprocess.PIPE,
                              text=True, timeout=120, check=False)  # fmt: skip
    finally:
        os.close(write)
    return done


@pytest.mark.parametrize("script", [d[0] for d in DEMOS])
def test_a_demo_piped_into_head_ends_quietly(script: str, tmp_path: Path) -> None:
    """Issue #30 item 6: ``python demos/demo_x.py | head`` prints no BrokenPipeError."""
    done = _closed_reader([sys.executable, str(ROOT / "demos" / script)], tmp_path)
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
    assert done.returncode in (0, 1)  # 1: rich's console ends a closed pipe with it


@pytest.mark.parametrize(
    "args", [["catalog", "programs"], ["catalog", "show", "--json"], ["status"]]
)
def test_the_cli_piped_into_head_ends_quietly(args: list[str], tmp_path: Path) -> None:
    done = _closed_reader([sys.executable, "-m", "pipeline.cli", *args], tmp_path)
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
    assert done.returncode in (0, 1)  # 1 where a rich table met the closed pipe

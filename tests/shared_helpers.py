"""Pieces of the session fixtures several test files share (tests/conftest.py,
tests/console/conftest.py): the demo batch run once, the sample overload request stopped for
its approval, finished plans of two catalogs to export, and what a directory holds - to
check that a workspace the tests only read (or copy) is the same at the end of the session
as at its start."""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from pipeline.batch import run_batch
from pipeline.batch_input import iter_input
from pipeline.jobs import RunOptions
from pipeline.results import BatchReport
from pipeline.runner import GracefulStop

ROOT = Path(__file__).resolve().parents[1]
OVERLOAD = "overload-high-gpa"  # the demo request that stops for the LOAD-OVERLOAD approval
HARROW = ROOT / "demos" / "harrow-bay"
# The plans the export tests read (tests/test_export_pdf.py, tests/test_export_formats.py,
# tests/test_output_hygiene.py), by the catalog directory their batch runs with (None: the
# bundled sample).
PLANNED = "overload-low-gpa"  # a four-year CS plan, two rounds
SECTIONS = "hb-add-math-minor-csci"  # a T22027 plan with sections and locations
TOO_LATE = "hb-add-data-minor-too-late"  # infeasible by T22027: a counter-proposal
PLANS: dict[Path | None, tuple[str, ...]] = {None: (PLANNED,), HARROW: (SECTIONS, TOO_LATE)}


@dataclass(frozen=True)
class DemoBatch:
    """demos/requests.jsonl run in process with the real stages, one worker, never stopped."""

    root: Path
    """The batch's directory: its ``state/`` and ``out/`` (read only)."""
    report: BatchReport


def run_demo_batch(root: Path) -> DemoBatch:
    """The demo batch, uninterrupted, into ``root``."""
    opts = RunOptions(state_dir=root / "state", out_dir=root / "out")
    inputs = iter_input(str(ROOT / "demos" / "requests.jsonl"))
    return DemoBatch(root, run_batch(inputs, opts, stop=GracefulStop()))


def tree_digests(root: Path) -> dict[str, str]:
    """Every file under ``root`` (its path relative to ``root``) with the sha256 of its bytes."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def changed_files(before: dict[str, str], root: Path) -> list[str]:
    """The files added, removed or changed under ``root`` since ``before`` was taken."""
    after = tree_digests(root)
    return sorted(
        name for name in before.keys() | after.keys() if before.get(name) != after.get(name)
    )


def overload_request() -> dict[str, object]:
    """The demo request ``overload-high-gpa`` (demos/requests.jsonl)."""
    for line in (ROOT / "demos" / "requests.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip() and json.loads(line)["request_id"] == OVERLOAD:
            return dict(json.loads(line))
    raise AssertionError(f"demos/requests.jsonl lost {OVERLOAD}")


def copy_workspace(template: Path, target: Path) -> Path:
    """A copy of a shared workspace at ``target`` (an existing directory such as
    ``tmp_path`` is fine); returns ``target``."""
    shutil.copytree(template, target, dirs_exist_ok=True)
    return target


def run_plans(root: Path) -> None:
    """``advise batch`` of the ``PLANS`` requests into ``root`` (``state/``, ``out/``,
    ``logs/``): one batch per catalog, as the demos' request files give them."""
    from pipeline.cli import main

    dirs = ["--state-dir", str(root / "state"), "--out-dir", str(root / "out"),
            "--log-dir", str(root / "logs"), "-q"]  # fmt: skip
    for n, (catalog, ids) in enumerate(PLANS.items()):
        source = (catalog or ROOT / "demos") / "requests.jsonl"
        lines = [
            line
            for line in source.read_text("utf-8").splitlines()
            if line.strip() and json.loads(line)["request_id"] in ids
        ]
        assert len(lines) == len(ids), f"{source} lost one of {ids}"
        inputs = root / f"requests-{n}.jsonl"
        inputs.write_text("\n".join(lines) + "\n", "utf-8")
        chosen = [] if catalog is None else ["--catalog", str(catalog)]
        assert main(["batch", str(inputs), *dirs, *chosen]) == 0

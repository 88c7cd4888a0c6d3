"""``python -m eval.plan_times [--scale N] [--catalog PATH --students DIR] [--runs K]``:
the planner's own time on the cases ``eval.bench_planner`` plans - every student of the
directory toward their programs, and again with one added minor - and nothing else (no
greedy baseline, no verifier, no alternatives between the calls), so that two commits can
be compared quickly and several times. Each run prints p50, p95 and the sum of the
``plan()`` times; with ``--json`` the last line is one JSON object with every run and the
median of each figure, and the command, commit and machine load (``eval.bench_meta``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from agents.catalog import load_student, use_catalog
from agents.planner import PlanConstraints, plan
from agents.policy import catalog_load_caps
from eval.bench_meta import RunInfo
from eval.bench_planner import _p95, _scale, added_minor, catalogs
from pipeline.logs import configure_logging


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    configure_logging("warning")
    run = RunInfo.start("eval.plan_times", argv)
    p = argparse.ArgumentParser(prog="python -m eval.plan_times", description=__doc__)
    p.add_argument("--catalog", type=Path, help="catalog JSON file or directory")
    p.add_argument("--students", type=Path, help="student JSON directory (with --catalog)")
    p.add_argument("--scale", type=_scale, metavar="N", help="the catalog enlarged N times")
    p.add_argument("--runs", type=int, default=1, help="times to plan every case (default 1)")
    p.add_argument("--json", action="store_true", help="end with one JSON line of results")
    args = p.parse_args(argv)
    runs: list[dict[str, float]] = []
    for label, catalog, students in catalogs(args):
        with use_catalog(catalog):
            cases = []
            for k, path in enumerate(sorted(students.glob("*.json"))):
                student = load_student(path)
                cases.append((student, list(student.programs)))
                if (minor := added_minor(catalog, student, k)) is not None:
                    cases.append((student, [*student.programs, minor]))
            limits = PlanConstraints(max_units_per_term=catalog_load_caps(catalog).standard)
            for _ in range(args.runs):
                ms = []
                for student, programs in cases:
                    t0 = time.perf_counter()
                    plan(catalog, student, programs, limits)
                    ms.append((time.perf_counter() - t0) * 1000)
                figures = {
                    "p50_ms": round(statistics.median(ms), 1),
                    "p95_ms": round(_p95(sorted(ms)), 1),
                    "sum_s": round(sum(ms) / 1000, 2),
                }
                runs.append(figures)
                print(f"{label}: {len(ms)} plans, {figures}", flush=True)
    medians = {k: statistics.median(r[k] for r in runs) for k in ("p50_ms", "p95_ms", "sum_s")}
    if args.json:
        print(json.dumps({"runs": runs, "median": medians, **run.finish()}, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

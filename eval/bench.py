"""``python -m eval.bench [--json]``: the planner and pipeline benchmarks, one after the other.

Each benchmark runs in its own process (``python -m eval.bench_planner --json`` and
``python -m eval.bench_pipeline --json``), so neither one's solver threads, caches or
worker pools distort the other's timings. Their tables are printed as they come; with
``--json`` the last line is ``{"planner": {...}, "pipeline": {...}}``, each value the last
JSON line its benchmark printed. Extra arguments go through ``--planner-args`` and
``--pipeline-args`` (one quoted string each, e.g. ``--pipeline-args "--requests 50"``).

Exit status: 0 when both benchmarks succeed, else the first non-zero status.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = (("planner", "eval.bench_planner"), ("pipeline", "eval.bench_pipeline"))


def run_benchmark(module: str, args: Sequence[str]) -> tuple[int, list[str], dict[str, Any]]:
    """Run ``python -m module --json *args``; its printed lines (the JSON line removed),
    exit status and the JSON object it printed last ({} if none)."""
    done = subprocess.run(
        [sys.executable, "-m", module, "--json", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = done.stdout.rstrip("\n").splitlines()
    result: dict[str, Any] = {}
    if lines:
        try:
            parsed = json.loads(lines[-1])
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict):
            result = parsed
            lines = lines[:-1]
    if done.returncode != 0:
        lines.append(f"{module} exited with status {done.returncode}")
        lines += [f"  {line}" for line in done.stderr.strip().splitlines()[-10:]]
    return done.returncode, lines, result


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m eval.bench", description="Run the planner and pipeline benchmarks."
    )
    p.add_argument("--json", action="store_true", help="end with one JSON line of both results")
    p.add_argument("--planner-args", default="", help="extra arguments for eval.bench_planner")
    p.add_argument("--pipeline-args", default="", help="extra arguments for eval.bench_pipeline")
    p.add_argument(
        "--only", choices=[name for name, _ in BENCHMARKS], help="run one benchmark only"
    )
    args = p.parse_args(argv)
    extra = {"planner": args.planner_args, "pipeline": args.pipeline_args}
    merged: dict[str, Any] = {}
    status = 0
    for name, module in BENCHMARKS:
        if args.only and name != args.only:
            continue
        print(f"== {name} benchmark: python -m {module} {extra[name]}".rstrip(), flush=True)
        code, lines, result = run_benchmark(module, shlex.split(extra[name]))
        print("\n".join(lines), flush=True)
        merged[name] = result
        status = status or code
    if args.json:
        print(json.dumps(merged, sort_keys=True))
    return status


if __name__ == "__main__":
    sys.exit(main())

"""A process's and a batch's fixed costs, for ``eval.bench_pipeline``.

- ``startup``: ``advise run`` of one request (the first line of ``demos/requests.jsonl``)
  in fresh processes, each with a fresh state directory so every stage runs: the wall
  time from launching the process to the start of its first stage (read from the run's
  JSON-lines log: the first ``stage.done`` event's time less its ``duration_ms``) and to
  its exit. The first run meets an empty catalog cache (a private one, under the
  benchmark's temporary directory) and is reported apart; the others are summarized by
  their median.
- ``batch_memory``: a batch run as ``advise batch --workers 2`` in a subprocess, with the
  real agents or with fake stages, its process tree sampled from /proc
  (``eval.proc_memory``): the simultaneous peak of the batch's parent and workers summed
  (``batch_peak_rss_mb``, sampled every 10 ms), each process's own peak as the batch
  reports it (``peak_rss_mb_parent``, ``peak_rss_mb_worker``: reached at different
  moments, so their sum overstates the batch's), and the whole tree's RSS and PSS.

Both take the catalog the real agents run against (``--catalog``; None: the sample).
Run alone, ``python -m eval.bench_startup [--runs 7] [--catalog PATH] [--json]`` measures
start-up only (``eval.bench_pipeline`` runs it with everything else); ``--without NAME``
leaves one of ``pipeline.startup``'s measures out, and ``--each`` measures what each saves
(``each_measure``).

Python's bytecode cache matters to start-up: with ``PYTHONDONTWRITEBYTECODE`` set and no
compiled modules beside the sources (an editable install: ``pip install -e``), every run
compiles the project's modules again; ``python -m compileall -q agents pipeline`` once after
installing saves that (``bytecode_cache`` in the figures says whether runs start from
compiled modules: Python may write them, or they are there and up to date).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from eval.proc_memory import SumSampler, TreeSampler
from pipeline.startup import MEASURES, WITHOUT_ENV

REPO = Path(__file__).resolve().parents[1]
REQUESTS = REPO / "demos" / "requests.jsonl"


def bench_env(root: Path) -> dict[str, str]:
    """The environment the benchmark's subprocesses run in: a private catalog cache under
    ``root`` (empty at first), so no run depends on what an earlier one left behind."""
    return {**os.environ, "ADVISE_CATALOG_CACHE_DIR": str(root / "catalog-cache")}


def startup(
    runs: int,
    tmp: Path,
    env: dict[str, str],
    catalog: Path | None = None,
    line: str | None = None,
) -> dict[str, Any]:
    """``advise run`` of one request (``line``, a JSON line; default the first of
    ``demos/requests.jsonl``), ``runs`` times after a first run (the first to use the
    catalog cache in ``env``, which it finds empty if nothing ran before it)."""
    tmp.mkdir(parents=True, exist_ok=True)
    line = line or REQUESTS.read_text(encoding="utf-8").splitlines()[0]
    request = tmp / "request.json"
    request.write_text(line + "\n", encoding="utf-8")
    totals: list[float] = []
    firsts: list[float] = []
    cpu: list[float] = []  # user + system seconds: less swayed by other load than wall time
    for i in range(runs + 1):
        root = tmp / f"run-{i}"
        cmd = [sys.executable, "-m", "pipeline.cli", "run", str(request),
               "--state-dir", str(root / "state"), "--out-dir", str(root / "out"),
               "--log-dir", str(root / "logs"), *_catalog_args(catalog)]  # fmt: skip
        launched = time.time()
        started = time.perf_counter()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
        totals.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if done.returncode != 0:
            raise SystemExit(f"advise run failed ({done.returncode}): {done.stderr[-2000:]}")
        firsts.append(first_stage_start(root / "logs") - launched)
    return {
        "request": json.loads(line)["request_id"],
        "runs": runs,
        "bytecode_cache": bytecode_cached(env),
        "cold_cache_first_stage_s": round(firsts[0], 3),
        "cold_cache_total_s": round(totals[0], 3),
        "first_stage_s_median": round(statistics.median(firsts[1:]), 3),
        "total_s_median": round(statistics.median(totals[1:]), 3),
        "cpu_s_median": round(statistics.median(cpu[1:]), 3),
        "total_s": [round(t, 3) for t in totals[1:]],
    }


def bytecode_cached(env: dict[str, str]) -> bool:
    """Whether ``advise`` started in ``env`` runs from compiled modules: Python may write
    them (no ``PYTHONDONTWRITEBYTECODE``), or the project's are already compiled and up to
    date (``python -m compileall``; one module stands for all)."""
    if not env.get("PYTHONDONTWRITEBYTECODE"):
        return True
    source = REPO / "agents" / "artifacts" / "base.py"
    compiled = Path(importlib.util.cache_from_source(str(source)))
    return compiled.is_file() and compiled.stat().st_mtime >= source.stat().st_mtime


def _catalog_args(catalog: Path | None) -> list[str]:
    return [] if catalog is None else ["--catalog", str(catalog)]


def first_stage_start(log_dir: Path) -> float:
    """When the run logged in ``log_dir`` started its first stage (epoch seconds)."""
    for path in sorted(log_dir.glob("*.jsonl")):
        for text in path.read_text(encoding="utf-8").splitlines():
            event = json.loads(text)
            if event.get("event") == "stage.done":
                ended = datetime.fromisoformat(event["timestamp"].replace("Z", "+00:00"))
                return ended.timestamp() - float(event["duration_ms"]) / 1000
    raise SystemExit(f"no stage.done event in the logs of {log_dir}")


def batch_memory(
    inputs: Path,
    tmp: Path,
    env: dict[str, str],
    *,
    stages: str,
    engine: str = "process",
    workers: int = 2,
    every_s: float = 1.0,
    catalog: Path | None = None,
) -> dict[str, Any]:
    """``advise batch INPUTS --workers N`` in a subprocess: the batch's processes sampled
    together every 10 ms, the whole tree every ``every_s`` seconds; raises SystemExit if
    the batch fails."""
    tmp.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pipeline.cli", "batch", str(inputs),
           "--workers", str(workers), "--stages", stages, "--engine", engine, "--quiet",
           "--json", "--state-dir", str(tmp / "state"), "--out-dir", str(tmp / "out"),
           "--log-dir", str(tmp / "logs"), *_catalog_args(catalog)]  # fmt: skip
    started = time.perf_counter()
    with (tmp / "stdout").open("w+") as out, (tmp / "stderr").open("w+") as err:
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=out, stderr=err, text=True)
        with SumSampler(proc.pid) as batch:
            tree = TreeSampler(proc, every_s=every_s)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"batch failed ({proc.returncode}): {stderr[-2000:]}")
    summary = json.loads(stdout.strip().splitlines()[-1])
    return {
        "requests": summary["requests"],
        "engine": engine,
        "workers": workers,
        "wall_s": round(wall, 1),
        # each process's own high-water mark (ru_maxrss), reached at its own moment
        "peak_rss_mb_parent": summary["peak_rss_mb_parent"],
        "peak_rss_mb_worker": summary["peak_rss_mb_worker"],
        **batch.figures(),
        **tree.figures(),
    }


def print_startup(s: dict[str, Any]) -> None:
    cache = (
        "from compiled modules"
        if s["bytecode_cache"]
        else "PYTHONDONTWRITEBYTECODE set, modules compiled at every start"
    )
    print(
        f"  advise run start-up ({s['request']}, median of {s['runs']} fresh processes, "
        f"{cache}): first stage at {s['first_stage_s_median']} s, done in "
        f"{s['total_s_median']} s (target <= 0.8 s; CPU {s['cpu_s_median']} s); with an empty "
        f"catalog cache {s['cold_cache_first_stage_s']} / {s['cold_cache_total_s']} s"
    )


def print_real_memory(m: dict[str, Any]) -> None:
    print(
        f"  memory, real agents: {m['requests']} requests, {m['workers']} workers in "
        f"{m['wall_s']} s: parent + workers at their simultaneous peak "
        f"{m.get('batch_peak_rss_mb')} MB (target <= 300 MB; sampled every 10 ms); "
        f"per-process peaks (each at its own moment) parent {m['peak_rss_mb_parent']} MB, "
        f"worker {m['peak_rss_mb_worker']} MB; whole tree with the resource tracker "
        f"{m.get('tree_peak_rss_mb')} MB RSS, {m.get('tree_peak_pss_mb')} MB PSS"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m eval.bench_startup",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--runs", type=int, default=7, help="fresh processes after the first")
    parser.add_argument("--catalog", type=Path, help="catalog to run against (default: sample)")
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    parser.add_argument(
        "--without",
        action="append",
        choices=MEASURES,
        default=[],
        help="leave a start-up measure of pipeline.startup out (repeatable): structlog "
        "(Rich and asyncio hidden from structlog), pandas (CP-SAT without pandas), gc (the "
        "collector paused while loading), lazy (stage agents imported when first used)",
    )
    parser.add_argument(
        "--each",
        action="store_true",
        help="measure with every measure, then without each one in turn (alternating "
        "rounds), and report what each saves",
    )
    args = parser.parse_args(argv)
    if args.each:
        saved = each_measure(args.runs, args.catalog)
        print(json.dumps({**saved, "load_avg": os.getloadavg()}) if args.json else saved)
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        root = Path(tmp)
        figures = startup(args.runs, root, without(bench_env(root), args.without), args.catalog)
    print_startup(figures)
    if args.json:
        print(json.dumps({**figures, "without": args.without, "load_avg": os.getloadavg()}))
    return 0


def without(env: dict[str, str], measures: list[str]) -> dict[str, str]:
    """``env`` with ``measures`` left out of every subprocess's start-up."""
    return {**env, WITHOUT_ENV: ",".join(measures)} if measures else env


def each_measure(runs: int, catalog: Path | None, rounds: int = 3) -> dict[str, Any]:
    """Time to the first stage and to exit (and the processes' CPU time, less swayed by
    other load) with every measure, and without each one:
    ``rounds`` alternating rounds of ``runs`` fresh processes each (the catalog cache
    warm), the median of each variant's round medians, and what each measure saves
    (without it minus with all; positive: it saves time)."""
    variants = ["all", *MEASURES]
    firsts: dict[str, list[float]] = {v: [] for v in variants}
    totals: dict[str, list[float]] = {v: [] for v in variants}
    cpus: dict[str, list[float]] = {v: [] for v in variants}
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        root = Path(tmp)
        env = bench_env(root)
        startup(1, root / "warm", env, catalog)  # fills the private catalog cache
        for r in range(rounds):
            for v in variants:
                leave = [] if v == "all" else [v]
                f = startup(runs, root / f"{v}-{r}", without(env, leave), catalog)
                firsts[v].append(f["first_stage_s_median"])
                totals[v].append(f["total_s_median"])
                cpus[v].append(f["cpu_s_median"])
    first = {v: round(statistics.median(x), 3) for v, x in firsts.items()}
    total = {v: round(statistics.median(x), 3) for v, x in totals.items()}
    cpu = {v: round(statistics.median(x), 3) for v, x in cpus.items()}
    return {
        "runs": runs,
        "rounds": rounds,
        "first_stage_s": first,
        "total_s": total,
        "cpu_s": cpu,
        "saves_first_stage_ms": {m: round((first[m] - first["all"]) * 1000) for m in MEASURES},
        "saves_total_ms": {m: round((total[m] - total["all"]) * 1000) for m in MEASURES},
        "saves_cpu_ms": {m: round((cpu[m] - cpu["all"]) * 1000) for m in MEASURES},
    }


if __name__ == "__main__":
    sys.exit(main())

"""Pipeline benchmark: throughput, per-stage latency, checkpoint cost, resume overhead and
peak memory, offline.

    python -m eval.bench_pipeline [--requests 200] [--rss-requests 10000] [--json]
                                  [--engine ray] [--overhead-requests 500]
                                  [--catalog PATH [--students DIR]] [--scale N]

1. Synthetic requests (every sample student x a cycle of goals) run end to end with the
   real agents, with 1 and then 2 worker processes: throughput, per-stage p50/p95,
   checkpoint bytes per request, the share of request time spent waiting for checkpoints,
   what the checkpoints' disk work costs (below), and the share spent outside the agents
   (orchestration + checkpointing; target <= 10%).
2. Resume overhead: rerunning the finished batch (every request skipped) and loading
   every checkpoint back.
3. Peak RSS of a large batch (default 10,000 requests) with the cheap fake stages
   (``tests/fake_stages.py``; the engine, store and batch driver are the real ones), run
   as ``advise batch --workers 2`` in a subprocess; target <= 500 MB. The figure is the
   simultaneous peak: the RSS of the batch's parent and workers read together every 10 ms
   and summed (``eval.proc_memory.SumSampler``); each process's own peak is shown too,
   labelled as such (they are reached at different moments: their sum overstates the
   batch). The whole process tree (the batch, its workers, the pool's resource tracker
   and, with Ray, Ray's own processes) is sampled every second: peak sum of RSS, and of
   PSS (shared pages counted once, so the truer total).
4. Peak RSS of a real batch: the ``--requests`` synthetic requests with the real agents
   through ``advise batch --workers 2`` in a subprocess, measured the same way: parent +
   workers at their simultaneous peak (target <= 300 MB), and the tree with the pool's
   resource tracker every 0.2 s. ``--real-rss-requests 0`` skips it.
5. Start-up: ``advise run`` of one request in fresh processes (``eval.bench_startup``):
   time to the first stage and to exit, median of ``--startup-runs`` runs (target
   <= 0.8 s), and the first run, whose catalog cache is empty. ``--startup-runs 0`` skips
   it. Every subprocess uses a private catalog cache in the benchmark's temporary
   directory.

**Checkpoint disk work.** ``pipeline.store`` makes checkpoints durable while stages run
(a background writer thread, or appends in the caller's thread), so neither the store's
write time (``checkpoint_writer_share``: ``BatchReport.checkpoint_io_ms``) nor the
time a request waits for checkpoints (``checkpoint_share``) is what the disk costs. In the
1-worker run (in this process) every ``os.fsync``, ``os.fdatasync`` and ``os.replace`` on
a file under the state directory is timed (``eval.checkpoint_disk``):
``checkpoint_disk.ms_per_request`` and ``share`` of request time, the calls per request,
and ``measures`` saying so. A call's wall time includes getting the interpreter lock back
while a stage computes, so it is an upper bound on the disk's time.

**Catalog.** The real agents run against the sample catalog by default, ``--catalog
PATH``, or with ``--scale N`` that catalog (the sample by default) enlarged N times
(``eval.gen_catalog.enlarge``, seed 0; 15: about 3,200 courses), written to a JSON file in
the benchmark's temporary directory (copy 0 is the base, so the sample students and
programs stay valid). The fake-stage batches do not read it. Against another catalog than
the sample the requests are made from ``--students`` (default: the catalog directory's
``students/``) with goals that name none of the sample's programs (``CATALOG_GOALS``), and
the start-up run uses the first of them: ``python -m eval.bench_pipeline --catalog
demos/unsw`` is the real-scale run on UNSW's 2,912 courses. The JSON line names it
(``catalog``: a path, ``sample`` or ``sample x15``) with its ``courses``.

**Two workers against the machine.** ``workers_speedup`` is the 1-worker batch's wall time
over the 2-worker one's. Read it against ``machine_parallel`` (``eval.bench_meta.
parallel_ceiling``, measured right after the batches): what two bare interpreters running
the same loop gain over one on this machine at that moment - 2.0 only on two free physical
cores. ``workers_efficiency`` is the one over the other.

Logging is set up first (warnings and errors only, on stderr), so no event below a warning
is rendered inside a timed run.

``--engine ray`` also runs the batches on a local Ray instance (``pipeline.ray_engine``;
needs the ray extra): the real-agent batch at 1 and 2 workers on actors, and at 2 on
plain tasks, beside the process pool; the per-request overhead of each engine (fake
stages that do nothing, ``--overhead-requests`` of them, 2 workers: wall time per
request, and its excess over the process pool); and the large fake-stage batch again with
``--engine ray``. Ray's start-up is timed apart (the cluster is started once).

With ``--json`` the last line printed is one JSON object with the figures, and the run's
``command``, ``commit``, ``dirty``, ``cores``, ``load_avg_start`` and ``load_avg_end``
(``eval.bench_meta``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agents.catalog import Catalog, StudentRecord, load_catalog
from agents.toolbox import Settings
from eval.bench_meta import RunInfo, parallel_ceiling
from eval.bench_planner import added_minor
from eval.bench_startup import (
    batch_memory,
    bench_env,
    print_real_memory,
    print_startup,
    startup,
)
from eval.checkpoint_disk import DiskCalls, disk_figures
from eval.gen_catalog import enlarge_raw
from pipeline.batch import run_batch
from pipeline.batch_input import iter_input
from pipeline.jobs import Engine, RayMode, RunOptions
from pipeline.logs import configure_logging
from pipeline.results import BatchReport, percentile
from pipeline.runner import GracefulStop
from pipeline.store import CheckpointStore

REPO = Path(__file__).resolve().parents[1]
STUDENTS = REPO / "demos" / "students"
GOALS: list[dict[str, Any]] = [
    {"intent": "plan_degree", "text": "Please plan the rest of my degree."},
    {"intent": "plan_next_term", "text": "Please plan my next semester."},
    {"intent": "add_program", "add_programs": ["MATH-MIN"], "text": "I want a math minor."},
    {"intent": "plan_degree", "max_units_per_term": 45, "text": "At most 45 units a term."},
    {"intent": "check_progress", "text": "Am I on track to graduate?"},
    {
        "intent": "policy_question",
        "text": "How many units can I take in a term?",
        "question": "How many units can I take in a term?",
    },
    {"intent": "add_program", "add_programs": ["DS-MIN"], "text": "Can I add data science?"},
]
ELIGIBLE_MINOR = "<an eligible minor>"


CATALOG_GOALS: list[dict[str, Any]] = [
    {"intent": "plan_degree", "text": "Please plan the rest of my degree."},
    {"intent": "plan_next_term", "text": "Please plan my next term."},
    {"intent": "add_program", "add_programs": [ELIGIBLE_MINOR], "text": "I want a minor."},
    {"intent": "check_progress", "text": "Am I on track to graduate?"},
    {
        "intent": "policy_question",
        "text": "How many units can I take in a term?",
        "question": "How many units can I take in a term?",
    },
]
"""The goals of requests against another catalog than the sample (``--catalog``): the
sample's without its program codes and unit figures; the minor added is one the student is
eligible for (``eval.bench_planner.added_minor``: the k-th eligible minor for the k-th
student)."""


def synthetic_requests(
    n: int, students: Path = STUDENTS, catalog: Catalog | None = None
) -> Iterator[dict[str, Any]]:
    """``n`` requests: every student of ``students`` with each goal in turn - the sample's
    goals (``GOALS``), or with ``catalog`` (another catalog) ``CATALOG_GOALS``."""
    records = [json.loads(p.read_text("utf-8")) for p in sorted(students.glob("*.json"))]
    if not records:
        raise ValueError(f"{students}: no student JSON files (*.json) to make requests from")
    goals = GOALS if catalog is None else CATALOG_GOALS
    for i in range(n):
        k = i % len(records)
        student = records[k]
        goal = goals[(i // len(records)) % len(goals)]
        if catalog is not None and goal.get("add_programs") == [ELIGIBLE_MINOR]:
            minor = added_minor(catalog, StudentRecord.model_validate(student), k)
            if minor is None:  # no minor to add: plan the degree instead
                goal = CATALOG_GOALS[0]
            else:
                goal = {**goal, "add_programs": [minor], "text": f"I want to add {minor}."}
        yield {"request_id": f"bench-{i:05d}", "student": student, **goal}


def catalog_students(catalog: Path | None, students: Path | None) -> Path:
    """The students requests are made from: ``--students``, else the ``students/``
    directory of a catalog directory, else the sample's (``demos/students``)."""
    if students is not None:
        return students
    if catalog is not None and (catalog / "students").is_dir():
        return catalog / "students"
    return STUDENTS


def _first_line(inputs: Path, other: Catalog | None) -> str | None:
    """The start-up run's request: the first real-agent request against another catalog
    than the sample (None: ``demos/requests.jsonl``'s first, as before)."""
    return None if other is None else inputs.read_text("utf-8").splitlines()[0]


def write_jsonl(path: Path, requests: Iterator[dict[str, Any]]) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for request in requests:
            f.write(json.dumps(request) + "\n")
    return path


FAKE_STAGES = "tests.fake_stages:FAKE"


def bench_catalog(
    catalog: Path | None, scale: int | None, tmp: Path
) -> tuple[Path | None, str, int]:
    """The catalog the real agents run against: its path (None: the sample), its label
    (the path, ``sample``, ``sample x15``) and its number of courses. Enlarged, it is
    written to ``tmp`` (``RunOptions.catalog`` and ``--catalog`` take a path)."""
    label = str(catalog or "sample")
    base = load_catalog(catalog)
    if scale is None:
        return catalog, label, len(base.courses)
    raw = enlarge_raw(base, scale)
    path = tmp / f"catalog-x{scale}.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path, f"{label} x{scale}", len(raw["courses"])


def run(
    inputs: Path,
    root: Path,
    workers: int,
    stages: str = "real",
    engine: Engine = "process",
    mode: RayMode = "actors",
    catalog: Path | None = None,
) -> BatchReport:
    opts = RunOptions(
        state_dir=root / "state",
        out_dir=root / "out",
        catalog=None if catalog is None else str(catalog),
        workers=workers,
        stages=stages,
        settings=Settings(),
        engine=engine,
        ray_mode=mode,
    )
    report = run_batch(iter_input(str(inputs)), opts, stop=GracefulStop())
    if report.exit_code != 0:
        raise SystemExit(f"benchmark batch failed: {report.as_json()}")
    return report


def stage_table(report: BatchReport) -> dict[str, dict[str, float]]:
    return {
        stage: {
            "p50_ms": round(percentile(values, 50), 2),
            "p95_ms": round(percentile(values, 95), 2),
        }
        for stage, values in report.stage_ms.items()
    }


def rss_batch(
    n: int, tmp: Path, engine: Engine = "process", env: dict[str, str] | None = None
) -> dict[str, Any]:
    """A large fake-stage batch through the real CLI in a subprocess."""
    tmp.mkdir(parents=True, exist_ok=True)
    inputs = write_jsonl(tmp / "rss.jsonl", synthetic_requests(n))
    figures = batch_memory(inputs, tmp, env or bench_env(tmp), stages=FAKE_STAGES, engine=engine)
    return {**figures, "stages": "fake (tests/fake_stages.py)"}


def ray_section(
    args: argparse.Namespace, tmp: Path, inputs: Path, catalog: Path | None
) -> dict[str, Any]:
    """The Ray engine beside the process pool (see the module's docstring)."""
    import ray

    from pipeline.ray_engine import connect

    started = time.perf_counter()
    connect(RunOptions(workers=2))
    init_s = time.perf_counter() - started
    try:
        real = {
            "actors_1w": run(inputs, tmp / "ray-a1", 1, engine="ray", catalog=catalog),
            "actors_2w": run(inputs, tmp / "ray-a2", 2, engine="ray", catalog=catalog),
            "tasks_2w": run(inputs, tmp / "ray-t2", 2, engine="ray", mode="tasks",
                            catalog=catalog),
        }  # fmt: skip
        n = args.overhead_requests
        fake = write_jsonl(tmp / "overhead.jsonl", synthetic_requests(n))
        empty = {
            "process_2w": run(fake, tmp / "o-p", 2, FAKE_STAGES),
            "actors_2w": run(fake, tmp / "o-a", 2, FAKE_STAGES, engine="ray"),
            "tasks_2w": run(fake, tmp / "o-t", 2, FAKE_STAGES, engine="ray", mode="tasks"),
        }
    finally:
        ray.shutdown()
    same = all(_outputs(tmp / f"ray-{k}" / "out") == _outputs(tmp / "w2" / "out")
               for k in ("a1", "a2", "t2"))  # fmt: skip
    per_request = {k: r.wall_s * 1000 / n for k, r in empty.items()}
    base = per_request["process_2w"]
    return {
        "ray_init_s": round(init_s, 2),
        "requests": args.requests,
        **{f"throughput_rps_{k}": round(args.requests / r.wall_s, 2) for k, r in real.items()},
        "outputs_identical_to_process": same,
        "peak_rss_mb_worker_actors": real["actors_2w"].peak_rss_mb_worker,
        "overhead_requests": n,
        "empty_request_ms": {k: round(v, 2) for k, v in per_request.items()},
        "overhead_ms_per_request": {
            k: round(v - base, 2) for k, v in per_request.items() if k != "process_2w"
        },
        "rss": rss_batch(args.rss_requests, tmp / "rss-ray", "ray") if args.rss_requests else {},
    }


def _outputs(out: Path) -> dict[str, bytes]:
    """A batch's outputs (<id>.json/.md/.html), by name."""
    return {p.name: p.read_bytes() for p in sorted(out.glob("*.*")) if p.is_file()
            and p.suffix in (".json", ".md", ".html") and p.name != "index.html"}  # fmt: skip


def _scale(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"scale {text!r} must be at least 1")
    return n


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    configure_logging("warning")  # before anything is timed: no debug event rendered
    meta = RunInfo.start("eval.bench_pipeline", argv)
    parser = argparse.ArgumentParser(
        prog="python -m eval.bench_pipeline",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--requests", type=int, default=200, help="real-agent requests")
    parser.add_argument("--rss-requests", type=int, default=10000, help="fake-stage requests")
    parser.add_argument(
        "--real-rss-requests",
        type=int,
        help="real-agent requests of the real batch's memory (default: --requests; 0: skip)",
    )
    parser.add_argument(
        "--startup-runs", type=int, default=5, help="fresh 'advise run' processes (0: skip)"
    )
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    parser.add_argument(
        "--engine",
        choices=("process", "ray"),
        default="process",
        help="ray: also measure the Ray engine beside the process pool (needs the ray extra)",
    )
    parser.add_argument(
        "--overhead-requests", type=int, default=500, help="empty fake-stage requests (ray)"
    )
    parser.add_argument(
        "--catalog", type=Path, help="catalog JSON file or directory the real agents run on"
    )
    parser.add_argument(
        "--scale",
        type=_scale,
        metavar="N",
        help="run the real agents on the sample catalog (or --catalog's) enlarged N times "
        "(eval.gen_catalog; 15: about 3,200 courses)",
    )
    parser.add_argument(
        "--students",
        type=Path,
        help="student JSON directory the real-agent requests are made from (default: the "
        "catalog directory's students/, else demos/students)",
    )
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="bench-pipeline-") as name:
        tmp = Path(name)
        catalog, label, courses = bench_catalog(args.catalog, args.scale, tmp)
        students = catalog_students(args.catalog, args.students)
        other = None if args.catalog is None else load_catalog(args.catalog)

        def real_requests(n: int) -> Iterator[dict[str, Any]]:
            return synthetic_requests(n, students, other)

        inputs = write_jsonl(tmp / "requests.jsonl", real_requests(args.requests))
        with DiskCalls(tmp / "w1" / "state").installed() as disk:
            one = run(inputs, tmp / "w1", workers=1, catalog=catalog)
        two = run(inputs, tmp / "w2", workers=2, catalog=catalog)
        ceiling = parallel_ceiling()  # right after the runs it is read against

        started = time.perf_counter()
        rerun = run(inputs, tmp / "w1", workers=1, catalog=catalog)
        rerun_ms = (time.perf_counter() - started) * 1000 / args.requests
        store = CheckpointStore(tmp / "w1" / "state")
        ids = list(store.ids())
        started = time.perf_counter()
        for rid in ids:
            store.load(rid)
        load_ms = (time.perf_counter() - started) * 1000 / len(ids)
        sizes = [store.path(rid).stat().st_size for rid in ids]

        request_ms = sum(one.durations_ms)
        stage_ms = sum(sum(v) for v in one.stage_ms.values())
        disk_io = disk_figures(disk, one, args.requests, request_ms)
        env = bench_env(tmp)  # its catalog cache is empty: start-up's first run fills it
        boot = (
            startup(args.startup_runs, tmp / "startup", env, catalog, _first_line(inputs, other))
            if args.startup_runs
            else {}
        )
        rss = rss_batch(args.rss_requests, tmp / "rss", env=env) if args.rss_requests else {}
        n_real = args.requests if args.real_rss_requests is None else args.real_rss_requests
        real = {}
        if n_real:
            real_inputs = write_jsonl(tmp / "real-rss.jsonl", real_requests(n_real))
            real = batch_memory(real_inputs, tmp / "real-rss", env, stages="real", every_s=0.2,
                                catalog=catalog)  # fmt: skip
        ray_figures = ray_section(args, tmp, inputs, catalog) if args.engine == "ray" else None

    result = {
        "requests": args.requests,
        "stages": "real agents (agents/*.py), offline backend",
        "catalog": label,
        "courses": courses,
        "throughput_rps_1w": round(args.requests / one.wall_s, 2),
        "throughput_rps_2w": round(args.requests / two.wall_s, 2),
        "workers_speedup": round(one.wall_s / two.wall_s, 2),
        "machine_parallel": ceiling,
        "workers_efficiency": round(one.wall_s / two.wall_s / ceiling["speedup"], 2),
        "outcomes": one.outcomes,
        "stage_ms": stage_table(one),
        "request_ms_p50": round(percentile(one.durations_ms, 50), 1),
        "request_ms_p95": round(percentile(one.durations_ms, 95), 1),
        "checkpoint_bytes_per_request": round(sum(sizes) / len(sizes)),
        "checkpoint_bytes_written_per_request": round(one.checkpoint_bytes / args.requests),
        "checkpoint_share": round(one.checkpoint_ms / request_ms, 4),
        "checkpoint_writer_share": round(one.checkpoint_io_ms / request_ms, 4),
        "checkpoint_disk": disk_io,
        "overhead_share": round((request_ms - stage_ms) / request_ms, 4),
        "resume_skip_ms_per_request": round(rerun_ms, 2),
        "resume_skipped": rerun.count("skipped"),
        "checkpoint_load_ms": round(load_ms, 2),
        "rss": rss,
        "peak_rss_mb": rss.get("batch_peak_rss_mb"),
        "rss_real": real,
        "peak_rss_mb_real": real.get("batch_peak_rss_mb"),
        "startup": boot,
        "startup_s": boot.get("total_s_median"),
        "first_stage_s": boot.get("first_stage_s_median"),
    }
    if ray_figures is not None:
        result["ray"] = ray_figures
    result.update(meta.finish())
    _print(result)
    if args.json:
        print(json.dumps(result, sort_keys=True))
    return 0


def _print(r: dict[str, Any]) -> None:
    print(
        f"pipeline benchmark: {r['requests']} requests, {r['stages']}, catalog {r['catalog']} "
        f"({r['courses']} courses); commit {r['commit']}, load {r['load_avg_start']} -> "
        f"{r['load_avg_end']}"
    )
    print(
        f"  throughput: {r['throughput_rps_1w']} req/s (1 worker), "
        f"{r['throughput_rps_2w']} req/s (2 workers): {r['workers_speedup']}x, against "
        f"{r['machine_parallel']['speedup']}x for two bare processes on this machine "
        f"(efficiency {r['workers_efficiency']})"
    )
    print(f"  request ms: p50 {r['request_ms_p50']}, p95 {r['request_ms_p95']}")
    for stage, t in r["stage_ms"].items():
        print(f"  {stage:<13} p50 {t['p50_ms']:>9} ms   p95 {t['p95_ms']:>9} ms")
    d = r["checkpoint_disk"]
    calls = ", ".join(f"{v} {k}" for k, v in d["calls_per_request"].items() if v)
    print(
        f"  checkpoint: {r['checkpoint_bytes_per_request']} bytes/request on disk, "
        f"{r['checkpoint_bytes_written_per_request']} bytes written/request, "
        f"{r['checkpoint_share']:.2%} of request time waiting for them; the store's own "
        f"write time (its writer thread's, where it has one) {r['checkpoint_writer_share']:.2%}"
    )
    print(
        f"  checkpoint disk work: {d['ms_per_request']} ms/request inside fsync, fdatasync "
        f"and rename calls ({calls} per request), {d['share']:.2%} of request time "
        "(an upper bound: includes getting the interpreter lock back)"
    )
    print(
        f"  orchestration + checkpointing: {r['overhead_share']:.2%} of request time "
        "(target <= 10%)"
    )
    print(
        f"  resume: rerun of the finished batch {r['resume_skip_ms_per_request']} ms/request "
        f"({r['resume_skipped']} skipped), checkpoint load {r['checkpoint_load_ms']} ms"
    )
    if r["rss"]:
        m = r["rss"]
        print(
            f"  memory: {m['requests']} requests with {m['stages']} in {m['wall_s']} s: "
            f"parent + workers at their simultaneous peak {m['batch_peak_rss_mb']} MB "
            "(target <= 500 MB; sampled every 10 ms); per-process peaks (each at its own "
            f"moment) parent {m['peak_rss_mb_parent']} MB, worker {m['peak_rss_mb_worker']} "
            f"MB; {_tree_line(m)}"
        )
    if r["rss_real"]:
        print_real_memory(r["rss_real"])
    if r["startup"]:
        print_startup(r["startup"])
    if "ray" in r:
        _print_ray(r["ray"], r)


def _tree_line(m: dict[str, Any]) -> str:
    return (
        f"process tree ({m.get('tree_processes')} processes): peak RSS "
        f"{m.get('tree_peak_rss_mb')} MB, PSS {m.get('tree_peak_pss_mb')} MB (first half "
        f"{m.get('tree_pss_mb_first_half')}, second half {m.get('tree_pss_mb_second_half')})"
    )


def _print_ray(ray: dict[str, Any], r: dict[str, Any]) -> None:
    print(f"ray engine (local, started in {ray['ray_init_s']} s, not counted below):")
    print(
        f"  throughput: actors {ray['throughput_rps_actors_1w']} req/s (1 worker), "
        f"{ray['throughput_rps_actors_2w']} req/s (2 workers); tasks "
        f"{ray['throughput_rps_tasks_2w']} req/s (2 workers); process pool "
        f"{r['throughput_rps_1w']} / {r['throughput_rps_2w']}; outputs identical to the "
        f"process pool's: {ray['outputs_identical_to_process']}"
    )
    ms, extra = ray["empty_request_ms"], ray["overhead_ms_per_request"]
    print(
        f"  empty request ({ray['overhead_requests']} fake, 2 workers): process "
        f"{ms['process_2w']} ms, actors {ms['actors_2w']} ms (+{extra['actors_2w']}), "
        f"tasks {ms['tasks_2w']} ms (+{extra['tasks_2w']})"
    )
    if ray["rss"]:
        m = ray["rss"]
        print(
            f"  memory: {m['requests']} requests with {m['stages']} in {m['wall_s']} s: "
            f"driver + workers at their simultaneous peak {m['batch_peak_rss_mb']} MB; "
            f"per-process peaks driver {m['peak_rss_mb_parent']} MB, worker "
            f"{m['peak_rss_mb_worker']} MB; {_tree_line(m)}"
        )


if __name__ == "__main__":
    sys.exit(main())

"""The benchmarks one can trust (issue #26): nothing below a warning is logged inside a timed
run, real scale (``--scale N``) names its catalog and course count, every JSON line names
its command, commit and load, the memory figure is the simultaneous peak of the batch's
processes (not a sum of peaks), checkpoint disk work is measured at the calls, and the
scaling benchmark's full-pool reference never counts a case it could not solve as
confirmed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from agents.catalog import load_catalog, load_student
from agents.files import atomic_write
from agents.planner import PlanResult
from agents.planner import pool as planner_pool
from agents.planner import search as planner_search
from agents.planner import solve as planner_solve
from eval import bench_pipeline, bench_planner, bench_scaling, bench_startup, plan_times
from eval.bench_meta import RunInfo, git_commit, parallel_ceiling
from eval.bench_pipeline import synthetic_requests, write_jsonl
from eval.bench_scaling import Case, budgets, reference, summarize
from eval.bench_startup import batch_memory, bench_env
from eval.checkpoint_disk import CALLS, DiskCalls
from eval.gen_catalog import enlarge
from eval.proc_memory import SumSampler, tree_pids
from pipeline.logs import configure_logging

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

REPO = Path(__file__).resolve().parents[1]
RUN_KEYS = {"command", "commit", "dirty", "cores", "load_avg_start", "load_avg_end"}


def _last_json(out: str) -> dict[str, Any]:
    return cast(dict[str, Any], json.loads(out.strip().splitlines()[-1]))


@pytest.fixture
def one_student(tmp_path: Path) -> Path:
    students = tmp_path / "students"
    students.mkdir()
    shutil.copy(REPO / "demos" / "students" / "math-first-year.json", students)
    return students


# --------------------------------------------------------------------------- bench_planner


def test_planner_bench_at_scale_names_the_enlarged_catalog_and_logs_no_debug_event(
    one_student: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configure_logging("debug")  # what a bare interpreter renders: main must quiet it first
    code = bench_planner.main(["--scale", "2", "--students", str(one_student), "--json"])
    out, err = capsys.readouterr()
    assert code == 0
    result = _last_json(out)
    courses = len(enlarge(load_catalog(), 2).courses)
    assert result["catalog_courses"] == {"sample x2": courses}
    assert result["catalogs"]["sample x2"]["catalog"] == "sample x2"
    assert result["catalogs"]["sample x2"]["courses"] == courses
    assert result["plans"] == 2  # the student's programs, and again with a minor
    assert result.keys() >= RUN_KEYS
    assert result["command"] == (
        f"python -m eval.bench_planner --scale 2 --students {one_student} --json"
    )
    assert result["commit"] == git_commit()
    assert "debug" not in out + err and "planner.solve" not in out + err


def test_planner_bench_refuses_a_scale_below_one(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        bench_planner.main(["--scale", "0"])
    assert exc.value.code == 2
    assert "argument --scale: scale '0' must be at least 1" in capsys.readouterr().err


# --------------------------------------------------------------------------- bench_meta


def test_run_info_outside_a_git_checkout_has_no_commit(tmp_path: Path) -> None:
    assert git_commit(tmp_path) is None
    info = RunInfo.start("eval.bench_x", ["--json"]).finish()
    assert info["command"] == "python -m eval.bench_x --json"
    assert info["cores"] == os.cpu_count()
    assert len(info["load_avg_start"]) == 3 and len(info["load_avg_end"]) == 3


def test_the_parallel_ceiling_reads_two_bare_processes_against_one() -> None:
    ceiling = parallel_ceiling(rounds=1)
    (one,) = ceiling["rounds"]
    assert one["one_s"] > 0 and one["two_s"] > 0
    assert ceiling["speedup"] == pytest.approx(2 * one["one_s"] / one["two_s"], abs=0.01)


def test_start_up_says_whether_it_ran_from_compiled_modules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import py_compile

    source = tmp_path / "agents" / "artifacts" / "base.py"
    source.parent.mkdir(parents=True)
    source.write_text("X = 1\n", encoding="utf-8")
    monkeypatch.setattr(bench_startup, "REPO", tmp_path)
    assert bench_startup.bytecode_cached({}) is True  # Python writes what it compiles
    off = {"PYTHONDONTWRITEBYTECODE": "1"}
    assert bench_startup.bytecode_cached(off) is False  # nothing compiled: every run compiles
    py_compile.compile(str(source))
    assert bench_startup.bytecode_cached(off) is True  # python -m compileall was run
    later = source.stat().st_mtime + 10
    os.utime(source, (later, later))
    assert bench_startup.bytecode_cached(off) is False  # the source changed since


# --------------------------------------------------------------------------- memory


def test_sum_sampler_keeps_the_simultaneous_peak_not_the_sum_of_peaks() -> None:
    # Parent, worker and the resource tracker (pid 3), read three times: the parent peaks
    # at the third read, the worker at the second; the tracker is never counted.
    reads = {1: iter([100, 50, 120]), 2: iter([10, 200, 20]), 3: iter([500, 500, 500])}
    sampler = SumSampler(
        1,
        rss=lambda pid: next(reads[pid]),
        tree=lambda root: [1, 2, 3],
        helper=lambda pid: pid == 3,
        clock=lambda: 0.0,
    )
    assert [sampler.sample() for _ in range(3)] == [110, 250, 140]
    assert sampler.peak_kb == 250  # not 120 + 200
    assert sampler.process_peaks_kb == {1: 120, 2: 200}
    assert sampler.peak_processes == 2


def test_sum_sampler_drops_a_tracker_seen_before_it_exec_ed() -> None:
    # Pid 3 is first read while it still shows its parent's command line (just forked),
    # then as the resource tracker: from the next scan on it is not counted.
    looks = iter([False, True])
    clock = iter([0.0, 1.0, 2.0])
    sampler = SumSampler(
        1,
        rss=lambda pid: 100,
        tree=lambda root: [1, 2, 3],
        helper=lambda pid: next(looks) if pid == 3 else False,
        clock=lambda: next(clock),
    )
    assert [sampler.sample() for _ in range(3)] == [300, 200, 200]


def test_sum_sampler_finds_every_process_below_the_root_and_reads_their_rss() -> None:
    grandchild = "b = b'x' * (64 << 20); print('ready', flush=True); input()"
    child = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {grandchild!r}])"
    proc = subprocess.Popen(
        [sys.executable, "-c", child], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        pids = tree_pids(proc.pid)
        sampler = SumSampler(proc.pid)
        total = sampler.sample()
    finally:
        proc.communicate("\n", timeout=20)
    assert len(pids) == 2 and pids[0] == proc.pid
    assert total >= 64 * 1024  # kB: the grandchild's 64 MiB at least
    assert total == sum(sampler.process_peaks_kb.values())


def test_batch_memory_reports_the_simultaneous_peak_and_each_process_own(
    tmp_path: Path,
) -> None:
    inputs = write_jsonl(tmp_path / "in.jsonl", synthetic_requests(20))
    env = bench_env(tmp_path)
    m = batch_memory(inputs, tmp_path / "rss", env, stages=bench_pipeline.FAKE_STAGES)
    assert m["requests"] == 20 and m["batch_peak_processes"] == 3  # parent and two workers
    per_process = m["peak_rss_mb_parent"] + 2 * m["peak_rss_mb_worker"]
    # Sampled together, the batch never holds more than every process at its own peak.
    assert 0 < m["batch_peak_rss_mb"] <= per_process * 1.02
    assert "peak_rss_mb_total" not in m


# --------------------------------------------------------------------------- checkpoint disk


def test_disk_calls_time_the_calls_under_the_state_directory_apart_and_restore_os(
    tmp_path: Path,
) -> None:
    saved = {name: getattr(os, name) for name in CALLS if hasattr(os, name)}
    state, out = tmp_path / "state", tmp_path / "out"
    state.mkdir()
    out.mkdir()
    with DiskCalls(state).installed() as disk:
        # In another thread, as the store's writer: where a call lands, not who makes it.
        writer = threading.Thread(target=atomic_write, args=(state / "a.json", b"{}"))
        writer.start()
        writer.join()
        atomic_write(out / "b.json", b"{}")
    assert {name: getattr(os, name) for name in saved} == saved
    # One atomic write each: the temp file's fsync, the rename, the directory's fsync.
    assert disk.calls == {
        "checkpoint": {"fsync": 2, "fdatasync": 0, "replace": 1},
        "other": {"fsync": 2, "fdatasync": 0, "replace": 1},
    }
    assert disk.ms["checkpoint"] > 0


def test_requests_against_another_catalog_use_its_students_and_an_eligible_minor() -> None:
    root = REPO / "demos" / "harrow-bay"
    catalog = load_catalog(root)
    students = bench_pipeline.catalog_students(root, None)
    assert students == root / "students"
    requests = list(synthetic_requests(60, students, catalog))
    ids = {json.loads(p.read_text("utf-8"))["id"] for p in students.glob("*.json")}
    assert {r["student"]["id"] for r in requests} == ids
    added = [code for r in requests for code in r.get("add_programs", [])]
    assert len(set(added)) > 1  # the k-th student's k-th eligible minor
    for r in requests:
        for code in r.get("add_programs", []):
            program = catalog.program(code)
            assert program.kind == "minor" and code not in r["student"]["programs"]
    assert {r["intent"] for r in requests} == {g["intent"] for g in bench_pipeline.CATALOG_GOALS}
    assert bench_pipeline.catalog_students(None, None) == REPO / "demos" / "students"


def test_pipeline_bench_at_scale_runs_on_the_enlarged_catalog_and_measures_disk_work(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = bench_pipeline.main(
        ["--scale", "2", "--requests", "2", "--rss-requests", "0", "--real-rss-requests", "0",
         "--startup-runs", "0", "--json"]
    )  # fmt: skip
    assert code == 0
    result = _last_json(capsys.readouterr().out)
    assert (result["catalog"], result["courses"]) == ("sample x2", 425)
    assert result["outcomes"] == {"approved": 2}
    disk = result["checkpoint_disk"]
    assert disk["measures"].startswith("wall time inside os.fsync, os.fdatasync and os.replace")
    assert sum(disk["calls_per_request"].values()) > 0
    assert disk["ms_per_request"] > 0 and 0 < disk["share"] < 1
    assert "checkpoint_io_share" not in result and "checkpoint_writer_share" in result
    assert result.keys() >= RUN_KEYS
    ceiling = result["machine_parallel"]
    assert len(ceiling["rounds"]) == 3 and ceiling["speedup"] > 0
    ratio = result["workers_speedup"] / ceiling["speedup"]
    assert result["workers_efficiency"] == pytest.approx(ratio, abs=0.02)


# --------------------------------------------------------------------------- bench_scaling


def _case(**kw: Any) -> Case:
    base: dict[str, Any] = dict(
        size=5, terms=8, programs="single", student="s", status="optimal", graduation="S2030",
        units=120.0, ms=1.0, pool=10, usable=100, proven=True, objective=(10, 0, 120.0),
        base_objective=(10, 0, 120.0),
    )  # fmt: skip
    return Case(**{**base, **kw})


def test_a_reference_without_a_plan_is_unchecked_never_a_confirmation() -> None:
    cases = [
        _case(full_status="optimal", full_objective=(10, 0, 120.0), full_scale=1.0),
        _case(full_status="optimal", full_objective=(10, 0, 117.0), full_scale=4.0),  # beaten
        _case(full_status="infeasible", full_objective=None, full_scale=16.0),
        _case(status="feasible", proven=False, full_status="infeasible", full_scale=16.0),
        _case(),  # above --full-upto: no reference run
    ]
    s = summarize(cases)
    assert {k: s[k] for k in ("full_checked", "full_unchecked", "pooled_worse",
                              "false_optimal", "optimal_checked", "optimal_unchecked",
                              "full_scale_max")} == {
        "full_checked": 2, "full_unchecked": 2, "pooled_worse": 1, "false_optimal": 1,
        "optimal_checked": 2, "optimal_unchecked": 2, "full_scale_max": 16.0,
    }  # fmt: skip


@pytest.fixture
def fake_plans(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[dict[str, Any]]]:
    """``bench_scaling.run_case`` answering 'timed out' until the selection budget is four
    times the planner's; what each call saw of the planner's budgets."""
    seen: list[dict[str, Any]] = []
    needed = 4 * planner_solve.SELECT_DTIME

    def fake(*args: Any) -> PlanResult:
        seen.append({"select": planner_solve.SELECT_DTIME,
                     "portfolio": [d for _, d in planner_search.PORTFOLIO],
                     "time_limit_s": args[4], "pool_max": planner_pool.FULL_POOL_MAX})  # fmt: skip
        found = needed <= planner_solve.SELECT_DTIME
        return cast(PlanResult, SimpleNamespace(
            graduation_term="S2030" if found else None,
            infeasible_kind=None if found else "timed_out",
        ))  # fmt: skip

    monkeypatch.setattr(bench_scaling, "run_case", fake)
    yield seen


def test_reference_raises_its_budgets_until_it_finds_a_plan_and_restores_them(
    fake_plans: list[dict[str, Any]],
) -> None:
    select, portfolio = planner_solve.SELECT_DTIME, list(planner_search.PORTFOLIO)
    catalog = load_catalog()
    student = load_student(REPO / "demos" / "students" / "math-first-year.json")
    result, scale = reference(catalog, student, ["MATH-BS"], 8, (1, 4, 16))
    assert scale == 4 and result.graduation_term == "S2030"
    assert [s["select"] for s in fake_plans] == [select, 4 * select]
    assert fake_plans[1]["portfolio"] == [4 * d for _, d in portfolio]
    assert [s["time_limit_s"] for s in fake_plans] == [60.0, 240.0]
    assert {s["pool_max"] for s in fake_plans} == {10**9}
    assert (select, portfolio) == (planner_solve.SELECT_DTIME, planner_search.PORTFOLIO)


def test_budgets_are_restored_when_the_solve_inside_fails() -> None:
    before = {(m.__name__, n): getattr(m, n) for m, n in bench_scaling.BUDGETS}
    with pytest.raises(RuntimeError), budgets(8):
        assert 8 * before[(planner_solve.__name__, "SELECT_DTIME")] == planner_solve.SELECT_DTIME
        raise RuntimeError("solver crashed")
    assert {(m.__name__, n): getattr(m, n) for m, n in bench_scaling.BUDGETS} == before


def test_plan_times_plans_the_bench_cases_and_reports_each_run_and_the_median(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    students = tmp_path / "students"
    students.mkdir()
    for name in ("cs-sophomore", "math-major"):
        shutil.copy(REPO / "demos" / "students" / f"{name}.json", students)
    sample = REPO / "agents" / "data" / "catalog.json"
    argv = ["--catalog", str(sample), "--students", str(students), "--runs", "2", "--json"]
    assert plan_times.main(argv) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert len(out["runs"]) == 2
    for run in out["runs"]:
        assert 0 < run["p50_ms"] <= run["p95_ms"] and run["sum_s"] > 0
    low, high = sorted(r["p50_ms"] for r in out["runs"])
    assert out["median"]["p50_ms"] == (low + high) / 2
    assert out["command"].startswith("python -m eval.plan_times")

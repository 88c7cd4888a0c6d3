"""Orchestration benchmark: the project's engine and checkpoint store beside LangGraph with
``SqliteSaver``, on the same stage sequence, with stages that do no work - so what is
measured is orchestration plus checkpointing.

    python -m eval.bench_orchestration [--requests 100] [--repeats 5] [--json]
                                       [--scenario approved|refined|both] [--no-fsync-too]

Needs the bench extra (``pip install -e '.[bench]'``: langgraph, langgraph-checkpoint-sqlite).

1. Recording: two demo requests (``demos/requests.jsonl``) run once with the real agents,
   offline: ``approved`` (add-cs-minor: intake, requirements, scheduling, critique,
   synthesis) and ``refined`` (overload-low-gpa: all six stages, one refinement round -
   eight stage runs). Their final contexts are real checkpoints (35-50 KB).
2. Replay: every stage returns the artifact the recorded run produced for it (and for
   its round), so both engines carry the same payload through the same path.
   (a) The project: ``run_request`` with a ``CheckpointStore(background=True)`` and the
   batch's JSON-lines log file, preceded by the ``summary`` read a batch worker does
   (``pipeline.jobs.WorkerState.process``); no outputs rendered (not orchestration).
   (b) LangGraph: a ``StateGraph`` of six nodes whose state holds the same fields
   (request, artifacts, negotiation, round, outcome), conditional edges after critique
   and refinement following the recorded path, compiled with ``SqliteSaver`` on a file
   (its own ``journal_mode=WAL``; ``synchronous`` as sqlite defaults, FULL: the WAL is
   fsynced at every commit). Four variants: ``durability="async"`` (LangGraph's
   default: a step's checkpoint is written while the next step runs) or ``"sync"``
   (written before the next step starts), each with the Pydantic artifacts in the state
   (``models``) or the same payload as plain JSON values (``json``, which LangGraph's
   msgpack serializer handles fastest).
3. Each repeat runs ``--requests`` fresh requests (new ids, new threads) per engine, the
   engines alternating; a request's wall time (``perf_counter``) and CPU time
   (``process_time``: every thread of the process) are taken around it. Reported: the
   median over repeats of each repeat's per-request median; the ratio project / the
   fastest LangGraph variant (the target: <= 0.5) and project / LangGraph's default
   (async, models); the mean time per request in the store's save calls. "Without
   fsync" repeats it all with ``os.fsync`` and ``os.fdatasync`` no-ops for the project
   and ``PRAGMA synchronous=OFF`` for sqlite. The machine's load average is reported
   before and after: on a shared machine the figures move with it.

With ``--json`` the last line printed is one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from pydantic import BaseModel

from agents.artifacts import PlanRequest
from agents.case import Case
from agents.toolbox import Settings
from pipeline.context import State, WorkflowContext
from pipeline.machine import STAGE_TABLE, StageSet, real_stages
from pipeline.runner import RequestOptions, ToolboxFactory, run_request
from pipeline.store import CheckpointStore

REPO = Path(__file__).resolve().parents[1]
DEMO_REQUESTS = REPO / "demos" / "requests.jsonl"
SCENARIOS = {"approved": "add-cs-minor", "refined": "overload-low-gpa"}
MISSING = (
    "the orchestration benchmark needs LangGraph and its SQLite checkpointer: "
    "pip install -e '.[bench]'  (langgraph, langgraph-checkpoint-sqlite)"
)


class BenchDependencyError(RuntimeError):
    """LangGraph or its SQLite checkpointer is not installed."""


def require_langgraph() -> None:
    """Raise BenchDependencyError naming the extra to install if LangGraph is missing."""
    for module in ("langgraph.graph", "langgraph.checkpoint.sqlite"):
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise BenchDependencyError(f"{MISSING}; missing module: {exc.name!r}") from None


# --------------------------------------------------------------------------- recording


def demo_request(request_id: str) -> PlanRequest:
    for line in DEMO_REQUESTS.read_text("utf-8").splitlines():
        if line.strip() and json.loads(line).get("request_id") == request_id:
            return PlanRequest.model_validate_json(line)
    raise KeyError(f"no request {request_id!r} in {DEMO_REQUESTS}")


def record(root: Path, factory: ToolboxFactory, names: list[str]) -> dict[str, WorkflowContext]:
    """Run the scenarios' demo requests with the real agents; their final contexts."""
    store = CheckpointStore(root / "recorded")
    stages = real_stages()
    out = {}
    for name in names:
        opts = RequestOptions(store=store, toolbox_factory=factory, settings=Settings(),
                              stages=stages, out_dir=None)  # fmt: skip
        ctx = run_request(demo_request(SCENARIOS[name]), opts)
        if ctx.state is not State.done:
            raise RuntimeError(f"recording {name!r} ended in {ctx.state.value!r}")
        out[name] = ctx
    return out


def path_of(ctx: WorkflowContext) -> list[str]:
    """The stage runs of a recorded context, in order."""
    return [t.stage.value for t in ctx.timings if t.ok]


class _Replay:
    """A stage agent returning what the recorded run's stage produced in the same round."""

    def __init__(self, recorded: WorkflowContext, slot: str) -> None:
        self.value = getattr(recorded, slot)

    def run(self, case: Case, tools: Any) -> BaseModel:
        value = self.value
        return value[case.round - 1] if isinstance(value, list) else value


class _NoRender:
    """Outputs are not orchestration: the benchmark never renders (``out_dir=None``)."""

    def _never(self, rec: Any) -> str:
        raise AssertionError("the orchestration benchmark renders nothing")

    to_json = to_markdown = to_html = _never


def replay_stages(recorded: WorkflowContext) -> StageSet:
    agents = {row.state: _Replay(recorded, row.slot) for row in STAGE_TABLE}
    return StageSet(name="replay", agents=agents, render=_NoRender())


def as_request(recorded: WorkflowContext, request_id: str) -> PlanRequest:
    return recorded.request.model_copy(update={"request_id": request_id})


# --------------------------------------------------------------------------- timing


@dataclass
class Timed:
    wall_ms: list[float]
    cpu_ms: list[float]


def timed(n: int, one: Callable[[int], None]) -> Timed:
    gc.collect()
    walls, cpus = [], []
    for i in range(n):
        w0, c0 = time.perf_counter(), time.process_time()
        one(i)
        cpus.append((time.process_time() - c0) * 1000)
        walls.append((time.perf_counter() - w0) * 1000)
    return Timed(walls, cpus)


@contextlib.contextmanager
def no_fsync(enabled: bool) -> Iterator[None]:
    """``os.fsync`` and ``os.fdatasync`` no-ops inside the block (the project's "without
    fsync" runs; sqlite's are turned off with ``PRAGMA synchronous=OFF``)."""
    if not enabled:
        yield
        return
    names = [name for name in ("fsync", "fdatasync") if hasattr(os, name)]
    real = {name: getattr(os, name) for name in names}
    for name in names:
        setattr(os, name, lambda fd: None)
    try:
        yield
    finally:
        for name, function in real.items():
            setattr(os, name, function)


# --------------------------------------------------------------------------- the project


class ProjectEngine:
    """``run_request`` as a batch worker calls it: one store (background writes) for every
    request, the request's checkpoint summary read first."""

    def __init__(self, root: Path, recorded: WorkflowContext, factory: ToolboxFactory) -> None:
        self.store = CheckpointStore(root / "state", background=True)
        self.recorded = recorded
        self.stages = replay_stages(recorded)
        self.factory = factory
        self.settings = Settings()
        self.prefix = root.name
        self.count = 0

    def run_one(self, i: int) -> None:
        rid = f"{self.prefix}-{self.count:06d}"
        self.count += 1
        self.store.summary(rid)
        request = as_request(self.recorded, rid)
        ctx = run_request(request, RequestOptions(store=self.store, toolbox_factory=self.factory,
                          settings=self.settings, stages=self.stages, out_dir=None))  # fmt: skip
        if ctx.state is not State.done:
            raise RuntimeError(f"replay of {rid!r} ended in {ctx.state.value!r}")

    def check(self) -> dict[str, Any]:
        """The last request's checkpoint holds what the recording did (ids aside)."""
        rid = f"{self.prefix}-{self.count - 1:06d}"
        ctx = self.store.load(rid)
        assert ctx is not None
        fields = ("proposal", "schedules", "critiques", "refinements", "negotiation", "outcome")
        differs = [f for f in fields if getattr(ctx, f) != getattr(self.recorded, f)]
        if differs:
            raise RuntimeError(f"the project's replay differs from the recording in {differs}")
        return {"checkpoint_bytes": self.store.path(rid).stat().st_size}


# --------------------------------------------------------------------------- LangGraph


class GraphState(TypedDict, total=False):
    """The LangGraph state: the same fields a WorkflowContext carries through a run."""

    request: Any
    intake: Any
    proposal: Any
    schedules: list[Any]
    critiques: list[Any]
    refinements: list[Any]
    recommendation: Any
    negotiation: list[Any]
    round: int
    outcome: str | None
    step: int


class LangGraphEngine:
    """Six nodes replaying the recorded artifacts, checkpointed by ``SqliteSaver``."""

    def __init__(self, root: Path, recorded: WorkflowContext, durability: str, payload: str,
                 synchronous: str | None = None) -> None:  # fmt: skip
        from langgraph.checkpoint.sqlite import SqliteSaver
        from langgraph.graph import END, START, StateGraph

        self.recorded = recorded
        self.durability = durability
        # "models": the Pydantic artifacts themselves (a typed state); "json": the same
        # payload as plain JSON values, which LangGraph's msgpack serializer handles fastest.
        names = [*(row.slot for row in STAGE_TABLE), "request", "negotiation", "outcome"]
        dumped = recorded.model_dump(mode="json") if payload == "json" else {}
        self.values = {n: dumped[n] if payload == "json" else getattr(recorded, n) for n in names}
        self.path = path_of(recorded)
        root.mkdir(parents=True, exist_ok=True)
        self.db = root / "checkpoints.sqlite"
        self.conn = sqlite3.connect(self.db, check_same_thread=False)
        self.saver = SqliteSaver(self.conn)
        self.saver.setup()  # journal_mode=WAL, the tables
        if synchronous is not None:
            self.conn.execute(f"PRAGMA synchronous={synchronous}")
        self.pragmas = {
            "journal_mode": self.conn.execute("PRAGMA journal_mode").fetchone()[0],
            "synchronous": self.conn.execute("PRAGMA synchronous").fetchone()[0],
        }
        graph: Any = StateGraph(GraphState)
        for row in STAGE_TABLE:
            graph.add_node(row.state.value, self._node(row.state, row.slot))
        graph.add_edge(START, "intake")
        graph.add_edge("intake", "requirements")
        graph.add_edge("requirements", "scheduling")
        graph.add_edge("scheduling", "critique")
        graph.add_conditional_edges("critique", self._next, ["refinement", "synthesis"])
        graph.add_conditional_edges("refinement", self._next, ["scheduling", "synthesis"])
        graph.add_edge("synthesis", END)
        self.graph: Any = graph.compile(checkpointer=self.saver)
        self.prefix = root.name
        self.count = 0

    def _next(self, state: GraphState) -> str:
        return self.path[state["step"]]

    def _node(self, stage: State, slot: str) -> Callable[[GraphState], dict[str, Any]]:
        values = self.values

        def node(state: GraphState) -> dict[str, Any]:
            round_ = state["round"]
            value = values[slot]
            update: dict[str, Any] = {"step": state["step"] + 1}
            if isinstance(value, list):
                update[slot] = [*state[slot][: round_ - 1], value[round_ - 1]]  # type: ignore[literal-required]
            else:
                update[slot] = value
            if stage is State.refinement and self.path[state["step"] + 1] == "scheduling":
                update["negotiation"] = values["negotiation"][:round_]
                update["round"] = round_ + 1
            if stage is State.synthesis:
                update["negotiation"] = values["negotiation"]
                update["outcome"] = values["outcome"]
            return update

        return node

    def run_one(self, i: int) -> None:
        rid = f"{self.prefix}-{self.count:06d}"
        self.count += 1
        request = self.values["request"]
        request = (
            {**request, "request_id": rid}
            if isinstance(request, dict)
            else as_request(self.recorded, rid)
        )
        state: GraphState = {"request": request, "schedules": [],
                             "critiques": [], "refinements": [], "negotiation": [], "round": 1,
                             "outcome": None, "step": 0, "intake": None, "proposal": None,
                             "recommendation": None}  # fmt: skip
        config = {"configurable": {"thread_id": rid}}
        final = self.graph.invoke(state, config, durability=self.durability)
        if final["recommendation"] is None or final["step"] != len(self.path):
            raise RuntimeError(f"LangGraph replay of {rid!r} did not finish")

    def check(self) -> dict[str, Any]:
        rid = f"{self.prefix}-{self.count - 1:06d}"
        snapshot = self.graph.get_state({"configurable": {"thread_id": rid}})
        values = snapshot.values
        differs = [f for f in ("proposal", "schedules", "critiques", "refinements", "negotiation")
                   if values[f] != self.values[f]]  # fmt: skip
        if differs:
            raise RuntimeError(f"LangGraph's replay differs from the recording in {differs}")
        sizes = [os.path.getsize(p) for p in (self.db, Path(f"{self.db}-wal")) if p.exists()]
        return {"db_bytes_per_request": round(sum(sizes) / max(self.count, 1))}

    def close(self) -> None:
        self.conn.close()


# --------------------------------------------------------------------------- running


# LangGraph's variants: durability, payload (see LangGraphEngine).
LANGGRAPH = {
    "langgraph_async": ("async", "models"),
    "langgraph_sync": ("sync", "models"),
    "langgraph_async_json": ("async", "json"),
    "langgraph_sync_json": ("sync", "json"),
}
ENGINES = ("project", *LANGGRAPH)


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 3)


def bench_scenario(
    tmp: Path,
    recorded: WorkflowContext,
    factory: ToolboxFactory,
    *,
    requests: int,
    repeats: int,
    fsync: bool,
) -> dict[str, Any]:
    tag = "fsync" if fsync else "nofsync"
    root = tmp / f"{recorded.request_id}-{tag}"
    sync = None if fsync else "OFF"
    engines: dict[str, Any] = {"project": ProjectEngine(root / "project", recorded, factory)}
    for name, (durability, payload) in LANGGRAPH.items():
        engines[name] = LangGraphEngine(root / name, recorded, durability, payload, sync)
    per_repeat: dict[str, list[Timed]] = {name: [] for name in ENGINES}
    with no_fsync(not fsync):
        for engine in engines.values():  # warm-up: imports, first files, the db
            for _ in range(3):
                engine.run_one(0)
        for r in range(repeats):
            order = ENGINES if r % 2 == 0 else tuple(reversed(ENGINES))
            for name in order:
                per_repeat[name].append(timed(requests, engines[name].run_one))
    figures: dict[str, Any] = {}
    for name, runs in per_repeat.items():
        figures[name] = {
            "wall_ms": _median([statistics.median(t.wall_ms) for t in runs]),
            "cpu_ms": _median([statistics.median(t.cpu_ms) for t in runs]),
            "wall_ms_repeats": [round(statistics.median(t.wall_ms), 3) for t in runs],
            **engines[name].check(),
        }
    project = engines["project"]
    figures["project"]["bytes_written_per_request"] = round(
        project.store.bytes_written / project.count
    )
    # Of the project's time, what the store's save/flush calls took (compaction included;
    # a mean over every request, warm-up included).
    figures["project"]["store_ms_per_request"] = round(project.store.write_ms / project.count, 3)
    figures["langgraph_pragmas"] = engines["langgraph_sync"].pragmas
    for name in LANGGRAPH:
        engines[name].close()
    best = min(LANGGRAPH, key=lambda name: figures[name]["wall_ms"])
    figures["langgraph_fastest"] = best
    for kind in ("wall", "cpu"):
        for key, name in (("fastest", best), ("default", "langgraph_async")):
            ratio = figures["project"][f"{kind}_ms"] / figures[name][f"{kind}_ms"]
            figures[f"ratio_{kind}_vs_{key}"] = round(ratio, 3)
    return figures


def machine_load() -> dict[str, Any]:
    with contextlib.suppress(OSError):
        return {"loadavg": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}
    return {}


def run(args: argparse.Namespace) -> dict[str, Any]:
    require_langgraph()
    from pipeline.logs import configure_logging, log_file

    names = list(SCENARIOS) if args.scenario == "both" else [args.scenario]
    with tempfile.TemporaryDirectory(prefix="bench-orch-", dir=args.dir) as name:
        tmp = Path(name)
        # As ``advise batch`` logs: warnings on the console, info events to a JSON-lines file.
        configure_logging("error", json_path=log_file(tmp / "logs", "bench"))
        factory = ToolboxFactory()
        recorded = record(tmp, factory, names)
        gc.freeze()  # the catalog and the modules live as long as a worker (pipeline.jobs)
        load_before = machine_load()
        result: dict[str, Any] = {
            "requests": args.requests,
            "repeats": args.repeats,
            "machine": load_before,
            "scenarios": {},
        }
        for scenario in names:
            ctx = recorded[scenario]
            entry: dict[str, Any] = {
                "request": ctx.request_id,
                "stage_runs": path_of(ctx),
                "final_checkpoint_bytes": len(ctx.model_dump_json()),
            }
            for fsync in (True, False) if args.no_fsync_too else (True,):
                key = "fsync" if fsync else "no_fsync"
                entry[key] = bench_scenario(tmp, ctx, factory, requests=args.requests,
                                            repeats=args.repeats, fsync=fsync)  # fmt: skip
            result["scenarios"][scenario] = entry
        result["machine_after"] = machine_load()
        configure_logging("error")
    return result


def _print(result: dict[str, Any]) -> None:
    m = result["machine"]
    print(f"orchestration benchmark: {result['requests']} requests x {result['repeats']} "
          f"repeats per engine; load {m.get('loadavg')} on {m.get('cpus')} cpus")  # fmt: skip
    for scenario, entry in result["scenarios"].items():
        print(f"\n{scenario} ({entry['request']}): {len(entry['stage_runs'])} stage runs "
              f"{' > '.join(entry['stage_runs'])}; final checkpoint "
              f"{entry['final_checkpoint_bytes']} bytes")  # fmt: skip
        for key in ("fsync", "no_fsync"):
            if key not in entry:
                continue
            f = entry[key]
            print(f"  {key.replace('_', ' ')}  (sqlite {f['langgraph_pragmas']})")
            print(f"    {'engine':<22}{'wall ms':>10}{'cpu ms':>10}   per request, median")
            for name in ENGINES:
                print(f"    {name:<22}{f[name]['wall_ms']:>10.3f}{f[name]['cpu_ms']:>10.3f}")
            print(f"    project / fastest LangGraph ({f['langgraph_fastest']}): wall "
                  f"{f['ratio_wall_vs_fastest']:.3f}x, cpu {f['ratio_cpu_vs_fastest']:.3f}x;  "
                  f"/ LangGraph default (async, models): wall {f['ratio_wall_vs_default']:.3f}x, "
                  f"cpu {f['ratio_cpu_vs_default']:.3f}x")  # fmt: skip
            p = f["project"]
            print(f"    project: {p['store_ms_per_request']} ms/request (mean) in store saves, "
                  f"wrote {p['bytes_written_per_request']} bytes/request "
                  f"(final checkpoint {p['checkpoint_bytes']}); sqlite grew "
                  f"{f['langgraph_sync']['db_bytes_per_request']} bytes/request")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m eval.bench_orchestration",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--requests", type=int, default=100, help="requests per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="repeats per engine")
    parser.add_argument("--scenario", choices=(*SCENARIOS, "both"), default="both")
    parser.add_argument(
        "--no-fsync-too",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also measure without fsync (default: yes)",
    )
    parser.add_argument("--dir", help="where the temporary state goes (default: $TMPDIR)")
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    args = parser.parse_args(argv)
    try:
        result = run(args)
    except BenchDependencyError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    _print(result)
    if args.json:
        print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

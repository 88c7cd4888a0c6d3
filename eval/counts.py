"""Fixed costs per request: how many plan() calls, CP-SAT solves, audits and course
rankings one request costs, over the eval suite and ``demos/requests.jsonl``.

    python -m eval.counts [--json] [--scenarios DIR] [--no-suite] [--requests FILE]
                          [--no-requests] [-v]

``counting()`` wraps, for as long as it is open, the few functions that carry the cost
(the originals are put back when it closes; nothing in ``agents/`` knows about it):

- ``plan``: every reference to ``agents.planner.api.plan`` held by a loaded module
  (stage modules import it by name), so a call answered from a memo is not counted;
- ``solves``: ``CpSolver.solve``, every CP-SAT solve (planner, sections, k-best);
- ``audits``: ``agents.audit.core._audit``, an audit actually computed (a memo miss);
  ``audit_calls``: calls of ``agents.audit.core.audit``, answered or computed;
- ``rankings`` / ``rank_ms``: ``Retriever.rank_courses`` and ``interest_scores`` calls
  (course rankings by interest) and their time.

``plan_problems`` counts the distinct planning problems among the plan() calls (the
canonical dump of student, programs and constraints): calls beyond it solved a problem
the same request had already solved. Each request runs once, in process, with the real
stages and the offline backend; counts are taken around the pipeline run only (not the
suite's own checks). Audits are remembered across the requests of a process
(``agents.audit.memo``), so a set's audit counts depend on what ran before it in the same
process: count the suite and a requests file in separate runs (``--no-requests``,
``--no-suite``) to compare them with other runs. With ``--json`` the last line is one JSON
object with the totals.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
REQUESTS = REPO / "demos" / "requests.jsonl"


@dataclass
class Counts:
    """What the open ``counting()`` has seen (reset with ``take``)."""

    plan: int = 0
    solves: int = 0
    audits: int = 0
    audit_calls: int = 0
    rankings: int = 0
    rank_ms: float = 0.0
    problems: set[str] = field(default_factory=set)

    def take(self) -> dict[str, Any]:
        """The counts so far as a row, and start again from zero."""
        row = {
            "plan": self.plan,
            "plan_problems": len(self.problems),
            "solves": self.solves,
            "audits": self.audits,
            "audit_calls": self.audit_calls,
            "rankings": self.rankings,
            "rank_ms": round(self.rank_ms, 3),
        }
        fresh = Counts()
        for name, value in asdict(fresh).items():
            setattr(self, name, value)
        self.problems = set()
        return row


def _problem(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """The canonical dump of one plan() call's inputs (the catalog is the request's)."""
    _catalog, student, programs, constraints = (*args, *kwargs.values())[:4]
    text = json.dumps(
        [student.model_dump(mode="json"), list(programs), constraints.model_dump(mode="json")],
        sort_keys=True,
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _load_stage_modules() -> None:
    """Import everything that may hold ``plan`` or ``audit`` by name, so it gets wrapped."""
    import importlib
    import pkgutil

    import agents

    for info in pkgutil.walk_packages(agents.__path__, "agents."):
        importlib.import_module(info.name)


@contextmanager
def counting() -> Iterator[Counts]:
    """Count while open; see the module docstring for what."""
    from ortools.sat.python import cp_model

    import agents.audit.core as audit_core
    import agents.planner.api as planner_api
    from agents.retrieval import Retriever

    _load_stage_modules()
    counts = Counts()
    undo: list[Callable[[], None]] = []

    def patch(owner: Any, name: str, wrapper: Any) -> None:
        old = getattr(owner, name)
        setattr(owner, name, wrapper)
        undo.append(lambda: setattr(owner, name, old))

    original_plan = planner_api.plan

    def plan(*args: Any, **kwargs: Any) -> Any:
        counts.plan += 1
        counts.problems.add(_problem(args, kwargs))
        return original_plan(*args, **kwargs)

    original_solve = cp_model.CpSolver.solve

    def solve(self: Any, *args: Any, **kwargs: Any) -> Any:
        counts.solves += 1
        return original_solve(self, *args, **kwargs)

    original_compute = audit_core._audit

    def compute(*args: Any, **kwargs: Any) -> Any:
        counts.audits += 1
        return original_compute(*args, **kwargs)

    original_audit = audit_core.audit

    def audit(*args: Any, **kwargs: Any) -> Any:
        counts.audit_calls += 1
        return original_audit(*args, **kwargs)

    def timed(method: Callable[..., Any]) -> Callable[..., Any]:
        def rank(self: Any, *args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return method(self, *args, **kwargs)
            finally:
                counts.rankings += 1
                counts.rank_ms += (time.perf_counter() - t0) * 1000

        return rank

    patch(cp_model.CpSolver, "solve", solve)
    patch(audit_core, "_audit", compute)
    patch(Retriever, "rank_courses", timed(Retriever.rank_courses))
    if hasattr(Retriever, "interest_scores"):  # the planner's rankings since #18
        patch(Retriever, "interest_scores", timed(Retriever.interest_scores))
    for module in list(sys.modules.values()):
        if module is None or not module.__name__.startswith(("agents", "pipeline")):
            continue
        for name, old, new in (("plan", original_plan, plan), ("audit", original_audit, audit)):
            if getattr(module, name, None) is old:
                patch(module, name, new)
    try:
        yield counts
    finally:
        for step in reversed(undo):
            step()


# --------------------------------------------------------------------------- the runs


def count_suite(counts: Counts, scenario_dir: Path | None = None) -> list[dict[str, Any]]:
    """One row per eval scenario (pass 1 only, the suite's checks not counted)."""
    from eval.suite import REPO_ROOT, SCENARIO_DIR, SuiteRunner, load_scenarios
    from pipeline.runner import ToolboxFactory

    scenarios = load_scenarios(scenario_dir or SCENARIO_DIR)
    rows = []
    with tempfile.TemporaryDirectory(prefix="advise-counts-") as tmp:
        runners: dict[str, SuiteRunner] = {}
        for scenario in scenarios:
            label = scenario.catalog_label
            if label not in runners:
                path = None if scenario.catalog is None else REPO_ROOT / scenario.catalog
                factory = ToolboxFactory(catalog_path=path)
                runners[label] = SuiteRunner(Path(tmp) / f"catalog-{len(runners)}", factory=factory)
            counts.take()
            run = runners[label].run(scenario)
            rows.append({"id": scenario.id, "catalog": label, **_row(counts, run.ms, run.ctx)})
    return rows


def count_requests(counts: Counts, path: Path = REQUESTS) -> list[dict[str, Any]]:
    """One row per request of a JSON-lines file (the sample catalog)."""
    from agents.toolbox import Settings
    from pipeline.batch_input import InputItem, Invalid, RequestValidator
    from pipeline.runner import RequestOptions, ToolboxFactory, run_request
    from pipeline.store import CheckpointStore

    validator = RequestValidator()
    factory = ToolboxFactory()
    rows = []
    with tempfile.TemporaryDirectory(prefix="advise-counts-") as tmp:
        store = CheckpointStore(Path(tmp))
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            if not line.strip():
                continue
            checked = validator.check(InputItem(source=f"{path.name}:{n}", text=line))
            if isinstance(checked, Invalid):
                continue
            counts.take()
            t0 = time.perf_counter()
            opts = RequestOptions(store=store, toolbox_factory=factory, settings=Settings(),
                                  out_dir=None, no_wait=True)  # fmt: skip
            ctx = run_request(checked, opts)
            ms = (time.perf_counter() - t0) * 1000
            rows.append({"id": checked.request_id, "catalog": "sample", **_row(counts, ms, ctx)})
    return rows


def _row(counts: Counts, ms: float, ctx: Any) -> dict[str, Any]:
    outcome = None if ctx is None else ctx.outcome
    return {**counts.take(), "ms": round(ms, 1), "outcome": outcome}


def totals(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Sums over ``rows``, and the requests that planned at all."""
    keys = ("plan", "plan_problems", "solves", "audits", "audit_calls", "rankings")
    out: dict[str, Any] = {"requests": len(rows)}
    out["planning_requests"] = sum(1 for r in rows if r["plan"])
    for key in keys:
        out[key] = sum(r[key] for r in rows)
    out["rank_ms"] = round(sum(r["rank_ms"] for r in rows), 1)
    out["ms"] = round(sum(r["ms"] for r in rows), 1)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from pipeline.logs import configure_logging

    p = argparse.ArgumentParser(prog="python -m eval.counts", description=__doc__.split("\n")[0])
    p.add_argument("--json", action="store_true", help="end with one JSON line of totals")
    p.add_argument("--scenarios", type=Path, default=None, help="scenario directory")
    p.add_argument("--no-suite", action="store_true", help="count the requests file only")
    p.add_argument("--no-requests", action="store_true", help="count the suite only")
    p.add_argument("--requests", type=Path, default=REQUESTS, help="JSON-lines requests")
    p.add_argument("-v", "--verbose", action="store_true", help="one line per request")
    args = p.parse_args(argv)
    configure_logging("error")
    with counting() as counts:
        suite = [] if args.no_suite else count_suite(counts, args.scenarios)
        demos = [] if args.no_requests else count_requests(counts, args.requests)
    report = {"eval": totals(suite), "requests": totals(demos)}
    for label, rows in (("eval", suite), ("requests", demos)):
        if not rows:
            continue
        if args.verbose:
            for r in rows:
                print(
                    f"{label:8} {r['id']:<36} plan {r['plan']:3} ({r['plan_problems']:3} distinct)"
                    f" solves {r['solves']:4} audits {r['audits']:3}/{r['audit_calls']:3}"
                    f" rank {r['rankings']:2} {r['ms']:8.1f} ms {r['outcome']}"
                )
        t = report[label]
        print(
            f"{label}: {t['requests']} requests ({t['planning_requests']} planning): "
            f"{t['plan']} plan() calls ({t['plan_problems']} distinct problems), "
            f"{t['solves']} CP-SAT solves, {t['audits']} audits computed "
            f"({t['audit_calls']} asked), {t['rankings']} rankings ({t['rank_ms']} ms), "
            f"{t['ms']} ms"
        )
    if args.json:
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())

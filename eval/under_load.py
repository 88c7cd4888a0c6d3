"""``python -m eval.under_load [--ids A,B] [--busy 2] [--core 0] [--json]``: the same
answers whatever the machine's load.

Runs the scenario suite (or the scenarios ``--ids`` names) twice through the whole pipeline,
each in its own ``python -m eval --once`` process pinned to one core: first with that core to
itself, then sharing it with ``--busy`` processes that spin (the planner then gets a third of
the core's time with two of them). Every scenario's digest - the sha256 of its whole
checkpoint and every output, wall-clock values left out - must be the same in both runs.

Exit status: 0 when every digest matches, 1 when one differs (each is listed with the fields
of the result that differ), 2 for unusable arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from eval.suite import SCENARIO_DIR

REPO = Path(__file__).resolve().parents[1]
SPIN = "while True:\n    pass\n"


def pinned(core: int) -> Callable[[], None]:
    """A ``preexec_fn`` that keeps the child on ``core``."""

    def pin() -> None:
        os.sched_setaffinity(0, {core})

    return pin


def run_eval(scenarios: Path, out: Path, core: int, busy: int) -> dict[str, dict[str, Any]]:
    """``python -m eval --once`` on ``scenarios`` pinned to ``core``, beside ``busy``
    spinning processes on the same core; scenario id -> its result."""
    spinners = [
        subprocess.Popen([sys.executable, "-c", SPIN], preexec_fn=pinned(core)) for _ in range(busy)
    ]
    try:
        cmd = [sys.executable, "-m", "eval", "--once", "--json", "--scenarios", str(scenarios),
               "--out", str(out)]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        done = subprocess.run(cmd, cwd=REPO, env=env, preexec_fn=pinned(core),
                              capture_output=True, text=True, check=False)  # fmt: skip
    finally:
        for p in spinners:
            p.kill()
            p.wait()
    if not out.exists():
        raise RuntimeError(f"python -m eval failed (exit {done.returncode}): {done.stderr[-2000:]}")
    data = json.loads(out.read_text("utf-8"))
    return {s["id"]: s for s in data["scenarios"]}


def differences(a: dict[str, dict[str, Any]], b: dict[str, dict[str, Any]]) -> list[str]:
    """One line per scenario whose digest differs (or that only one run has)."""
    lines = []
    for sid in sorted(set(a) | set(b)):
        x, y = a.get(sid), b.get(sid)
        if x is None or y is None:
            lines.append(f"{sid}: only in the {'loaded' if x is None else 'idle'} run")
        elif x["digest"] != y["digest"]:
            fields = {k: (x[k], y[k]) for k in x if k not in ("digest", "ms") and x[k] != y.get(k)}
            lines.append(f"{sid}: digest differs; fields {fields or '(outputs only)'}")
    return lines


def compare(ids: Sequence[str] | None, *, core: int, busy: int, source: Path) -> dict[str, Any]:
    """Both runs and what differs between them."""
    with tempfile.TemporaryDirectory(prefix="advise-load-") as tmp:
        root = Path(tmp)
        scenarios = source
        if ids:
            scenarios = root / "scenarios"
            scenarios.mkdir()
            for sid in ids:
                found = sorted(source.rglob(f"{sid}.json"))
                if not found:
                    raise FileNotFoundError(f"--ids: no scenario {sid!r} under {source}")
                target = scenarios / found[0].relative_to(source)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(found[0], target)
        started = time.perf_counter()
        idle = run_eval(scenarios, root / "idle.json", core, 0)
        idle_s = time.perf_counter() - started
        started = time.perf_counter()
        loaded = run_eval(scenarios, root / "loaded.json", core, busy)
        loaded_s = time.perf_counter() - started
    diff = differences(idle, loaded)
    return {
        "scenarios": len(idle),
        "core": core,
        "busy": busy,
        "idle_s": round(idle_s, 1),
        "loaded_s": round(loaded_s, 1),
        "differ": len(diff),
        "differences": diff,
    }


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m eval.under_load", description=__doc__)
    p.add_argument("--ids", default="", help="comma-separated scenario ids (default: all)")
    p.add_argument("--busy", type=int, default=2, help="spinning processes on the core")
    p.add_argument("--core", type=int, default=0, help="the core both runs are pinned to")
    p.add_argument("--scenarios", type=Path, default=SCENARIO_DIR, help="scenario directory")
    p.add_argument("--json", action="store_true", help="print the result as one JSON line")
    args = p.parse_args(argv)
    if args.core not in os.sched_getaffinity(0) or args.busy < 0:
        p.error(f"--core {args.core} is not available here or --busy {args.busy} is negative")
    ids = [i.strip() for i in args.ids.split(",") if i.strip()]
    try:
        result = compare(ids or None, core=args.core, busy=args.busy, source=args.scenarios)
    except (FileNotFoundError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{result['scenarios']} scenarios on core {args.core}: idle {result['idle_s']} s, "
            f"with {args.busy} busy loops {result['loaded_s']} s; "
            f"{result['differ']} differ"
        )
        for line in result["differences"]:
            print("  " + line)
    return 0 if result["differ"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

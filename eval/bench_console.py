"""How fast the console's dashboard answers over a large workspace.

``python -m eval.bench_console [--requests 10000] [--runs 30] [--json]`` writes a synthetic
workspace in a temporary directory - ``--requests`` checkpoints made from the bundled
requests (``demos/requests.jsonl``) under new ids, in a mix of states (done with an outcome
and a graduation term, awaiting approval, failed, mid-run) - signs in to the console
through Starlette's test client and times ``GET /``:

- ``cold``: the first page of a server with no summary index yet (every checkpoint read
  once, the index written to ``state/.console/index.json``);
- ``restart``: the first page of a new server that finds that index (no checkpoint read);
- ``warm``: the median and p95 of ``--runs`` pages of a running server (one directory
  listing, no checkpoint read), and the same for a filtered search
  (``/?state=done&q=...``) and the last page;
- ``after_change``: a page after 10 checkpoints changed (those 10 read again).

The figures include the whole request: routing, the session, the template; not a network.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from agents.artifacts import PlanRequest
from pipeline.context import RunConfig, new_context

REPO = Path(__file__).resolve().parents[1]
PASSWORD = "benchmark password"


def write_workspace(root: Path, n: int, seed: int = 7) -> None:
    """``n`` checkpoints under ``root/state`` (plain writes: a benchmark's scratch files)."""
    lines = (REPO / "demos" / "requests.jsonl").read_text(encoding="utf-8").splitlines()
    config = RunConfig(backend="offline", model="rules")
    bases = []
    for line in lines:
        request = PlanRequest.model_validate_json(line)
        ctx = new_context(
            request, catalog_fingerprint="0" * 64, config=config, catalog_source="bundled"
        )
        bases.append(json.loads(ctx.model_dump_json()))
    rng = random.Random(seed)
    states = ["done"] * 7 + ["awaiting_approval", "failed", "scheduling"]
    state_dir = root / "state"
    state_dir.mkdir(parents=True)
    for i in range(n):
        data = json.loads(json.dumps(bases[i % len(bases)]))
        rid = f"req-{i:05d}"
        data["request_id"] = data["request"]["request_id"] = rid
        data["request"]["student"]["name"] = f"Student {i:05d}"
        state = rng.choice(states)
        data["state"] = state
        if state == "done":
            data["outcome"] = rng.choice(["approved", "approved_with_risks", "infeasible"])
            data["recommendation"] = {"graduation_term": rng.choice(["S2027", "F2027", "S2028"])}
        (state_dir / f"{rid}.json").write_text(json.dumps(data), encoding="utf-8")


def _ms(client: Any, url: str) -> float:
    started = time.perf_counter()
    r = client.get(url)
    took = (time.perf_counter() - started) * 1000
    assert r.status_code == 200, r.text[:300]
    return took


def _summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"median_ms": round(statistics.median(ordered), 1), "p95_ms": round(p95, 1)}


def _client(root: Path) -> Any:
    import re

    from starlette.testclient import TestClient

    from pipeline.console import ConsoleConfig, create_app

    app = create_app(
        ConsoleConfig(state_dir=root / "state", out_dir=root / "out", log_dir=root / "logs")
    )
    client = TestClient(app)
    page = client.get("/login").text
    token = re.search(r'name="csrf" value="([^"]+)"', page)
    assert token is not None
    r = client.post(
        "/login",
        data={"name": "bench", "password": PASSWORD, "csrf": token.group(1)},
        follow_redirects=False,
    )
    assert r.status_code == 303
    return client


def run(n: int, runs: int) -> dict[str, Any]:
    from pipeline.console.users import UserStore

    with tempfile.TemporaryDirectory(prefix="bench-console-") as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        write_workspace(root, n)
        written_s = time.perf_counter() - started
        UserStore(root / "state").add("bench", "viewer", PASSWORD)
        client = _client(root)
        cold = _ms(client, "/")
        reread = {"cold": client.app.state.index.reread}
        client = _client(root)  # a new server: the index file, not the checkpoints
        restart = _ms(client, "/")
        reread["restart"] = client.app.state.index.reread
        pages = {
            "dashboard": "/",
            "search": "/?state=done&q=student+0042",
            "last_page": f"/?page={-(-n // 50)}",
        }
        warm = {
            name: _summary([_ms(client, url) for _ in range(runs)]) for name, url in pages.items()
        }
        for i in range(0, n, max(1, n // 10))[:10]:
            path = root / "state" / f"req-{i:05d}.json"
            data = json.loads(path.read_text(encoding="utf-8"))
            data["request"]["student"]["name"] = f"Renamed {i:05d}"
            path.write_text(json.dumps(data), encoding="utf-8")
        after_change = _ms(client, "/")
        reread["after_change"] = client.app.state.index.reread
        return {
            "checkpoints_read": reread,
            "requests": n,
            "runs": runs,
            "workspace_written_s": round(written_s, 1),
            "cold_ms": round(cold, 1),
            "restart_ms": round(restart, 1),
            "warm": warm,
            "after_change_ms": round(after_change, 1),
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m eval.bench_console",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--requests", type=int, default=10000, help="checkpoints (default 10000)")
    parser.add_argument("--runs", type=int, default=30, help="timed pages each (default 30)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    from pipeline.logs import configure_logging

    configure_logging("warning")
    figures = run(args.requests, args.runs)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"console dashboard over {figures['requests']} checkpoints ({args.runs} runs each)")
    print(f"  first page, no index yet:      {figures['cold_ms']:8.1f} ms")
    print(f"  first page after a restart:    {figures['restart_ms']:8.1f} ms")
    for name, s in figures["warm"].items():
        print(f"  {name + ':':<30} median {s['median_ms']:6.1f} ms, p95 {s['p95_ms']:6.1f} ms")
    print(f"  a page after 10 changed:       {figures['after_change_ms']:8.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

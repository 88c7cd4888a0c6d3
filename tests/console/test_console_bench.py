"""``eval.bench_console`` on a small workspace: its figures are there, and the dashboard
reads each checkpoint once, none after a restart and only the changed ones after changes."""

from __future__ import annotations

from eval.bench_console import run


def test_the_dashboard_benchmark_reads_only_what_changed() -> None:
    figures = run(40, 2)
    assert figures["requests"] == 40 and figures["runs"] == 2
    assert figures["checkpoints_read"] == {"cold": 40, "restart": 0, "after_change": 10}
    assert set(figures["warm"]) == {"dashboard", "search", "last_page"}
    assert all(s["median_ms"] > 0 for s in figures["warm"].values())

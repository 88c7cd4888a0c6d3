"""The table ``advise batch`` and ``advise resume --all`` print when they finish (without
``--json``): statuses, outcomes, LLM use and time per request, then every failed, invalid,
stale, waiting or degraded request and where the summary lines are."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.cli_common import console

if TYPE_CHECKING:
    from pipeline.jobs import RunOptions
    from pipeline.results import BatchReport


def print_report(report: BatchReport, opts: RunOptions) -> None:
    from rich.table import Table

    from pipeline.results import percentile

    out = console()
    table = Table(title=f"batch: {report.requests} request(s), {report.wall_s:.1f}s")
    table.add_column("")
    table.add_column("count", justify="right")
    for status, n in sorted(report.status.items()):
        table.add_row(f"status {status}", str(n))
    for outcome, n in sorted(report.outcomes.items()):
        table.add_row(f"outcome {outcome}", str(n))
    table.add_row("LLM calls", str(report.llm_calls))
    table.add_row("LLM tokens", str(report.tokens))
    table.add_row("ms per request p50", f"{percentile(report.durations_ms, 50):.1f}")
    table.add_row("ms per request p95", f"{percentile(report.durations_ms, 95):.1f}")
    out.print(table)
    if report.count("rerun_stale") and opts.current is not None:
        out.print(f"rerun_stale: finished under another catalog or configuration than the "
                  f"current {opts.current.short()}; rerun, previous outputs kept as .prev",
                  markup=False, highlight=False)  # fmt: skip
    listed = [("failed", report.failures), ("invalid", report.invalid), ("stale", report.stale),
              ("awaiting approval", report.awaiting), ("degraded", report.degraded)]  # fmt: skip
    for title, lines in listed:
        for i, line in enumerate(lines):
            out.print(f"{title}: {line}", markup=False, highlight=False)
            if lines is report.awaiting and report.awaiting_next[i]:
                # What to do about it, as 'advise run' prints it.
                out.print(report.awaiting_next[i], markup=False, highlight=False)
    if report.count("degraded"):
        out.print("degraded: done, but the LLM backend failed and the offline path answered; "
                  "rerun the same command with a working backend to redo just those stages",
                  markup=False, highlight=False)  # fmt: skip
    if report.storage_error is not None:
        out.print(f"storage: {report.storage_error}; requests not started were left for a "
                  "rerun of the same command", markup=False, highlight=False)  # fmt: skip
    out.print(f"summary: {opts.out_dir / 'batch-summary.jsonl'} (this run: "
              f"{report.run_summary})", markup=False, highlight=False)  # fmt: skip

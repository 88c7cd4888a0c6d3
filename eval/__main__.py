"""``python -m eval [--json] [--backend offline|gemini] [--scenarios DIR]``: run the labeled
scenario suite through the whole pipeline, print the quality table and write
``eval/results/latest.json``.

Exit status: 0 when every final plan passes the independent verifier, no expected hard
violation is missed and no run failed; 1 otherwise; 2 for unusable arguments or scenario
files. With ``--json`` the last line printed is one JSON object with the suite's numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.errors import AdvisingError
from eval.metrics import ScenarioResult
from eval.suite import SCENARIO_DIR, SuiteReport, load_scenarios, run_suite
from eval.summary import exit_code

RESULTS = Path(__file__).resolve().parent / "results" / "latest.json"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m eval", description="Run the labeled scenario suite and report metrics."
    )
    p.add_argument("--json", action="store_true", help="end with one JSON line of metrics")
    p.add_argument(
        "--backend",
        choices=("offline", "gemini"),
        default="offline",
        help="LLM backend (default: offline; gemini needs GEMINI_API_KEY)",
    )
    p.add_argument(
        "--scenarios", type=Path, default=SCENARIO_DIR, help="scenario directory (default: suite)"
    )
    p.add_argument(
        "--once",
        action="store_true",
        help="skip the second run that checks determinism (faster; deterministic is null)",
    )
    p.add_argument(
        "--out", type=Path, default=RESULTS, help=f"results file (default: {RESULTS.name})"
    )
    p.add_argument("-v", "--verbose", action="store_true", help="list every scenario's result")
    return p


def json_line(report: SuiteReport, code: int) -> dict[str, Any]:
    """The flat object printed last with ``--json``."""
    s = report.summary
    opt = s["optimality"]
    return {
        "scenarios": s["scenarios"],
        "outcome_accuracy": s["outcome_accuracy"],
        "graduation_accuracy": s["graduation_accuracy"],
        "validity": s["validity"],
        "citation_accuracy": s["citation_accuracy"],
        "open_question_recall": s["open_question_recall"],
        "violation_recall": s["violation_recall"],
        "hard_violations_missed": len(s["hard_violations_missed"]),
        "matches_planner_optimum": opt["matches_planner_optimum"],
        "proven_optimal": opt["proven_optimal"],
        "at_lower_bound": opt["at_lower_bound"],
        "alternatives_shown": s["alternatives"]["shown"],
        "alternatives_labels_match": s["alternatives"]["labels_match"],
        "invalid_alternatives": len(s["alternatives"]["invalid"]),
        "deterministic": s["deterministic"],
        "throughput_rps": s["throughput_rps"],
        "backend": report.backend,
        "catalogs": {
            label: {key: cs[key] for key in CATALOG_KEYS}
            for label, cs in report.per_catalog.items()
        },
        "exit_code": code,
    }


CATALOG_KEYS = (
    "scenarios",
    "outcome_accuracy",
    "graduation_accuracy",
    "validity",
    "citation_accuracy",
    "violation_recall",
    "deterministic",
    "throughput_rps",
)


def print_catalogs(report: SuiteReport) -> None:
    """One row per catalog with its headline numbers."""
    from rich.console import Console
    from rich.table import Table

    t = Table(title="Per catalog")
    for col in ("catalog", "scenarios", "outcome", "graduation", "validity", "citations"):
        t.add_column(col, justify="left" if col == "catalog" else "right")
    for label, cs in report.per_catalog.items():
        t.add_row(
            label,
            str(cs["scenarios"]),
            _pct(cs["outcome_accuracy"]),
            _pct(cs["graduation_accuracy"]),
            _pct(cs["validity"]),
            _pct(cs["citation_accuracy"]),
        )
    Console(stderr=False).print(t)


def _pct(x: object) -> str:
    return "-" if x is None else f"{float(x):.1%}"  # type: ignore[arg-type]


def print_table(report: SuiteReport) -> None:
    from rich.console import Console
    from rich.table import Table

    s, opt = report.summary, report.summary["optimality"]
    t = Table(title=f"Scenario suite ({s['scenarios']} scenarios, backend {report.backend})")
    t.add_column("metric")
    t.add_column("value", justify="right")
    t.add_column("detail")
    rows = [
        ("outcome accuracy", _pct(s["outcome_accuracy"]), f"{len(s['outcome_mismatches'])} off"),
        ("graduation term accuracy", _pct(s["graduation_accuracy"]), "labeled terms"),
        ("plan validity (verifier)", _pct(s["validity"]), f"{s['plans_verified']} plans"),
        ("violation recall", _pct(s["violation_recall"]), "labeled rule ids found"),
        ("violation precision", _pct(s["violation_precision"]), "found ids that were labeled"),
        ("hard violations missed", str(len(s["hard_violations_missed"])), "must be 0"),
        ("citation accuracy", _pct(s["citation_accuracy"]), f"{s['citations_checked']} cited"),
        ("cited sections recall", _pct(s["cited_sections_recall"]), "labeled sections"),
        ("open-question recall", _pct(s["open_question_recall"]), "labeled fields"),
        (
            "exceptions, planned courses",
            _pct(s["label_accuracy"]),
            f"{len(s['label_mismatches'])} off",
        ),
        (
            "alternatives: labels",
            _pct(s["alternatives"]["labels_match"]),
            f"{s['alternatives']['shown']} shown, {len(s['alternatives']['invalid'])} invalid",
        ),
        ("optimal = planner re-run", _pct(opt["matches_planner_optimum"]), "graduation term"),
        ("proven optimal", _pct(opt["proven_optimal"]), "CP-SAT status"),
        ("at the simple lower bound", _pct(opt["at_lower_bound"]), "units/cap, chains"),
        (
            "terms above the bound",
            f"{opt['mean_terms_above_bound'] or 0:.2f}",
            f"max {opt['max_terms_above_bound']}",
        ),
        (
            "deterministic",
            {None: "-", True: "yes", False: "NO"}[s["deterministic"]],
            f"{s['determinism_checked']} re-run",
        ),
        ("throughput", f"{s['throughput_rps'] or 0:.2f} req/s", f"{s['pipeline_s']} s pipeline"),
    ]
    for row in rows:
        t.add_row(*row)
    console = Console(stderr=False)
    console.print(t)
    for label, key in (
        ("outcome mismatches", "outcome_mismatches"),
        ("label mismatches", "label_mismatches"),
        ("plans failing the verifier", "invalid_plans"),
        ("hard violations missed", "hard_violations_missed"),
        ("failed runs", "failed_runs"),
        ("not deterministic", "determinism_mismatches"),
    ):
        for item in s[key]:
            print(f"{label}: {item}")
    for item in s["alternatives"]["invalid"]:
        print(f"alternatives failing a check: {item}")


def print_details(results: Sequence[ScenarioResult]) -> None:
    for r in results:
        marks = [
            "outcome " + ("ok" if r.outcome_ok else f"{r.outcome} != {r.expected_outcome}"),
            "grad "
            + ("-" if r.graduation_ok is None else "ok" if r.graduation_ok else r.graduation),
        ]
        if r.violations_missed or r.violations_unexpected:
            marks.append(f"violations -{r.violations_missed} +{r.violations_unexpected}")
        if r.defects:
            marks.append(f"defects {len(r.defects)}")
        print(f"{r.id:<32} {r.ms:8.0f} ms  " + "; ".join(marks))


def main(argv: Sequence[str] | None = None) -> int:
    from pipeline.logs import configure_logging

    args = build_parser().parse_args(argv)
    configure_logging("error")
    try:
        scenarios = load_scenarios(args.scenarios)
        report = run_suite(scenarios, backend=args.backend, recheck=set() if args.once else None)
    except AdvisingError as exc:  # unusable scenario files, or no key for --backend gemini
        print(f"error: {exc}", file=sys.stderr)
        return 2
    code = exit_code(report.summary)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report.as_json(), indent=2) + "\n", encoding="utf-8")
    if args.verbose:
        print_details(report.results)
    print_table(report)
    print_catalogs(report)
    print(f"results: {os.path.relpath(args.out)}")
    if args.json:
        print(json.dumps(json_line(report, code)))
    return code


if __name__ == "__main__":
    sys.exit(main())

"""``python -m eval.bench_planner [--json] [--strict] [--catalog PATH --students DIR]
[--scale N]``: the planner benchmark, per catalog.

For each benchmark catalog - the sample catalog with ``demos/students/*.json``, the
second sample institution (``demos/harrow-bay`` with its ``students/``) and the real-scale
one (``demos/unsw``, 2,912 courses, with its ``students/``), or the one pair
given with ``--catalog`` and ``--students`` - plans each student toward
their declared programs, and again with one added minor (an eligible minor they do not
have: the eligible minors in code order, the k-th student taking the k-th one modulo the
count). Every plan goes through the independent verifier, and is compared with a simple
greedy planner written here as the baseline: each term take the offered courses whose
prerequisites are met, requirement courses first (longest chain of dependents first), up to
the cap, then free electives until the degree total is reached.

Counts: ``verified`` - plans with no verifier defect, plus infeasible answers where the
greedy also fails to graduate within the horizon (or graduates only with a plan the
verifier rejects); ``better_than_greedy`` / ``worse_than_greedy`` -
graduation earlier / later than the greedy's, or the same term with fewer / more units
(only where the greedy's plan itself passes the verifier; ``greedy_invalid`` counts the
greedy plans that do not, e.g. because the greedy ignores sharing limits).

With ``--alternatives K`` each feasible plan also gets up to K alternatives
(``agents.planner.alternatives``), each through the verifier: ``alternatives`` reports the
extra time (p50/p95/max over the plans), how many were found, verified, equally good or
next best, and the plans with fewer than K (no further plan exists).

An infeasible answer is counted by what it is (``PlanResult.infeasible_kind``):
``infeasible_proven`` (no plan exists) or ``timed_out`` (a time limit ran out before any
plan was found - not a proof); ``time_limits`` counts the plans where any step's limit ran
out (after a proof too, e.g. the earliest graduation's search).

Real scale: ``--scale N`` benchmarks one catalog, the sample (or ``--catalog``'s) enlarged
N times by ``eval.gen_catalog.enlarge`` (seed 0; 15 gives about 3,200 courses), with
``demos/students`` (or ``--students``): copy 0 of an enlarged catalog is the base, so the
base's students and programs stay valid.

Logging is set up first (warnings and errors only, on stderr): no event below a warning is
rendered inside the timed calls.

With ``--json`` the last line printed is one JSON object: the figures over every plan, and
under ``catalogs`` the same figures per catalog, each naming its ``catalog`` (a path,
``sample``, ``harrow-bay``, ``unsw`` or ``sample x15``) and its ``courses``; ``catalog_courses``
gives every catalog's course count, and ``command``, ``commit``, ``dirty``, ``cores``,
``load_avg_start`` and ``load_avg_end`` the run's circumstances (``eval.bench_meta``).
``--strict`` exits 1 when a target is missed (on any catalog) (median <= 100 ms, p95 <= 1
s, worse_than_greedy == 0, no timed_out).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from agents.catalog import (
    Catalog,
    StudentRecord,
    Term,
    load_catalog,
    load_student,
    use_catalog,
)
from agents.planner import (
    PlanConstraints,
    alternatives,
    free_elective_fit,
    plan,
)
from agents.policy import catalog_load_caps
from agents.verifier import verify_plan
from eval.bench_meta import RunInfo
from eval.gen_catalog import enlarge
from eval.greedy import as_result, greedy
from pipeline.logs import configure_logging

REPO = Path(__file__).resolve().parents[1]
STUDENTS = REPO / "demos" / "students"
BENCH_CATALOGS: list[tuple[str, Path | None, Path]] = [
    ("sample", None, STUDENTS),
    ("harrow-bay", REPO / "demos" / "harrow-bay", REPO / "demos" / "harrow-bay" / "students"),
    ("unsw", REPO / "demos" / "unsw", REPO / "demos" / "unsw" / "students"),
]
"""(label, catalog path or None for the sample, student directory) benchmarked by default."""
TARGET_MEDIAN_MS = 100.0
TARGET_P95_MS = 1000.0


# --------------------------------------------------------------------------- the benchmark


def added_minor(catalog: Catalog, student: StudentRecord, k: int) -> str | None:
    """The k-th eligible minor (modulo their number) the student does not have."""
    majors = [p for p in student.programs if catalog.program(p).kind == "major"]
    eligible = [
        p.code
        for p in sorted(catalog.programs, key=lambda p: p.code)
        if p.kind == "minor"
        and p.code not in student.programs
        and (not p.eligible_majors or set(p.eligible_majors) & set(majors))
        and not set(p.excluded_majors) & set(majors)
    ]
    return eligible[k % len(eligible)] if eligible else None


@dataclass
class Row:
    """One planned case."""

    student: str
    programs: list[str]
    status: str
    graduation: str | None
    units: float
    ms: float
    defects: list[str]
    greedy_graduation: str | None
    greedy_units: float
    greedy_valid: bool
    verified: bool
    compare: str
    electives: int = 0
    """Free electives planned (courses counted toward no requirement)."""
    electives_fit: int = 0
    """Of those, the ones at or above the student's level and of interest or in a program's
    subject (``agents.planner.fit``)."""
    alt_ms: float | None = None
    """Extra time for the alternatives (None: none asked for, or no plan)."""
    alt_kinds: list[str] = field(default_factory=list)
    """Kind of each alternative found ('equally_good', 'next_best', 'better')."""
    alt_verified: int = 0
    """Alternatives with no verifier defect."""
    infeasible_kind: str | None = None
    """'proven' or 'timed_out' for an infeasible answer."""
    time_limits: list[str] = field(default_factory=list)
    """Steps whose time limit ran out ('course_selection', 'earliest_graduation', ...)."""


def run_case(catalog: Catalog, student: StudentRecord, programs: list[str], k: int = 0) -> Row:
    constraints = PlanConstraints(max_units_per_term=catalog_load_caps(catalog).standard)
    t0 = time.perf_counter()
    result = plan(catalog, student, programs, constraints)
    ms = (time.perf_counter() - t0) * 1000
    defects = verify_plan(catalog, student, programs, constraints, result)
    alt_ms: float | None = None
    found = []
    if k and result.status != "infeasible":
        t1 = time.perf_counter()
        found = alternatives(catalog, student, programs, constraints, result, k)
        alt_ms = (time.perf_counter() - t1) * 1000
    g = greedy(catalog, student, programs, constraints)
    g_valid = g.graduation_term is not None and not verify_plan(
        catalog, student, programs, constraints, as_result(g)
    )
    if result.status == "infeasible":
        verified = g.graduation_term is None or not g_valid
    else:
        verified = not defects
    electives, fit = free_elective_fit(
        catalog, student, programs, result.requirement_of, constraints.interests
    )
    compare = "-"
    if result.graduation_term and g.graduation_term and g_valid:
        mine = (Term.parse(result.graduation_term).index, result.units_planned)
        theirs = (Term.parse(g.graduation_term).index, g.units)
        compare = "better" if mine < theirs else "worse" if mine > theirs else "same"
    elif result.status == "infeasible" and g_valid:
        compare = "worse"
    return Row(
        student=student.id,
        programs=programs,
        status=result.status,
        graduation=result.graduation_term,
        units=result.units_planned,
        ms=ms,
        defects=[f"{d.kind}: {d.message}" for d in defects],
        greedy_graduation=g.graduation_term,
        greedy_units=g.units,
        greedy_valid=g_valid,
        verified=verified,
        compare=compare,
        electives=electives,
        electives_fit=fit,
        alt_ms=alt_ms,
        alt_kinds=[a.kind for a in found],
        alt_verified=sum(
            not verify_plan(catalog, student, programs, constraints, a.result) for a in found
        ),
        infeasible_kind=result.infeasible_kind,
        time_limits=[x.stage for x in result.time_limits],
    )


def _p95(times: list[float]) -> float:
    return times[min(len(times) - 1, round(0.95 * (len(times) - 1)))] if times else 0.0


def summarize_alternatives(rows: list[Row], k: int) -> dict[str, Any]:
    """The alternatives' figures: extra time per plan, and what was found."""
    asked = [r for r in rows if r.alt_ms is not None]
    times = sorted(r.alt_ms for r in asked if r.alt_ms is not None)
    kinds = [kind for r in asked for kind in r.alt_kinds]
    return {
        "k": k,
        "plans": len(asked),
        "extra_ms_p50": round(statistics.median(times), 1) if times else 0.0,
        "extra_ms_p95": round(_p95(times), 1),
        "extra_ms_max": round(max(times), 1) if times else 0.0,
        "found": len(kinds),
        "verified": sum(r.alt_verified for r in asked),
        "equally_good": kinds.count("equally_good"),
        "next_best": kinds.count("next_best"),
        "better": kinds.count("better"),
        "fewer_than_k": [f"{r.student} {'+'.join(r.programs)}: {len(r.alt_kinds)}"
                         for r in asked if len(r.alt_kinds) < k],
    }  # fmt: skip


def summarize(rows: list[Row], k: int = 0) -> dict[str, Any]:
    times = sorted(r.ms for r in rows)
    electives = sum(r.electives for r in rows)
    fitting = sum(r.electives_fit for r in rows)
    p95 = _p95(times)
    extra = {"alternatives": summarize_alternatives(rows, k)} if k else {}
    return {
        **extra,
        "plans": len(rows),
        "verified": sum(r.verified for r in rows),
        "optimal": sum(r.status == "optimal" for r in rows),
        "feasible": sum(r.status == "feasible" for r in rows),
        "infeasible": sum(r.status == "infeasible" for r in rows),
        # What each "infeasible" is: a proof, or a time limit that ran out (never a proof).
        "infeasible_proven": sum(r.infeasible_kind == "proven" for r in rows),
        "timed_out": sum(r.infeasible_kind == "timed_out" for r in rows),
        "time_limits": sum(bool(r.time_limits) for r in rows),
        "median_ms": round(statistics.median(times), 1) if times else 0.0,
        "p95_ms": round(p95, 1),
        "max_ms": round(max(times), 1) if times else 0.0,
        "better_than_greedy": sum(r.compare == "better" for r in rows),
        "same_as_greedy": sum(r.compare == "same" for r in rows),
        "worse_than_greedy": sum(r.compare == "worse" for r in rows),
        "greedy_failed": sum(r.greedy_graduation is None for r in rows),
        "greedy_invalid": sum(r.greedy_graduation is not None and not r.greedy_valid for r in rows),
        "free_electives": electives,
        # Share of free electives an advisor would pick (level, interest or program subject).
        "free_elective_fit": round(fitting / electives, 3) if electives else 1.0,
    }


def _scale(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"scale {text!r} must be at least 1")
    return n


def catalogs(args: argparse.Namespace) -> list[tuple[str, Catalog, Path]]:
    """(label, catalog, student directory) for each catalog the arguments ask for."""
    if args.catalog is None and args.students is None and args.scale is None:
        return [
            (label, load_catalog(path), students)
            for label, path, students in BENCH_CATALOGS
            if path is None or path.exists()
        ]
    label = str(args.catalog or "sample")
    catalog = load_catalog(args.catalog)
    if args.scale is not None:
        label, catalog = f"{label} x{args.scale}", enlarge(catalog, args.scale)
    return [(label, catalog, args.students or STUDENTS)]


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    configure_logging("warning")  # before anything is timed: no debug event rendered
    run = RunInfo.start("eval.bench_planner", argv)
    p = argparse.ArgumentParser(prog="python -m eval.bench_planner", description=__doc__)
    p.add_argument("--json", action="store_true", help="end with one JSON line of results")
    p.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    p.add_argument("--catalog", type=Path, help="catalog JSON file or directory to bench alone")
    p.add_argument("--students", type=Path, help="student JSON directory (with --catalog)")
    p.add_argument(
        "--scale",
        type=_scale,
        metavar="N",
        help="bench the sample catalog (or --catalog's) enlarged N times "
        "(eval.gen_catalog; 15: about 3,200 courses) with demos/students (or --students)",
    )
    p.add_argument(
        "--alternatives",
        type=int,
        default=0,
        choices=range(6),
        metavar="K",
        help="also find up to K (0-5) alternatives per plan and time them (default: 0)",
    )
    args = p.parse_args(argv)
    console = Console(width=160)
    per: dict[str, dict[str, Any]] = {}
    rows: list[Row] = []
    for label, catalog, students in catalogs(args):
        with use_catalog(catalog):
            mine = bench_catalog(catalog, students, args.alternatives)
        print_rows(console, f"Planner benchmark: {label} (CP-SAT planner vs greedy)", mine)
        per[label] = {
            "catalog": label,
            "courses": len(catalog.courses),
            **summarize(mine, args.alternatives),
        }
        console.print(per[label])
        rows += mine
    summary = {
        **summarize(rows, args.alternatives),
        "catalogs": per,
        "catalog_courses": {label: cs["courses"] for label, cs in per.items()},
        **run.finish(),
    }
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    missed = any(
        cs["median_ms"] > TARGET_MEDIAN_MS
        or cs["p95_ms"] > TARGET_P95_MS
        or cs["worse_than_greedy"] > 0
        or cs["timed_out"] > 0
        for cs in per.values()
    )
    return 1 if args.strict and missed else 0


def bench_catalog(catalog: Catalog, students: Path, k: int = 0) -> list[Row]:
    """Plan every student of ``students`` on ``catalog`` (and again with an added minor),
    with up to ``k`` alternatives per plan."""
    files = sorted(students.glob("*.json"))
    if not files:
        raise SystemExit(f"error: no student *.json files in {students}")
    warm = load_student(files[0])
    plan(
        catalog,
        warm,
        warm.programs,
        PlanConstraints(max_units_per_term=catalog_load_caps(catalog).standard),
    )
    rows: list[Row] = []
    for i, path in enumerate(files):
        student = load_student(path)
        rows.append(run_case(catalog, student, list(student.programs), k))
        minor = added_minor(catalog, student, i)
        if minor is not None:
            rows.append(run_case(catalog, student, [*student.programs, minor], k))
    return rows


def print_rows(console: Console, title: str, rows: list[Row]) -> None:
    table = Table(title=title)
    for col in (
        "student",
        "programs",
        "status",
        "grad",
        "units",
        "ms",
        "greedy",
        "g.units",
        "vs greedy",
        "verified",
    ):
        table.add_column(col)
    alts = any(r.alt_ms is not None for r in rows)
    if alts:
        table.add_column("alternatives")
    for r in rows:
        more = [f"{len(r.alt_kinds)} in {r.alt_ms or 0:.0f} ms"] if alts else []
        table.add_row(
            r.student,
            "+".join(r.programs),
            r.status if r.infeasible_kind is None else f"{r.status} ({r.infeasible_kind})",
            r.graduation or "-",
            f"{r.units:g}",
            f"{r.ms:.0f}",
            (r.greedy_graduation or "-") + ("" if r.greedy_valid else " (invalid)"),
            f"{r.greedy_units:g}",
            r.compare,
            "yes" if r.verified else "NO",
            *more,
        )
    console.print(table)
    for r in rows:
        if not r.verified:
            console.print(f"[bold]{r.student} {'+'.join(r.programs)}[/bold]: {r.defects[:3]}")


if __name__ == "__main__":
    sys.exit(main())

"""``python -m eval.bench_scaling [--json] [--sizes 1,2,5,10] [--terms 8,12,16]
[--full-upto N]``: the planner on catalogs 1x to 10x the sample's size (issue #18).

Catalogs come from ``eval.gen_catalog.enlarge`` (seed 0): the sample plus renamed copies
with cross-links and extra prerequisite chains, so the sample's own programs gain options
at every size and the 1x plan stays a valid plan at every size.

Students, at different points of a degree (their records are the sample's, their programs
the sample's):

- ``entrant``: a new first-year with nothing on the record, before the first fall (current
  term the summer before, so the first plannable term is the fall), major CS-BS;
- ``math-first-year``, ``cs-sophomore``, ``econ-junior``: sample students in their first,
  second and third year (``demos/students``).

Terms remaining: the regular terms the plan may use from the first plannable one
(``PlanConstraints.horizon_terms``, which the pipeline sets to the catalog's six years of
regular terms unless configured): 8 is the four-year degree of an entrant; 12 and 16 are
extended horizons (part-time study, stop-outs, a max-terms policy), which leave the earliest
graduation where it is but give the models more terms to search. Programs: single (the
student's major), double (plus the first minor open to the major, in code order), triple
(plus two more majors: MATH-BS, STAT-BS or CS-BS).

Per cell (size x terms x programs): time per plan (median, p95, max), the candidate pool
(median and max; ``usable`` courses of the catalog beside it), the share of plans proven
optimal over the whole catalog (``PlanResult.status``, ``catalog_bound``), and how plans
compare on the part of the objective a proof covers - graduation, then risky courses
(dormant ones, consent a course route could avoid), then units, lexicographically:
``worse_than_1x`` counts plans worse than the same request's on the 1x catalog (a plan of
the 1x catalog is one of every size, so a worse one lost the optimum); up to size
``--full-upto`` the request is solved again with the pool forced to every usable course:
``pooled_worse`` (the pooled plan is worse) and ``full_worse`` (the full solve, on its
time budget, did worse). ``false_optimal`` counts plans labelled optimal although one of
these comparisons shows a better plan: it must be 0.

With ``--json`` the last line is one JSON object: ``cells``, ``sizes`` (per size) and
``seconds`` (the whole run).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from agents.catalog import Catalog, StudentRecord, Term, load_catalog, load_student, use_catalog
from agents.catalog.overrides import effective_catalog
from agents.planner import PlanConstraints, PlanResult, plan
from agents.planner.api import end_term
from agents.planner.risky import consent_needed, risky_count
from agents.planner.setup import PlanSetup
from agents.policy import catalog_load_caps
from eval.gen_catalog import enlarge, full_pool

REPO = Path(__file__).resolve().parents[1]
STUDENTS = REPO / "demos" / "students"
SIZES = (1, 2, 5, 10)
TERMS = (8, 12, 16)
PROGRAM_COUNTS = ("single", "double", "triple")
SAMPLE_STUDENTS = ("math-first-year", "cs-sophomore", "econ-junior")
MORE_MAJORS = ("MATH-BS", "STAT-BS", "CS-BS")
FULL_UPTO = 10  # every size: the full-pool solves keep the whole run near 2.5 min


def entrant() -> StudentRecord:
    """A new first-year with nothing on the record, the summer before the first fall."""
    return StudentRecord(
        id="entrant",
        name="New Entrant",
        programs=["CS-BS"],
        catalog_year="2026-2027",
        start_term="F2026",
        current_term="U2026",
    )


def students() -> list[StudentRecord]:
    return [entrant(), *(load_student(STUDENTS / f"{s}.json") for s in SAMPLE_STUDENTS)]


def programs_for(catalog: Catalog, student: StudentRecord, count: str) -> list[str]:
    """The student's major, plus a minor (double) or two more majors (triple), from the
    sample ``catalog``'s programs."""
    major = student.programs[0]
    if count == "single":
        return [major]
    if count == "double":
        minors = [
            p.code
            for p in sorted(catalog.programs, key=lambda p: p.code)
            if p.kind == "minor"
            and p.code not in student.programs
            and (not p.eligible_majors or major in p.eligible_majors)
            and major not in p.excluded_majors
        ]
        return [major, minors[0]]
    return [major, *[m for m in MORE_MAJORS if m != major][:2]]


@dataclass
class Case:
    """One planned request."""

    size: int
    terms: int
    programs: str
    student: str
    status: str
    graduation: str | None
    units: float
    ms: float
    pool: int | None
    usable: int | None
    proven: bool
    objective: Objective | None = None
    full_status: str | None = None
    full_objective: Objective | None = None
    base_objective: Objective | None = None


Objective = tuple[int, int, float]
"""(graduation term index, risky courses, units): the part of the planner's objective
"optimal" proves, compared lexicographically."""


def constraints(catalog: Catalog, terms: int) -> PlanConstraints:
    return PlanConstraints(
        max_units_per_term=catalog_load_caps(catalog).standard, horizon_terms=terms
    )


def run_case(catalog: Catalog, student: StudentRecord, progs: list[str], terms: int) -> PlanResult:
    return plan(catalog, student, progs, constraints(catalog, terms))


def objective(
    catalog: Catalog, student: StudentRecord, progs: list[str], terms: int, r: PlanResult
) -> Objective | None:
    """The result's proved objective; its risky courses (dormant optional ones, consent a
    course route could avoid) counted as the planner counts them (``agents.planner.risky``)."""
    if r.graduation_term is None:
        return None
    setup = PlanSetup(
        effective_catalog(catalog, student), student, progs, constraints(catalog, terms)
    )
    prep = setup.prep(end_term(setup))
    index = {code: i for i, code in enumerate(prep.term_codes)}
    placement = {c: index[t.term] for t in r.terms for c in t.courses}
    risky = risky_count(prep, placement, consent_needed(prep, placement))
    return (Term.parse(r.graduation_term).index, risky, r.units_planned)


def bench_size(
    size: int, terms_list: Sequence[int], full_upto: int, base: dict[str, Any]
) -> list[Case]:
    sample = load_catalog()
    catalog = enlarge(sample, size)
    out: list[Case] = []
    with use_catalog(catalog):
        people = students()
        run_case(catalog, people[0], ["CS-BS"], terms_list[0])  # warm the catalog's caches
        for terms in terms_list:
            for count in PROGRAM_COUNTS:
                for student in people:
                    progs = programs_for(sample, student, count)  # the sample's programs
                    t0 = time.perf_counter()
                    r = run_case(catalog, student, progs, terms)
                    ms = (time.perf_counter() - t0) * 1000
                    bound = r.catalog_bound
                    case = Case(
                        size, terms, count, student.id, r.status, r.graduation_term,
                        r.units_planned, round(ms, 1), r.pool_size,
                        bound.usable if bound is not None else None,
                        r.status == "optimal",
                    )  # fmt: skip
                    case.objective = objective(catalog, student, progs, terms, r)
                    key = f"{terms}/{count}/{student.id}"
                    if size == 1:
                        base[key] = case.objective
                    case.base_objective = base.get(key)
                    if size <= full_upto and r.status != "infeasible":
                        with full_pool():
                            f = run_case(catalog, student, progs, terms)
                        case.full_status = f.status
                        case.full_objective = objective(catalog, student, progs, terms, f)
                    out.append(case)
    return out


def _p95(values: list[float]) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(0.95 * (len(values) - 1)))] if values else 0.0


def summarize(cases: list[Case]) -> dict[str, Any]:
    """The figures of a group of cases (see the module docstring)."""
    times = [c.ms for c in cases]
    planned = [c for c in cases if c.status != "infeasible"]
    pools = sorted(c.pool for c in planned if c.pool is not None)
    worse_1x = [
        c for c in planned if c.objective and c.base_objective and c.objective > c.base_objective
    ]
    checked = [c for c in planned if c.full_status is not None]
    pooled_worse = [
        c for c in checked if c.objective and c.full_objective and c.objective > c.full_objective
    ]
    full_worse = sum(
        1 for c in checked if c.objective and c.full_objective and c.objective < c.full_objective
    )
    false_optimal = {id(c) for c in [*worse_1x, *pooled_worse] if c.proven}
    return {
        "plans": len(cases),
        "feasible_plans": len(planned),
        "infeasible": len(cases) - len(planned),
        "proven_optimal": sum(c.proven for c in planned),
        "proven_share": round(sum(c.proven for c in planned) / len(planned), 3) if planned else 1.0,
        "median_ms": round(statistics.median(times), 1) if times else 0.0,
        "p95_ms": round(_p95(times), 1),
        "max_ms": round(max(times), 1) if times else 0.0,
        "pool_median": statistics.median(pools) if pools else None,
        "pool_max": max(pools) if pools else None,
        "usable_max": max((c.usable for c in planned if c.usable is not None), default=None),
        "worse_than_1x": len(worse_1x),
        "full_checked": len(checked),
        "pooled_worse": len(pooled_worse),
        "full_worse": full_worse,
        "false_optimal": len(false_optimal),
    }


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m eval.bench_scaling", description=__doc__)
    p.add_argument("--json", action="store_true", help="end with one JSON line of results")
    p.add_argument("--sizes", default=",".join(map(str, SIZES)), help="catalog sizes (x sample)")
    p.add_argument("--terms", default=",".join(map(str, TERMS)), help="terms remaining")
    p.add_argument(
        "--full-upto",
        type=int,
        default=FULL_UPTO,
        help=f"compare with the forced full pool up to this size (default {FULL_UPTO})",
    )
    args = p.parse_args(argv)
    from pipeline.logs import configure_logging  # the CLI's logging: errors only

    configure_logging("error")
    sizes = sorted(int(x) for x in args.sizes.split(","))
    terms = [int(x) for x in args.terms.split(",")]
    if sizes[0] != 1:
        sizes.insert(0, 1)  # the 1x plans are every size's reference
    t0 = time.perf_counter()
    base: dict[str, Any] = {}
    cases: list[Case] = []
    for size in sizes:
        cases += bench_size(size, terms, args.full_upto, base)
    cells = []
    for size in sizes:
        for t in terms:
            for count in PROGRAM_COUNTS:
                mine = [c for c in cases if (c.size, c.terms, c.programs) == (size, t, count)]
                cells.append({"size": size, "terms": t, "programs": count, **summarize(mine)})
    per_size = {str(s): summarize([c for c in cases if c.size == s]) for s in sizes}
    print_cells(Console(width=180), cells)
    summary = {
        "cells": cells,
        "sizes": per_size,
        "cases": [asdict(c) for c in cases],
        "seconds": round(time.perf_counter() - t0, 1),
    }
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    return 0


def print_cells(console: Console, cells: list[dict[str, Any]]) -> None:
    table = Table(title="Planner scaling (generated catalogs; times per plan)")
    cols = ("size", "terms", "programs", "plans", "infeasible", "proven_share", "median_ms",
            "p95_ms", "max_ms", "pool_median", "pool_max", "usable_max", "worse_than_1x",
            "full_checked", "pooled_worse", "false_optimal")  # fmt: skip
    for col in cols:
        table.add_column(col)
    for cell in cells:
        table.add_row(*(str(cell[c]) for c in cols))
    console.print(table)


if __name__ == "__main__":
    sys.exit(main())

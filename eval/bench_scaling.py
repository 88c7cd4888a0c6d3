"""``python -m eval.bench_scaling [--json] [--sizes 1,2,5,10] [--terms 8,12,16]
[--full-upto N] [--reference-scales 1,4,16,64]``: the planner on catalogs 1x to 10x the
sample's size (issue #18).

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
the 1x catalog is one of every size, so a worse one lost the optimum).

**The full-pool reference.** Up to size ``--full-upto`` every planned request is solved
again with the pool forced to every usable course. On the larger catalogs the planner's
own deterministic budgets are too small for that model (course selection runs out at 5x
and 10x and the reference finds no plan at all), so the reference runs with every budget
that decides the proved objective - course selection, term fill, the placement portfolio,
the whole-catalog relaxation, the risky-course and overload stages (``BUDGETS``) - and
the wall-clock safety net multiplied by the first of ``--reference-scales`` (default 1,
4, 16, 64; at 10x course selection needs about 2.7 units of deterministic time, 18 times
its budget of 0.15) under which it finds a plan or proves there is none; the planner's
constants are restored after each reference solve. Figures: ``full_checked`` - plans the
reference found a plan for, so compared; ``full_unchecked`` - planned requests for which
it found none even at the largest scale (or stopped on its safety net): no comparison,
never counted as a confirmation; ``pooled_worse`` (the pooled plan is worse than the
reference's), ``full_worse`` (the reference did worse), ``full_scale_max`` (the largest
scale a reference needed).

The optimal labels: ``false_optimal`` (beaten) counts plans labelled optimal although one
of these comparisons shows a better plan - it must be 0; ``optimal_checked`` those the
full-pool reference compared, ``optimal_unchecked`` those it did not (no reference plan,
or a size above ``--full-upto``): only the 1x comparison covers them.

Logging is set up first (warnings and errors only, on stderr). With ``--json`` the last
line is one JSON object: ``cells``, ``sizes`` (per size), ``cases``, ``seconds`` (the whole
run) and the run's ``command``, ``commit``, ``dirty``, ``cores``, ``load_avg_start`` and
``load_avg_end`` (``eval.bench_meta``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from rich.console import Console
from rich.table import Table

from agents.catalog import Catalog, StudentRecord, Term, load_catalog, load_student, use_catalog
from agents.catalog.overrides import effective_catalog
from agents.planner import PlanConstraints, PlanResult, plan
from agents.planner import api as planner_api
from agents.planner import proof as planner_proof
from agents.planner import search as planner_search
from agents.planner import solve as planner_solve
from agents.planner.api import end_term
from agents.planner.risky import consent_needed, risky_count
from agents.planner.setup import PlanSetup
from agents.policy import catalog_load_caps
from eval.bench_meta import RunInfo
from eval.gen_catalog import enlarge, full_pool
from pipeline.logs import configure_logging

REPO = Path(__file__).resolve().parents[1]
STUDENTS = REPO / "demos" / "students"
SIZES = (1, 2, 5, 10)
TERMS = (8, 12, 16)
PROGRAM_COUNTS = ("single", "double", "triple")
SAMPLE_STUDENTS = ("math-first-year", "cs-sophomore", "econ-junior")
MORE_MAJORS = ("MATH-BS", "STAT-BS", "CS-BS")
FULL_UPTO = 10  # every size
REFERENCE_SCALES = (1, 4, 16, 64)
"""Budget multipliers the full-pool reference tries in turn (module docstring)."""
BUDGETS: tuple[tuple[ModuleType, str], ...] = (
    (planner_solve, "SELECT_DTIME"),
    (planner_solve, "FILL_DTIME"),
    (planner_solve, "RISKY_DTIME"),
    (planner_solve, "OVERLOAD_DTIME"),
    (planner_solve, "PORTFOLIO_DTIME"),
    (planner_search, "PORTFOLIO_DTIME"),
    (planner_proof, "RELAX_DTIME"),
    (planner_api, "RELAX_DTIME"),  # imported by name there
)
"""The planner's deterministic budgets (module, constant) that decide the proved objective -
graduation, risky courses, units - besides ``search.PORTFOLIO``'s; the tie-breaks' budgets
are left as they are."""


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
    full_scale: float | None = None
    """The budget multiplier of the reference's last solve (``REFERENCE_SCALES``)."""
    full_limits: list[str] | None = None
    """Steps of the reference's last solve whose limit ran out."""
    base_objective: Objective | None = None


Objective = tuple[int, int, float]
"""(graduation term index, risky courses, units): the part of the planner's objective
"optimal" proves, compared lexicographically."""


def constraints(catalog: Catalog, terms: int, time_limit_s: float | None = None) -> PlanConstraints:
    """The benchmark's request constraints; ``time_limit_s`` replaces the safety net's."""
    c = PlanConstraints(max_units_per_term=catalog_load_caps(catalog).standard, horizon_terms=terms)
    return c if time_limit_s is None else c.model_copy(update={"time_limit_s": time_limit_s})


@contextmanager
def budgets(scale: float) -> Iterator[None]:
    """Inside: the planner's ``BUDGETS`` and its placement portfolio's budgets multiplied
    by ``scale``; restored on the way out, whatever happens inside."""
    saved = [(module, name, getattr(module, name)) for module, name in BUDGETS]
    portfolio = planner_search.PORTFOLIO
    try:
        for module, name, value in saved:
            setattr(module, name, value * scale)
        planner_search.PORTFOLIO = [(params, dtime * scale) for params, dtime in portfolio]
        yield
    finally:
        for module, name, value in saved:
            setattr(module, name, value)
        planner_search.PORTFOLIO = portfolio


def reference(
    catalog: Catalog,
    student: StudentRecord,
    progs: list[str],
    terms: int,
    scales: Sequence[float] = REFERENCE_SCALES,
) -> tuple[PlanResult, float]:
    """The request solved with every usable course in the pool, its budgets and safety net
    multiplied by each of ``scales`` in turn until it finds a plan or proves there is none;
    the last result and its scale."""
    safety_net = constraints(catalog, terms).time_limit_s
    result: PlanResult | None = None
    scale = scales[0]
    for scale in scales:
        with full_pool(), budgets(scale):
            result = run_case(catalog, student, progs, terms, safety_net * scale)
        if result.graduation_term is not None or result.infeasible_kind == "proven":
            break
    assert result is not None, "no reference scales given"
    return result, scale


def run_case(
    catalog: Catalog,
    student: StudentRecord,
    progs: list[str],
    terms: int,
    time_limit_s: float | None = None,
) -> PlanResult:
    return plan(catalog, student, progs, constraints(catalog, terms, time_limit_s))


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
    size: int,
    terms_list: Sequence[int],
    full_upto: int,
    base: dict[str, Any],
    scales: Sequence[float] = REFERENCE_SCALES,
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
                        f, case.full_scale = reference(catalog, student, progs, terms, scales)
                        case.full_status = f.status
                        case.full_limits = [x.stage for x in f.time_limits]
                        case.full_objective = objective(catalog, student, progs, terms, f)
                    out.append(case)
    return out


def _p95(values: list[float]) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(0.95 * (len(values) - 1)))] if values else 0.0


def _compared(c: Case) -> tuple[Objective, Objective] | None:
    """(the plan's objective, the full-pool reference's) when both found a plan."""
    if c.objective is None or c.full_objective is None:
        return None
    return c.objective, c.full_objective


def summarize(cases: list[Case]) -> dict[str, Any]:
    """The figures of a group of cases (see the module docstring)."""
    times = [c.ms for c in cases]
    planned = [c for c in cases if c.status != "infeasible"]
    pools = sorted(c.pool for c in planned if c.pool is not None)
    worse_1x = [
        c for c in planned if c.objective and c.base_objective and c.objective > c.base_objective
    ]
    ran = [c for c in planned if c.full_status is not None]
    # Compared: the reference found a plan. Found none: no comparison, never a confirmation.
    checked = [(c, pair) for c in ran if (pair := _compared(c)) is not None]
    pooled_worse = [c for c, (mine, full) in checked if mine > full]
    full_worse = sum(1 for _, (mine, full) in checked if mine < full)
    false_optimal = {id(c) for c in [*worse_1x, *pooled_worse] if c.proven}
    proven = [c for c in planned if c.proven]
    optimal_checked = sum(1 for c, _ in checked if c.proven)
    scales = [c.full_scale for c in ran if c.full_scale is not None]
    return {
        "plans": len(cases),
        "feasible_plans": len(planned),
        "infeasible": len(cases) - len(planned),
        "proven_optimal": len(proven),
        "proven_share": round(len(proven) / len(planned), 3) if planned else 1.0,
        "median_ms": round(statistics.median(times), 1) if times else 0.0,
        "p95_ms": round(_p95(times), 1),
        "max_ms": round(max(times), 1) if times else 0.0,
        "pool_median": statistics.median(pools) if pools else None,
        "pool_max": max(pools) if pools else None,
        "usable_max": max((c.usable for c in planned if c.usable is not None), default=None),
        "worse_than_1x": len(worse_1x),
        "full_checked": len(checked),
        "full_unchecked": len(ran) - len(checked),
        "full_scale_max": max(scales, default=None),
        "pooled_worse": len(pooled_worse),
        "full_worse": full_worse,
        "false_optimal": len(false_optimal),
        "optimal_checked": optimal_checked,
        "optimal_unchecked": len(proven) - optimal_checked,
    }


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    configure_logging("warning")  # before anything is timed: no debug event rendered
    run = RunInfo.start("eval.bench_scaling", argv)
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
    p.add_argument(
        "--reference-scales",
        default=",".join(map(str, REFERENCE_SCALES)),
        help="budget multipliers the full-pool reference tries in turn (default "
        f"{','.join(map(str, REFERENCE_SCALES))})",
    )
    args = p.parse_args(argv)
    scales = [float(x) for x in args.reference_scales.split(",")]
    sizes = sorted(int(x) for x in args.sizes.split(","))
    terms = [int(x) for x in args.terms.split(",")]
    if sizes[0] != 1:
        sizes.insert(0, 1)  # the 1x plans are every size's reference
    t0 = time.perf_counter()
    base: dict[str, Any] = {}
    cases: list[Case] = []
    for size in sizes:
        cases += bench_size(size, terms, args.full_upto, base, scales)
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
        **run.finish(),
    }
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    return 0


def print_cells(console: Console, cells: list[dict[str, Any]]) -> None:
    table = Table(title="Planner scaling (generated catalogs; times per plan)")
    cols = ("size", "terms", "programs", "plans", "infeasible", "proven_share", "median_ms",
            "p95_ms", "max_ms", "pool_median", "pool_max", "usable_max", "worse_than_1x",
            "full_checked", "full_unchecked", "full_scale_max", "pooled_worse",
            "false_optimal", "optimal_checked", "optimal_unchecked")  # fmt: skip
    for col in cols:
        table.add_column(col)
    for cell in cells:
        table.add_row(*(str(cell[c]) for c in cols))
    console.print(table)


if __name__ == "__main__":
    sys.exit(main())

"""Demo of the scheduling agent: runs intake and requirements on a bundled request, then
the scheduling agent (CP-SAT planner, next-term sections, independent verifier), and
prints the semester-by-semester plan, what the solver proved, the next-term sections and
the verifier's verdict.

    python demos/demo_scheduling.py                  # the 'time-conflict' request
    python demos/demo_scheduling.py study-abroad     # any id from demos/requests.jsonl
    python demos/demo_scheduling.py --json           # the Schedule as JSON

Offline: no key, no network.
"""

from __future__ import annotations

import argparse

from _shared import load_request, offline_toolbox, run_demo

from agents import intake, requirements, scheduling
from agents.artifacts import Schedule

DEFAULT_ID = "time-conflict"


def show(s: Schedule) -> None:
    if s.status == "not_needed":
        print(f"Not needed: {s.not_needed_reason}")
        return
    c = s.constraints
    if c is not None:
        target = c.target_term or "none"
        print(
            f"Constraints: at most {c.max_units_per_term:g} units/term, target {target}, "
            f"terms away {', '.join(c.terms_away) or 'none'}"
        )
    print(
        f"Solver: {s.solver_status} in {s.solve_ms:.0f} ms; graduation {s.graduation_term}; "
        f"{s.units_planned:g} units planned, {s.extra_units:g} beyond what is needed"
    )
    for reason in s.reasons:
        print(f"  reason: {reason}")
    if s.earliest_feasible_term:
        print(f"  earliest feasible graduation: {s.earliest_feasible_term}")
    for t in s.terms:
        print(f"\n{t.label} ({t.units:g} units){' - away' if t.away else ''}")
        for course in t.courses:
            print(
                f"  {course.course:<8} {course.units:>4g}  {course.title}  "
                f"[{', '.join(course.satisfies)}]"
            )
    nt = s.next_term
    if nt is not None:
        print(f"\nSections for {nt.term}: {nt.status}")
        for pick in nt.sections:
            print(f"  {pick.course:<8} {pick.section:<3} {'; '.join(pick.meetings)}")
        for clash in nt.clashes:
            print(f"  clash: {clash}")
        if nt.alternative:
            print(f"  clash-free alternative: {', '.join(nt.alternative)}")
    print(f"\nVerifier: {'no defects' if not s.verification else ''}")
    for defect in s.verification:
        print(f"  {defect}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("request_id", nargs="?", default=DEFAULT_ID, help="request to run")
    parser.add_argument("--json", action="store_true", help="print the artifact as JSON")
    args = parser.parse_args(argv)
    tools = offline_toolbox()
    it = intake.read_request(load_request(args.request_id), tools)
    schedule = scheduling.place(it, requirements.propose(it, tools), None, 1, tools)
    if args.json:
        print(schedule.model_dump_json(indent=2))
    else:
        show(schedule)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_demo(main))

"""Demo of the refinement agent: runs a bundled request to its first critique, refines the
constraint set from the critique's suggestions, prints every change, then schedules and
critiques again under the new set to show what the revision bought.

    python demos/demo_refinement.py                    # the 'overload-low-gpa' request
    python demos/demo_refinement.py overload-high-gpa  # any id from demos/requests.jsonl
    python demos/demo_refinement.py --json             # the Refinement artifact as JSON

Offline: no key, no network.
"""

from __future__ import annotations

import argparse
import sys

from _shared import ROOT, load_request, run_demo  # noqa: F401 - sets up sys.path first

from agents import critique, intake, refinement, requirements, scheduling
from agents.catalog import load_catalog
from agents.negotiation import proposal_line
from agents.toolbox import Toolbox
from pipeline.logs import configure_logging

DEFAULT_ID = "overload-low-gpa"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("request_id", nargs="?", default=DEFAULT_ID, help="request to run")
    parser.add_argument("--json", action="store_true", help="print the Refinement as JSON")
    args = parser.parse_args(argv)
    configure_logging("warning", stream=sys.stderr)
    tools = Toolbox(catalog=load_catalog())
    it = intake.read_request(load_request(args.request_id), tools)
    proposal = requirements.propose(it, tools)
    first = scheduling.place(it, proposal, None, 1, tools)
    verdict = critique.review(it, first, tools)
    refined = refinement.revise(it, first, verdict, tools)
    if args.json:
        print(refined.model_dump_json(indent=2))
        return 0
    print(f"Round 1: {proposal_line(first)} -> {verdict.approval}")
    for v in verdict.violations:
        print(f"  {v.rule_id} ({v.term or 'whole plan'}): {v.message}")
    print(f"\nRefinement: {refined.status} - {refined.reason}")
    for c in refined.changes:
        print(f"  {c.field}: {c.before!r} -> {c.after!r}  ({c.rule_id}: {c.reason})")
    if refined.status != "revised" or refined.constraints is None:
        return 0
    print(f"\nNext constraint set: {refined.constraints.model_dump(exclude_defaults=True)}")
    second = scheduling.place(it, proposal, refined.constraints, 2, tools)
    again = critique.review(it, second, tools)
    print(f"\nRound 2: {proposal_line(second)} -> {again.approval}")
    print(f"  {again.explanation}")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_demo(main))

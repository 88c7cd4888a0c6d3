"""Demo of the requirements-proposal agent: runs intake on a bundled request, then the
requirements agent, and prints the audit of every target program (what-if for added ones),
the proposed course set with the requirement each course satisfies, sharing effects and
assumptions.

    python demos/demo_requirements.py                 # the 'add-cs-minor' request
    python demos/demo_requirements.py study-abroad    # any id from demos/requests.jsonl
    python demos/demo_requirements.py --json          # the RequirementsProposal as JSON

Offline: no key, no network.
"""

from __future__ import annotations

import argparse

from _shared import load_request, offline_toolbox, run_demo

from agents import intake, requirements
from agents.artifacts import RequirementsProposal
from agents.audit import render_program

DEFAULT_ID = "add-cs-minor"


def show(p: RequirementsProposal) -> None:
    if p.status == "not_needed":
        print(f"Not needed: {p.not_needed_reason}")
        return
    assert p.audit is not None
    for prog in p.audit.programs:
        print(render_program(prog))
        print()
    print(f"Units still to earn for the degree: {p.remaining_units:g}")
    print(f"\nProposed courses ({len(p.proposed_courses)}):")
    for c in p.proposed_courses:
        print(f"  {c.course:<8} {c.units:>4g}  {c.title}")
        print(f"           {c.reason}")
    for heading, items in (
        ("Sharing effects", p.sharing_effects),
        ("Eligibility", p.eligibility_issues),
        ("Assumptions", p.assumptions),
    ):
        if items:
            print(f"\n{heading}:")
            for item in items:
                print(f"  - {item}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("request_id", nargs="?", default=DEFAULT_ID, help="request to run")
    parser.add_argument("--json", action="store_true", help="print the artifact as JSON")
    args = parser.parse_args(argv)
    tools = offline_toolbox()
    result = requirements.propose(intake.read_request(load_request(args.request_id), tools), tools)
    if args.json:
        print(result.model_dump_json(indent=2))
    else:
        show(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_demo(main))

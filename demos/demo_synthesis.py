"""Demo of the synthesis agent: runs intake through critique (and the refinement loop) on a
bundled request, then synthesis, and prints the Recommendation as Markdown.

    python demos/demo_synthesis.py                      # the 'overload-low-gpa' request
    python demos/demo_synthesis.py policy-question      # any id from demos/requests.jsonl
    python demos/demo_synthesis.py --html out.html      # also write the HTML page
    python demos/demo_synthesis.py --json               # print JSON instead of Markdown

Offline: no key, no network. The loop below mirrors the pipeline machine's guards so the
negotiation rounds are the ones a real run records.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from _shared import ROOT, load_request  # noqa: F401 - sets up sys.path first

from agents import (
    critique,
    intake,
    negotiation,
    refinement,
    requirements,
    scheduling,
    synthesis,
)
from agents.artifacts import NegotiationRound, PlanRequest, Recommendation
from agents.catalog import load_catalog
from agents.render import to_html, to_json, to_markdown
from agents.toolbox import Toolbox
from pipeline.logs import configure_logging

DEFAULT_ID = "overload-low-gpa"


def recommend(request: PlanRequest, tools: Toolbox) -> Recommendation:
    """Run every stage in the machine's order and synthesize."""
    max_rounds = tools.settings.max_rounds
    it = intake.run(request, tools)
    proposal = requirements.run(it, tools)
    constraints = None
    rounds: list[NegotiationRound] = []
    rnd = 1
    while True:
        schedule = scheduling.run(it, proposal, constraints, rnd, tools)
        crit = critique.run(it, proposal, schedule, tools)
        refined = None
        if crit.approval not in ("approved", "not_needed") and rnd < max_rounds:
            refined = refinement.run(it, schedule, crit, tools)
            if negotiation.after_refinement(refined) == "schedule":
                rounds.append(negotiation.make_round(schedule, crit, refined, "revised"))
                constraints = refined.constraints
                rnd += 1
                continue
        outcome = negotiation.terminal_status(it, schedule, crit, refined, rnd, max_rounds)
        if schedule.status != "not_needed":
            if refined is not None:
                resolution = "no_change"
            elif crit.approval in ("approved", "not_needed"):
                resolution = "approved"
            elif outcome == "infeasible":
                resolution = "infeasible"
            else:
                resolution = "max_rounds"
            rounds.append(negotiation.make_round(schedule, crit, refined, resolution))
        return synthesis.run(it, proposal, schedule, crit, rounds, outcome, tools)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("request_id", nargs="?", default=DEFAULT_ID, help="request to run")
    parser.add_argument("--html", type=Path, help="also write the HTML page here")
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    args = parser.parse_args(argv)
    configure_logging("warning", stream=sys.stderr)
    rec = recommend(load_request(args.request_id), Toolbox(catalog=load_catalog()))
    print(to_json(rec) if args.json else to_markdown(rec), end="")
    if args.html:
        args.html.write_text(to_html(rec), encoding="utf-8")
        print(f"\nHTML written to {args.html}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

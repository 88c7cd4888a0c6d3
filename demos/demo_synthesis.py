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
from dataclasses import replace
from pathlib import Path

from _shared import ROOT, load_request, run_demo  # noqa: F401 - sets up sys.path first

from agents import (
    critique,
    intake,
    negotiation,
    refinement,
    requirements,
    scheduling,
    synthesis,
)
from agents.artifacts import PlanRequest, Recommendation
from agents.case import Case
from agents.catalog import load_catalog
from agents.toolbox import Toolbox
from agents.writing.render import to_html, to_json, to_markdown
from pipeline.logs import configure_logging

DEFAULT_ID = "overload-low-gpa"


def recommend(request: PlanRequest, tools: Toolbox) -> Recommendation:
    """Run every stage in the machine's order, each as ``run(case, tools)``, with the
    negotiation rules deciding the loop, and synthesize."""
    max_rounds = tools.settings.max_rounds
    case = Case(request=request)
    case = replace(case, intake=intake.run(case, tools))
    case = replace(case, proposal=requirements.run(case, tools))
    while True:
        case = replace(case, schedules=(*case.schedules, scheduling.run(case, tools)))
        case = replace(case, critiques=(*case.critiques, critique.run(case, tools)))
        refined = negotiation.wants_refinement(case, max_rounds)
        if refined:
            case = replace(case, refinements=(*case.refinements, refinement.run(case, tools)))
            if negotiation.revised(case):
                rounds = (*case.negotiation, negotiation.close_round(case))
                case = replace(case, negotiation=rounds, round=case.round + 1)
                continue
        end = negotiation.conclude(case, after_refinement=refined)
        last = (end.last_round,) if end.last_round is not None else ()
        case = replace(case, negotiation=(*case.negotiation, *last), outcome=end.outcome)
        return synthesis.run(case, tools)


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
    raise SystemExit(run_demo(main))

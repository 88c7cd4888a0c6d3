"""Demo of the policy critique agent: runs intake, requirements and scheduling on a bundled
request, then the critique, and prints its verdict, violations with their citations, risks
and suggested modifications.

    python demos/demo_critique.py                    # the 'overload-low-gpa' request
    python demos/demo_critique.py overload-high-gpa  # any id from demos/requests.jsonl
    python demos/demo_critique.py --json             # the Critique artifact as JSON

Offline: no key, no network.
"""

from __future__ import annotations

import argparse
import sys
import textwrap

from _shared import ROOT, load_request, run_demo  # noqa: F401 - sets up sys.path first

from agents import critique, intake, requirements, scheduling
from agents.artifacts import Critique, Schedule
from agents.catalog import load_catalog
from agents.negotiation import proposal_line
from agents.toolbox import Toolbox
from pipeline.logs import configure_logging

DEFAULT_ID = "overload-low-gpa"


def show(schedule: Schedule, verdict: Critique) -> None:
    wrap = textwrap.TextWrapper(width=96, initial_indent="    ", subsequent_indent="    ")
    print(f"Proposal (round {schedule.round}): {proposal_line(schedule)}")
    for t in schedule.terms:
        courses = ", ".join(c.course for c in t.courses) or "away"
        print(f"  {t.label:<12} {t.units:>4g} units  {courses}")
    print(f"\nVerdict: {verdict.approval.upper()}")
    print(wrap.fill(verdict.explanation))
    if verdict.violations:
        print("\nViolations:")
    for v in verdict.violations:
        print(f"  [{v.severity}] {v.rule_id} ({v.term or 'whole plan'}): {v.message}")
    cited = {(v.citation.document, v.citation.section): v.citation for v in verdict.violations}
    for c in cited.values():
        print(f"\n  {c.rule_id} is stated in {c.document} / {c.section} ({c.heading}):")
        print(wrap.fill(f'"{c.quote}"'))
    if verdict.risks:
        print("\nRisks:")
    for r in verdict.risks:
        print(f"  [{r.kind}] {r.message}")
    if verdict.suggestions:
        print("\nSuggested modifications:")
    for m in verdict.suggestions:
        where = f" {m.term}" if m.term else ""
        what = f" {m.course}" if m.course else ""
        value = f" = {m.value:g}" if m.value is not None else ""
        print(f"  {m.action}{where}{what}{value}  ({m.rule_id}: {m.reason})")
    print(f"\nRules checked: {', '.join(verdict.rules_checked) or 'none'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("request_id", nargs="?", default=DEFAULT_ID, help="request to run")
    parser.add_argument("--json", action="store_true", help="print the Critique as JSON")
    args = parser.parse_args(argv)
    configure_logging("warning", stream=sys.stderr)
    tools = Toolbox(catalog=load_catalog())
    it = intake.read_request(load_request(args.request_id), tools)
    proposal = requirements.propose(it, tools)
    schedule = scheduling.place(it, proposal, None, 1, tools)
    verdict = critique.review(it, schedule, tools)
    if args.json:
        print(verdict.model_dump_json(indent=2))
    else:
        show(schedule, verdict)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_demo(main))

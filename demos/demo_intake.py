"""Demo of the intake agent: reads a bundled request offline and prints what was understood.

    python demos/demo_intake.py                     # the 'free-text-only' request
    python demos/demo_intake.py unknown-program     # any id from demos/requests.jsonl
    python demos/demo_intake.py --list              # the ids in demos/requests.jsonl
    python demos/demo_intake.py --json add-cs-minor # the IntakeResult as JSON

Offline: the rule-based reader, no key, no network.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # runnable from a checkout without installing
    sys.path.insert(0, str(ROOT))

from _shared import run_demo  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402
from rich.text import Text  # noqa: E402

from agents import intake  # noqa: E402
from agents.artifacts import IntakeResult, PlanRequest  # noqa: E402
from agents.catalog import load_catalog  # noqa: E402
from agents.toolbox import Toolbox  # noqa: E402
from pipeline.logs import configure_logging  # noqa: E402

REQUESTS = ROOT / "demos" / "requests.jsonl"
DEFAULT_ID = "free-text-only"


def load_requests() -> dict[str, PlanRequest]:
    with REQUESTS.open(encoding="utf-8") as fh:
        reqs = [PlanRequest.model_validate_json(line) for line in fh if line.strip()]
    return {r.request_id: r for r in reqs}


def _listing(items: list[str]) -> str:
    return ", ".join(items) if items else "-"


def show(request: PlanRequest, result: IntakeResult, console: Console) -> None:
    """Print the request and the IntakeResult as readable tables (text is never markup)."""
    console.print(f"[bold]Request {request.request_id}[/bold]", highlight=False)
    console.print(f"  text: {request.text or '(none: structured fields only)'}", markup=False)
    p = result.profile
    facts = Table(title="Understood", show_header=False, title_justify="left")
    facts.add_column("field", style="bold")
    facts.add_column("value")
    g, c = result.goals, result.constraints
    tp = c.time_preferences
    rows = [
        ("student", f"{p.name} ({p.student_id}), {p.class_standing.replace('_', ' ')}"),
        (
            "record",
            f"{p.units_earned:g} units earned, {p.units_in_progress:g} in progress, "
            f"GPA {p.gpa if p.gpa is not None else '-'}, status {p.academic_status}",
        ),
        (
            "terms",
            f"started {p.start_term}, {p.terms_completed} terms completed, "
            f"now {p.current_term}, next {p.next_term}",
        ),
        ("intent", f"{result.intent} (from {result.intent_source})"),
        ("read by", result.parser),
        (
            "programs",
            f"{_listing(result.target_programs)}  (added: "
            f"{_listing(result.added_programs)}; dropped: {_listing(result.dropped_programs)})",
        ),
        ("target", f"{g.target_graduation or '-'}  {g.target_reason}".rstrip()),
        ("caps", f"units {g.max_units_per_term or '-'}, courses {g.max_courses_per_term or '-'}"),
        ("terms away", _listing(c.terms_away)),
        ("include / avoid", f"{_listing(c.include_courses)} / {_listing(c.avoid_courses)}"),
        ("interests", _listing(c.interests)),
        ("free days", _listing(list(tp.free_days))),
        ("times", f"not before {tp.not_before or '-'}, not after {tp.not_after or '-'}"),
        ("question", result.question or "-"),
    ]
    for name, value in rows:
        facts.add_row(name, Text(value))  # request text is data, never markup
    console.print(facts)
    console.print("[bold]Notes[/bold]")
    for note in result.notes or ["(none)"]:
        console.print(f"  - {note}", markup=False, highlight=False)
    console.print("[bold]Open questions[/bold]")
    for q in result.open_questions:
        console.print(f"  ? [{q.field}] {q.question}", markup=False, highlight=False)
    if not result.open_questions:
        console.print("  (none)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the intake agent on a bundled request.")
    parser.add_argument("request_id", nargs="?", default=DEFAULT_ID)
    parser.add_argument("--json", action="store_true", help="print the IntakeResult as JSON")
    parser.add_argument("--list", action="store_true", help="list the bundled request ids")
    args = parser.parse_args(argv)
    configure_logging("warning", stream=sys.stderr)
    requests = load_requests()
    if args.list:
        print("\n".join(requests))
        return 0
    request = requests.get(args.request_id)
    if request is None:
        print(f"no request {args.request_id!r} in {REQUESTS}; try --list", file=sys.stderr)
        return 2
    result = intake.read_request(request, Toolbox(catalog=load_catalog()))
    if args.json:
        print(json.dumps(result.model_dump(mode="json", exclude={"student"}), indent=2))
    else:
        show(request, result, Console())
    return 0


if __name__ == "__main__":
    raise SystemExit(run_demo(main))

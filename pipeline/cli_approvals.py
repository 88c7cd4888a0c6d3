"""The ``advise approve`` and ``advise deny`` commands, and what ``run`` / ``resume`` print
for a request that stopped in ``awaiting_approval``. The decisions themselves are
``pipeline.approvals``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.cli_common import EXIT_AWAITING_APPROVAL, EXIT_OK, Formatter
from pipeline.config import WORKSPACE, add_settings

if TYPE_CHECKING:
    from pipeline.context import WorkflowContext


def print_awaiting(args: argparse.Namespace, ctx: WorkflowContext) -> int:
    from agents.negotiation import approval_line
    from pipeline.context import approval_next_step

    waiting = [a for a in ctx.approvals if a.decision == "pending"]
    if args.json:
        print(json.dumps({
            "id": ctx.request_id, "state": ctx.state.value, "outcome": None,
            "rounds": ctx.round, "outputs": [], "error": None,
            "awaiting": [a.model_dump(mode="json") for a in waiting],
        }))  # fmt: skip
    else:
        rid = ctx.request_id
        print(f"{rid}: awaiting approval")
        for a in waiting:
            print(f"  {approval_line(a)}: {a.message}")
        print(approval_next_step(rid, waiting[0].rule_id))
    return EXIT_AWAITING_APPROVAL


def _add_decision(sub: argparse._SubParsersAction, verdict: str) -> None:  # type: ignore[type-arg]
    verb = "approve" if verdict == "approved" else "deny"
    p = sub.add_parser(
        verb,
        help=f"{verb} a rule a request awaits approval of (then 'advise resume')",
        formatter_class=Formatter,
        description=f"Record that RULE is {verdict} for a request that stopped in "
        "awaiting_approval (see 'advise status --state awaiting_approval' and 'advise show "
        "ID'). The decision is saved in the checkpoint with who, when and why; nothing runs "
        "until 'advise resume ID', which continues from the critique (no earlier stage "
        f"runs again).\n\nexamples:\n  advise {verb} overload-high-gpa LOAD-OVERLOAD "
        '--by "Dr. Rivera" --reason "strong record, light lab load"\n'
        f"  advise {verb} overload-high-gpa LOAD-OVERLOAD --term S2027 --by ... --reason ...\n"
        "  advise resume overload-high-gpa",
    )
    p.add_argument("id", help="request id")
    p.add_argument("rule", help="policy rule id the request awaits approval of")
    p.add_argument("--by", required=True, help="who decides (name or staff id)")
    p.add_argument("--reason", required=True, help="why, in a sentence")
    p.add_argument(
        "--term", action="append", default=[], help="only this term (repeatable; default: all)"
    )
    p.add_argument("--json", action="store_true", help="print the decision as JSON")
    add_settings(p, WORKSPACE)
    p.set_defaults(handler=_cmd_decide, verdict=verdict)


def verb_of(args: argparse.Namespace) -> str:
    return "approve" if args.verdict == "approved" else "deny"


def add_approve(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    _add_decision(sub, "approved")


def add_deny(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    _add_decision(sub, "denied")


def _cmd_decide(args: argparse.Namespace) -> int:
    from datetime import date

    from agents.negotiation import approval_line
    from pipeline.approvals import decide
    from pipeline.logs import configure_logging, log_file
    from pipeline.store import CheckpointStore

    # The id is not in the log's name: it is not checked yet (decide refuses an unsafe one).
    configure_logging("warning", json_path=log_file(Path(args.log_dir), verb_of(args)))
    ctx = decide(
        CheckpointStore(Path(args.state_dir)),
        args.id,
        args.rule,
        args.verdict,
        by=args.by,
        reason=args.reason,
        on=date.today(),
        terms=args.term,
    )
    waiting = [a for a in ctx.approvals if a.decision == "pending"]
    if args.json:
        approvals = [a.model_dump(mode="json") for a in ctx.approvals]
        print(json.dumps({"id": ctx.request_id, "approvals": approvals}))
        return EXIT_OK
    for a in ctx.approvals:
        if a.rule_id == args.rule and a.decision == args.verdict:
            print(f"{ctx.request_id}: {approval_line(a)}")
    if waiting:
        print(f"still awaiting: {', '.join(approval_line(a) for a in waiting)}")
    else:
        print(f"next: advise resume {ctx.request_id}")
    return EXIT_OK

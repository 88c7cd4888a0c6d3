"""The ``advise`` commands that inspect checkpoints without running anything: ``status``
(counts by state and a table of ids, read through the store's fast summaries), ``show``
(one request's whole run) and ``diagram`` (the state machine as mermaid)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.cli_common import EXIT_OK, Formatter, console
from pipeline.config import CONFIGURATION, WORKSPACE, add_settings
from pipeline.errors import CatalogSourceMissingError, CheckpointMissingError
from pipeline.terminal import one_line, printable

if TYPE_CHECKING:
    from pipeline.checkpoint_summary import CheckpointSummary
    from pipeline.context import WorkflowContext

# The state listed for a checkpoint that is unreadable or holds no known state: a label
# of the listing, not a machine state.
UNREADABLE = "unreadable"
# The state listed for a finished checkpoint whose catalog or configuration fingerprint is
# not the one the current options give (see pipeline.stale): a label, not a machine state.
STALE = "stale"
# The state listed for a checkpoint whose own catalog (file or directory) is gone.
CATALOG_MISSING = "catalog_missing"


def add_status(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "status",
        help="checkpoints counted by state, and a table of ids",
        formatter_class=Formatter,
        description="List checkpoints: counts by state, then one row per request. A finished "
        "request whose\nown catalog (the one it ran with, or --catalog if given) or "
        "configuration changed since\nis listed as 'stale'; one whose catalog is gone as "
        "'catalog_missing'.\n\n"
        "examples:\n  advise status\n  advise status --state failed\n  advise status --json",
    )
    p.add_argument(
        "--state",
        dest="only",
        type=_listed_state,
        metavar="STATE",
        help="list only requests in this state (a machine state, 'stale', "
        "'catalog_missing' or 'unreadable')",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_settings(
        p,
        (*WORKSPACE, *CONFIGURATION),
        title="workspace and current configuration (a finished request made under another "
        "is listed as 'stale'; --catalog judges every request against that catalog)",
    )
    p.add_argument("--stages", default="real", help=argparse.SUPPRESS)  # tests only
    p.set_defaults(handler=_cmd_status)


def listed_states() -> list[str]:
    """What ``status`` lists a checkpoint as: a machine state, ``stale`` or ``unreadable``."""
    from pipeline.context import State

    return [*(s.value for s in State), STALE, CATALOG_MISSING, UNREADABLE]


def _listed_state(text: str) -> str:
    """An argparse type for ``status --state`` (imports the machine only when given)."""
    states = listed_states()
    if text not in states:
        raise argparse.ArgumentTypeError(f"unknown state {text!r}; choose from {', '.join(states)}")
    return text


def add_show(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "show",
        help="one request's stages, negotiation rounds and artifacts",
        formatter_class=Formatter,
        description="Show a checkpointed request: stages run with timings, the negotiation "
        "rounds, each\nartifact in brief, errors and the LLM ledger. --json prints the "
        "whole workflow context.\n\nexamples:\n  advise show add-cs-minor\n"
        "  advise show add-cs-minor --json",
    )
    p.add_argument("id", help="request id")
    p.add_argument("--json", action="store_true", help="print the workflow context as JSON")
    add_settings(p, WORKSPACE)
    p.set_defaults(handler=_cmd_show)


def add_diagram(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "diagram",
        help="print the state machine as a mermaid diagram",
        formatter_class=Formatter,
        description="Print the pipeline's state machine as mermaid (stateDiagram-v2), drawn "
        "by transitions\nfrom the transition table.\n\nexamples:\n  advise diagram > machine.mmd\n"
        "  advise diagram --json",
    )
    p.add_argument("--json", action="store_true", help='print {"mermaid": TEXT}')
    p.set_defaults(handler=_cmd_diagram)


def _cmd_status(args: argparse.Namespace) -> int:
    from rich.table import Table

    from agents.toolbox import Settings
    from pipeline.checkpoint_summary import CheckpointSummary
    from pipeline.context import State
    from pipeline.stale import current_fingerprints
    from pipeline.store import CheckpointStore
    from pipeline.workspace import CatalogFingerprints

    store = CheckpointStore(Path(args.state_dir))
    current = current_fingerprints(
        catalog=args.catalog,
        backend=args.backend,
        model=args.model,
        settings=Settings(max_rounds=args.max_rounds),
        stages=args.stages,
    )
    known = CatalogFingerprints.of_command(current, args.catalog)
    from pipeline.outputs import outputs_present

    counts: dict[str, int] = {}
    rows: list[dict[str, Any]] = []
    missing: list[str] = []  # finished, but no outputs in --out-dir ('advise render' writes them)
    for rid in store.ids():
        summary = store.summary(rid) or CheckpointSummary(request_id=rid)
        state = summary.state.value if summary.state is not None else UNREADABLE
        try:
            now = known.for_request(rid, summary.catalog_source, args.catalog)
            if summary.state is State.done and summary.fingerprints.differs(now):
                state = STALE
        except CatalogSourceMissingError:
            state = CATALOG_MISSING
        counts[state] = counts.get(state, 0) + 1
        if state == State.done.value and not outputs_present(Path(args.out_dir), rid):
            missing.append(rid)
        if args.only and state != args.only:
            continue
        rows.append(_row(summary, state))
    if args.json:
        listing = {"counts": dict(sorted(counts.items())), "requests": rows}
        print(json.dumps({**listing, "outputs_missing": missing}))
        return EXIT_OK
    out = console()
    listed = ", ".join(f"{state} {n}" for state, n in sorted(counts.items())) or "none"
    # Paths are text, not rich markup ('[/x]' in a path is no closing tag); escaped before
    # the table is laid out, so a control character is as wide as it is shown.
    header = f"{sum(counts.values())} checkpoint(s) in {args.state_dir}: {listed}"
    out.print(printable(header), markup=False, highlight=False)
    table = Table("id", "state", "outcome", "round", "failed stage", "updated", "catalog")
    for row in rows:
        table.add_row(*(printable(str(row[k] or "")) for k in row))
    if rows:
        out.print(table, markup=False, highlight=False)
    if counts.get(STALE):
        out.print("stale: its catalog or the configuration changed since it finished; "
                  "'advise batch' or 'advise resume --all' reruns it against its own catalog "
                  "(previous outputs kept as .prev)", markup=False, highlight=False)  # fmt: skip
    if counts.get(CATALOG_MISSING):
        note = ("catalog_missing: the catalog it ran with is gone; restore it, or name one: "
                "'advise resume ID --catalog PATH'")  # fmt: skip
        out.print(note, markup=False, highlight=False)
    if missing:
        note = (
            f"outputs missing: {len(missing)} finished request(s) have no report in "
            f"{args.out_dir}; 'advise render --all' writes them from their checkpoints"
        )
        out.print(printable(note), markup=False, highlight=False)
    return EXIT_OK


def _row(summary: CheckpointSummary, state: str) -> dict[str, Any]:
    """One listed checkpoint, as ``--json`` prints it (the table shows the same values)."""
    from pipeline.workspace import describe_source

    failed = summary.failed_stage
    return {
        "id": summary.request_id,
        "state": state,
        "outcome": summary.outcome,
        "round": summary.round,
        "failed_stage": failed.value if failed is not None else None,
        "updated_at": f"{summary.updated_at:%Y-%m-%d %H:%M:%S}" if summary.updated_at else "",
        "catalog": describe_source(summary.catalog_source),
    }


def _cmd_show(args: argparse.Namespace) -> int:
    from pipeline.context import describe
    from pipeline.store import CheckpointStore

    state_dir = Path(args.state_dir)
    ctx = CheckpointStore(state_dir).load(args.id)
    if ctx is None:
        raise CheckpointMissingError(args.id, state_dir)
    if args.json:
        print(ctx.model_dump_json(indent=2))
    else:
        print(describe(_name_on_one_line(ctx)))
        _print_outputs(ctx, Path(args.out_dir))
    return EXIT_OK


def _print_outputs(ctx: WorkflowContext, out_dir: Path) -> None:
    """Where a finished request's reports are (``--out-dir``), or how to write them."""
    from pipeline.context import State
    from pipeline.outputs import OUTPUT_SUFFIXES

    if ctx.state is not State.done:
        return
    files = [out_dir / f"{ctx.request_id}{suffix}" for suffix in OUTPUT_SUFFIXES]
    present = [str(f) for f in files if f.is_file()]
    if len(present) == len(files):
        print(printable(f"outputs: {', '.join(present)}"))
    else:
        print(printable(f"outputs: not all in {out_dir}; 'advise render {ctx.request_id}' "
                        "writes them from the checkpoint"))  # fmt: skip


def _name_on_one_line(ctx: WorkflowContext) -> WorkflowContext:
    """``ctx`` with the student's name on one line: a newline in it cannot forge a line of
    the report (other control characters are escaped on the way out, ``pipeline.terminal``)."""
    req = ctx.request
    student = req.student.model_copy(update={"name": one_line(req.student.name)})
    return ctx.model_copy(update={"request": req.model_copy(update={"student": student})})


def _cmd_diagram(args: argparse.Namespace) -> int:
    from pipeline.machine import mermaid

    print(json.dumps({"mermaid": mermaid()}) if args.json else mermaid())
    return EXIT_OK

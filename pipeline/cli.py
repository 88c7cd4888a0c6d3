"""The ``advise`` command line.

Each subcommand is registered by a small ``_add_<name>`` function and runs through a
``_cmd_<name>`` function that returns the exit code. Errors the user can fix are printed
as one clear message on stderr with exit code 2; nothing is half-written on failure.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.errors import AdvisingError
from pipeline.errors import (
    CheckpointMissingError,
    CorruptCheckpointError,
    ExitCode,
    LockHeldError,
    RequestInputError,
    RunInterrupted,
)

if TYPE_CHECKING:
    from rich.console import Console

    from agents.artifacts import PlanRequest
    from pipeline.batch import BatchReport, InputItem
    from pipeline.jobs import RunOptions

EXIT_OK = int(ExitCode.OK)
EXIT_FAILED = int(ExitCode.FAILED)
EXIT_USAGE = int(ExitCode.USAGE)
EXIT_INTERRUPTED = int(ExitCode.INTERRUPTED)

Handler = Callable[[argparse.Namespace], int]


class _Formatter(argparse.RawDescriptionHelpFormatter):
    pass


def _add_catalog(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "catalog",
        help="validate or summarize a catalog",
        formatter_class=_Formatter,
        description="Validate a catalog file or print its counts.\n\nexamples:\n"
        "  advise catalog validate\n  advise catalog validate my_catalog.json\n"
        "  advise catalog show --json",
    )
    csub = p.add_subparsers(dest="catalog_cmd", required=True, metavar="{validate,show}")
    v = csub.add_parser(
        "validate",
        help="check a catalog against the schema and its cross-references",
        formatter_class=_Formatter,
        description="Check a catalog file: JSON Schema, types, then cross-references.\n"
        "Without PATH the bundled sample catalog is checked.\n\n"
        "example:\n  advise catalog validate path/to/catalog.json",
    )
    v.add_argument("path", nargs="?", help="catalog JSON file (default: the bundled sample)")
    v.set_defaults(handler=_cmd_catalog_validate)
    s = csub.add_parser(
        "show",
        help="print counts of courses, programs, rules and documents",
        formatter_class=_Formatter,
        description="Print the catalog's counts.\n\nexample:\n  advise catalog show --json",
    )
    s.add_argument("--catalog", help="catalog JSON file (default: the bundled sample)")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(handler=_cmd_catalog_show)


def _cmd_catalog_validate(args: argparse.Namespace) -> int:
    from agents.catalog import default_catalog_path, load_catalog

    path = args.path or str(default_catalog_path())
    cat = load_catalog(path)
    print(
        f"{path}: ok ({len(cat.courses)} courses, {len(cat.programs)} programs, "
        f"{len(cat.policies)} policy rules, {len(cat.documents)} documents)"
    )
    return EXIT_OK


def catalog_counts(cat: object) -> dict[str, int]:
    from agents.catalog import Catalog

    assert isinstance(cat, Catalog)
    return {
        "courses": len(cat.courses),
        "majors": sum(p.kind == "major" for p in cat.programs),
        "minors": sum(p.kind == "minor" for p in cat.programs),
        "concentrations": sum(p.kind == "concentration" for p in cat.programs),
        "policy_rules": len(cat.policies),
        "documents": len(cat.documents),
        "sections": sum(len(c.sections) for c in cat.courses),
    }


def _cmd_catalog_show(args: argparse.Namespace) -> int:
    from agents.catalog import load_catalog

    cat = load_catalog(args.catalog)
    counts = catalog_counts(cat)
    if args.json:
        print(json.dumps(counts, sort_keys=True))
    else:
        print(f"{cat.institution.name} catalog {cat.catalog_year}")
        for key, value in counts.items():
            print(f"  {key:<15} {value}")
    return EXIT_OK


def _add_audit(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "audit",
        help="degree audit of a student record",
        formatter_class=_Formatter,
        description="Audit a student's record against their programs: every requirement "
        "met, partly met or unmet,\nwhich courses count where, and what remains. "
        "--add-program audits a program the student\nhas not declared (what-if).\n\n"
        "examples:\n  advise audit demos/students/is-junior-cs-minor.json\n"
        "  advise audit demos/students/is-junior-cs-minor.json --add-program CS-MIN --json",
    )
    p.add_argument("student", help="student record JSON file")
    p.add_argument(
        "--add-program",
        action="append",
        default=[],
        metavar="CODE",
        help="what-if: audit this program too (repeatable)",
    )
    p.add_argument("--catalog", help="catalog JSON file (default: the bundled sample)")
    p.add_argument("--json", action="store_true", help="print the audit as JSON")
    p.set_defaults(handler=_cmd_audit)


def _cmd_audit(args: argparse.Namespace) -> int:
    from agents.audit import audit, render_audit
    from agents.catalog import check_student_against_catalog, load_catalog, load_student
    from agents.errors import StudentRecordError

    cat = load_catalog(args.catalog)
    student = load_student(args.student)
    problems = check_student_against_catalog(student, cat)
    if problems:
        raise StudentRecordError(args.student, problems)
    report = audit(cat, student, add_programs=args.add_program)
    if args.json:
        print(json.dumps(report.model_dump(mode="json"), indent=2, sort_keys=True))
    else:
        print(render_audit(report))
    return EXIT_OK


# --------------------------------------------------------------------------- pipeline

_ENGINE_HELP = """\
exit codes (all pipeline commands):
  0  everything asked for finished        2  usage or input error (nothing run)
  1  some request failed, invalid, locked  3  interrupted (Ctrl-C / SIGTERM), resumable
"""


def _engine_options(p: argparse.ArgumentParser, *, workers: bool = False) -> None:
    g = p.add_argument_group("engine options")
    g.add_argument("--state-dir", default="state", help="checkpoint directory (default: state)")
    g.add_argument("--out-dir", default="out", help="output directory (default: out)")
    g.add_argument("--log-dir", default="logs", help="JSON-lines log directory (default: logs)")
    g.add_argument("--catalog", help="catalog JSON file (default: the bundled sample)")
    g.add_argument(
        "--backend", choices=("offline", "gemini"), default="offline", help="LLM backend"
    )
    g.add_argument("--model", help="LLM model name (gemini backend)")
    g.add_argument(
        "--max-rounds", type=_positive, default=3, help="negotiation rounds (default: 3)"
    )
    g.add_argument(
        "--force",
        action="store_true",
        help="resume even though the catalog, configuration or request changed",
    )
    g.add_argument(
        "--stages",
        default="real",
        help="stage set: 'real' agents (default) or 'module:attr' of an AgentSet (tests)",
    )
    g.add_argument("-v", "--verbose", action="count", default=0, help="-v info, -vv debug")
    g.add_argument("--json", action="store_true", help="print the result as JSON")
    if workers:
        g.add_argument("--workers", type=_positive, default=1, help="worker processes (default: 1)")


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {text!r}")
    return value


def _add_run(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "run",
        help="run one plan request through the pipeline",
        formatter_class=_Formatter,
        description="Run one request (a PlanRequest JSON file) through every stage and "
        "write out/<id>.json, .md and .html.\nA checkpoint is saved after every stage; "
        "running it again resumes where it stopped.\n\n"
        "examples:\n  head -n 1 demos/requests.jsonl > request.json\n"
        "  advise run request.json -v\n  advise run request.json --json\n\n" + _ENGINE_HELP,
    )
    p.add_argument("request", help="PlanRequest JSON file")
    _engine_options(p)
    p.set_defaults(handler=_cmd_run)


def _add_batch(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "batch",
        help="run many requests (JSONL, a directory, or stdin)",
        formatter_class=_Formatter,
        description="Run a batch of requests: INPUT is a JSONL file (one request per line), "
        "a directory of\nJSON files, or '-' for JSON lines on stdin. Invalid lines are "
        "reported and skipped; rerunning\nthe same command skips finished requests and "
        "resumes the rest. Writes out/<id>.*, and\nout/batch-summary.jsonl (one line per "
        "request), and prints a summary table.\n\nexamples:\n"
        "  advise batch demos/requests.jsonl --workers 2\n"
        "  cat more.jsonl | advise batch - --json\n\n" + _ENGINE_HELP,
    )
    p.add_argument("input", help="JSONL file, directory of JSON files, or '-' (stdin)")
    _engine_options(p, workers=True)
    p.set_defaults(handler=_cmd_batch)


def _add_resume(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "resume",
        help="resume a checkpointed request, or all unfinished ones",
        formatter_class=_Formatter,
        description="Resume from the checkpoint: finished stages are not run again; a "
        "failed run re-enters\nthe stage that failed. A checkpoint made with another "
        "catalog or configuration is\nrefused unless --force.\n\nexamples:\n"
        "  advise resume is-junior-cs-minor-1\n  advise resume --all --workers 2\n\n"
        + _ENGINE_HELP,
    )
    p.add_argument("id", nargs="?", help="request id")
    p.add_argument("--all", action="store_true", help="every unfinished checkpoint")
    _engine_options(p, workers=True)
    p.set_defaults(handler=_cmd_resume)


def _add_status(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "status",
        help="checkpoints counted by state, and a table of ids",
        formatter_class=_Formatter,
        description="List checkpoints: counts by state, then one row per request.\n\n"
        "examples:\n  advise status\n  advise status --state failed\n  advise status --json",
    )
    p.add_argument("--state-dir", default="state", help="checkpoint directory (default: state)")
    p.add_argument("--state", dest="only", help="list only requests in this state")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_cmd_status)


def _add_show(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "show",
        help="one request's stages, negotiation rounds and artifacts",
        formatter_class=_Formatter,
        description="Show a checkpointed request: stages run with timings, the negotiation "
        "rounds, each\nartifact in brief, errors and the LLM ledger. --json prints the "
        "whole workflow context.\n\nexamples:\n  advise show is-junior-cs-minor-1\n"
        "  advise show is-junior-cs-minor-1 --json",
    )
    p.add_argument("id", help="request id")
    p.add_argument("--state-dir", default="state", help="checkpoint directory (default: state)")
    p.add_argument("--json", action="store_true", help="print the workflow context as JSON")
    p.set_defaults(handler=_cmd_show)


def _add_diagram(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "diagram",
        help="print the state machine as a mermaid diagram",
        formatter_class=_Formatter,
        description="Print the pipeline's state machine as mermaid (stateDiagram-v2), drawn "
        "by transitions\nfrom the transition table.\n\nexample:\n  advise diagram > machine.mmd",
    )
    p.set_defaults(handler=_cmd_diagram)


def _options(args: argparse.Namespace) -> RunOptions:
    from agents.toolbox import Settings
    from pipeline.jobs import RunOptions

    return RunOptions(
        state_dir=Path(args.state_dir),
        out_dir=Path(args.out_dir),
        catalog=args.catalog,
        backend=args.backend,
        model=args.model,
        settings=Settings(max_rounds=args.max_rounds),
        stages=args.stages,
        workers=getattr(args, "workers", 1),
        force=args.force,
        console_level=("warning", "info", "debug")[min(args.verbose, 2)],
    )


def _start_logs(opts: RunOptions, log_dir: str, kind: str, label: str | None) -> RunOptions:
    from dataclasses import replace

    from pipeline.logs import configure_logging, log_file

    opts = replace(opts, log_path=log_file(Path(log_dir), kind, label))
    configure_logging(opts.console_level, json_path=opts.log_path)
    return opts


def _single(args: argparse.Namespace, opts: RunOptions, request: PlanRequest) -> int:
    from pipeline.machine import load_agents
    from pipeline.runner import GracefulStop, ToolboxFactory, run_request
    from pipeline.store import CheckpointStore

    opts = _start_logs(opts, args.log_dir, "run", request.request_id)
    factory = ToolboxFactory(catalog_path=opts.catalog, backend=opts.backend, model=opts.model)
    agents = load_agents(opts.stages)
    with GracefulStop().installed(restore=False) as stop:
        ctx = run_request(
            request,
            store=CheckpointStore(opts.state_dir, background=True),
            toolbox_factory=factory,
            settings=opts.settings,
            force=opts.force,
            agents=agents,
            out_dir=opts.out_dir,
            stop=stop,
        )
    error = f"{ctx.errors[-1].stage}: {ctx.errors[-1].message}" if ctx.state == "failed" else None
    outputs = [str(opts.out_dir / f"{ctx.request_id}{s}") for s in (".json", ".md", ".html")]
    result = {
        "id": ctx.request_id,
        "state": ctx.state,
        "outcome": ctx.outcome if ctx.state == "done" else None,
        "rounds": ctx.round,
        "outputs": outputs if ctx.state == "done" else [],
        "error": error,
    }
    if args.json:
        print(json.dumps(result))
    elif ctx.state == "done":
        print(f"{ctx.request_id}: {ctx.outcome} after {ctx.round} round(s) -> {outputs[0]}")
    else:
        print(f"{ctx.request_id}: failed at {error}; fix and 'advise resume {ctx.request_id}'")
    return EXIT_OK if ctx.state == "done" else EXIT_FAILED


def _cmd_run(args: argparse.Namespace) -> int:
    from pipeline.batch import Invalid, RequestValidator

    path = Path(args.request)
    if not path.is_file():
        raise RequestInputError(
            f"request file {args.request!r} does not exist; pass a PlanRequest JSON file"
        )
    item = _read_item(path)
    checked = RequestValidator().check(item)
    if isinstance(checked, Invalid):
        raise RequestInputError(f"{args.request}: {checked.message}")
    return _single(args, _options(args), checked)


def _read_item(path: Path) -> InputItem:
    from pipeline.batch import InputItem

    try:
        return InputItem(source=path.name, text=path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return InputItem(source=path.name, error=f"cannot read: {exc}")


def _batch(args: argparse.Namespace, opts: RunOptions, items: Any, total: int | None) -> int:
    from pipeline.batch import run_batch
    from pipeline.machine import load_agents
    from pipeline.runner import GracefulStop, ToolboxFactory

    # Fail fast, in the parent, on a catalog, backend or stage set that cannot load.
    ToolboxFactory(catalog_path=opts.catalog, backend=opts.backend, model=opts.model)
    load_agents(opts.stages)
    with GracefulStop().installed(restore=False) as stop:
        report = run_batch(items, opts, stop=stop, total=total, progress=sys.stderr.isatty())
    if args.json:
        print(json.dumps(report.as_json(), sort_keys=True))
    else:
        _print_report(report, opts)
    return int(report.exit_code)


def _cmd_batch(args: argparse.Namespace) -> int:
    from pipeline.batch import input_items

    opts = _options(args)
    items, total = input_items(args.input)
    opts = _start_logs(opts, args.log_dir, "batch", None)
    return _batch(args, opts, items, total)


def _cmd_resume(args: argparse.Namespace) -> int:
    from pipeline.batch import resume_items
    from pipeline.store import CheckpointStore

    if bool(args.id) == bool(args.all):
        raise RequestInputError("give a request id or --all (not both); see 'advise status'")
    opts = _options(args)
    store = CheckpointStore(opts.state_dir)
    if args.all:
        opts = _start_logs(opts, args.log_dir, "resume", None)
        return _batch(args, opts, resume_items(store, opts.out_dir), None)
    ctx = store.load(args.id)
    if ctx is None:
        raise CheckpointMissingError(args.id, opts.state_dir)
    return _single(args, opts, ctx.request)


def _print_report(report: BatchReport, opts: RunOptions) -> None:
    from rich.table import Table

    from pipeline.batch import percentile

    console = _console()
    table = Table(title=f"batch: {report.requests} request(s), {report.wall_s:.1f}s")
    table.add_column("")
    table.add_column("count", justify="right")
    for status, n in sorted(report.status.items()):
        table.add_row(f"status {status}", str(n))
    for outcome, n in sorted(report.outcomes.items()):
        table.add_row(f"outcome {outcome}", str(n))
    table.add_row("LLM calls", str(report.llm_calls))
    table.add_row("LLM tokens", str(report.tokens))
    table.add_row("ms per request p50", f"{percentile(report.durations_ms, 50):.1f}")
    table.add_row("ms per request p95", f"{percentile(report.durations_ms, 95):.1f}")
    console.print(table)
    for title, lines in (("failed", report.failures), ("invalid", report.invalid)):
        for line in lines:
            console.print(f"{title}: {line}", markup=False, highlight=False)
    console.print(f"summary: {opts.out_dir / 'batch-summary.jsonl'}", highlight=False)


def _console() -> Console:
    from rich.console import Console

    # Piped output is not cut to 80 columns: ids must stay whole for scripts.
    return Console(soft_wrap=True, width=None if sys.stdout.isatty() else 160)


def _cmd_status(args: argparse.Namespace) -> int:
    from rich.table import Table

    from pipeline.store import CheckpointStore

    store = CheckpointStore(Path(args.state_dir))
    counts: dict[str, int] = {}
    rows = []
    for rid in store.ids():
        raw = store.read_raw(rid) or {}
        state = str(raw.get("state", "unreadable"))
        counts[state] = counts.get(state, 0) + 1
        if args.only and state != args.only:
            continue
        rows.append(
            {
                "id": rid,
                "state": state,
                "outcome": raw.get("outcome"),
                "round": raw.get("round"),
                "failed_stage": raw.get("failed_stage"),
                "updated_at": str(raw.get("updated_at") or "")[:19].replace("T", " "),
            }
        )
    if args.json:
        print(json.dumps({"counts": dict(sorted(counts.items())), "requests": rows}))
        return EXIT_OK
    console = _console()
    summary = ", ".join(f"{state} {n}" for state, n in sorted(counts.items())) or "none"
    console.print(f"{sum(counts.values())} checkpoint(s) in {args.state_dir}: {summary}")
    table = Table("id", "state", "outcome", "round", "failed stage", "updated")
    for row in rows:
        table.add_row(*(str(row[k] or "") for k in row))
    if rows:
        console.print(table)
    return EXIT_OK


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
        print(describe(ctx))
    return EXIT_OK


def _cmd_diagram(args: argparse.Namespace) -> int:
    from pipeline.machine import mermaid

    print(mermaid())
    return EXIT_OK


# Subcommand registrars, in the order --help lists them.
REGISTRARS: list[Callable[[argparse._SubParsersAction], None]] = [  # type: ignore[type-arg]
    _add_run,
    _add_batch,
    _add_resume,
    _add_status,
    _add_show,
    _add_diagram,
    _add_catalog,
    _add_audit,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="advise",
        formatter_class=_Formatter,
        description="Advising-plan pipeline: audits, plans and recommendations for student "
        "plan requests.\n\nexamples:\n  advise catalog validate\n"
        "  advise audit demos/students/senior-on-track.json",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for register in REGISTRARS:
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from pipeline.logs import configure_logging

    parser = build_parser()
    args = parser.parse_args(argv)
    configure_logging("warning")
    handler: Handler = args.handler
    try:
        return handler(args)
    except (RunInterrupted, KeyboardInterrupt) as exc:
        note = str(exc) or "checkpoints are saved; rerun the command or 'advise resume --all'"
        print(f"interrupted: {note}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except (LockHeldError, CorruptCheckpointError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except AdvisingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # pragma: no cover - e.g. piping into head
        sys.stderr.close()
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

__all__ = ["EXIT_FAILED", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]

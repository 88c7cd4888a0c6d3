"""The ``advise`` command line: the parser, ``main``, and the commands that run requests
(``run``, ``batch``, ``resume``).

Each subcommand is registered by a small ``add_<name>`` function and runs through a
``_cmd_<name>`` function that returns the exit code; the inspection commands live in
``pipeline.cli_status``, the catalog and audit commands in ``pipeline.cli_catalog``.
Errors the user can fix are printed as one clear message on stderr with exit code 2;
nothing is half-written on failure.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.errors import (
    AdvisingError,
    CheckpointMissingError,
    CorruptCheckpointError,
    LockHeldError,
    RequestInputError,
    RunInterrupted,
    StaleResultError,
)
from pipeline.cli_approvals import add_approve, add_deny, print_awaiting
from pipeline.cli_audit import add_audit
from pipeline.cli_catalog import add_catalog
from pipeline.cli_common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    Formatter,
    Handler,
    console,
    positive,
)
from pipeline.cli_status import add_diagram, add_show, add_status

if TYPE_CHECKING:
    from agents.artifacts import PlanRequest
    from pipeline.jobs import RunOptions
    from pipeline.results import BatchReport


# --------------------------------------------------------------------------- pipeline

_ENGINE_HELP = """\
exit codes (all pipeline commands):
  0  everything asked for finished        2  usage or input error (nothing run)
  1  some request failed, invalid, locked  3  interrupted (Ctrl-C / SIGTERM), resumable
  4  nothing failed, but some request awaits approval (advise approve/deny, then resume)
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
    g.add_argument("--max-rounds", type=positive, default=3, help="negotiation rounds (default: 3)")
    g.add_argument(
        "--force",
        action="store_true",
        help="rerun finished requests from the start (previous outputs and checkpoint kept "
        "as .prev); resume an unfinished checkpoint made with another catalog or "
        "configuration; restart a request whose content changed under the same id",
    )
    g.add_argument(
        "--no-rerun-stale",
        dest="rerun_stale",
        action="store_false",
        help="refuse (status 'stale', exit 1) a request finished under another catalog or "
        "configuration instead of rerunning it (default: rerun, keeping .prev outputs)",
    )
    g.add_argument(
        "--exceptions",
        metavar="DIR",
        help="directory of advisor exceptions files: DIR/<student id>.json is merged into "
        "that student's record (see exceptions.schema.json)",
    )
    g.add_argument(
        "--no-wait",
        action="store_true",
        help="dry run: approvals a request needs (e.g. an overload) are recorded as denied "
        "and the request is re-planned, instead of stopping in awaiting_approval",
    )
    g.add_argument(
        "--stages",
        default="real",
        help="stage set: 'real' agents (default) or 'module:attr' of a StageSet (tests)",
    )
    g.add_argument("-v", "--verbose", action="count", default=0, help="-v info, -vv debug")
    g.add_argument("--json", action="store_true", help="print the result as JSON")
    if workers:
        g.add_argument("--workers", type=positive, default=1, help="worker processes (default: 1)")


def add_run(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "run",
        help="run one plan request through the pipeline",
        formatter_class=Formatter,
        description="Run one request (a PlanRequest JSON file) through every stage and "
        "write out/<id>.json, .md and .html.\nA checkpoint is saved after every stage; "
        "running it again resumes where it stopped.\n\n"
        "examples:\n  head -n 1 demos/requests.jsonl > request.json\n"
        "  advise run request.json -v\n  advise run request.json --json\n\n" + _ENGINE_HELP,
    )
    p.add_argument("request", help="PlanRequest JSON file")
    _engine_options(p)
    p.set_defaults(handler=_cmd_run)


def add_batch(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "batch",
        help="run many requests (JSONL, a directory, or stdin)",
        formatter_class=Formatter,
        description="Run a batch of requests: INPUT is a JSONL file (one request per line), "
        "a directory of\nJSON files, or '-' for JSON lines on stdin. Invalid lines are "
        "reported and skipped; rerunning\nthe same command skips finished requests, reruns "
        "stale ones (finished under another\ncatalog or configuration; old outputs kept as "
        ".prev) and resumes the rest. Writes out/<id>.*, this run's\n"
        "out/summaries/<run-id>.jsonl, the merged out/batch-summary.jsonl (latest line "
        "per\nrequest), and prints a summary table.\n\nexamples:\n"
        "  advise batch demos/requests.jsonl --workers 2\n"
        "  cat more.jsonl | advise batch - --json\n\n" + _ENGINE_HELP,
    )
    p.add_argument("input", help="JSONL file, directory of JSON files, or '-' (stdin)")
    _engine_options(p, workers=True)
    p.set_defaults(handler=_cmd_batch)


def add_resume(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "resume",
        help="resume a checkpointed request, or all unfinished ones",
        formatter_class=Formatter,
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
        rerun_stale=args.rerun_stale,
        no_wait=args.no_wait,
        exceptions_dir=Path(args.exceptions) if getattr(args, "exceptions", None) else None,
        console_level=("warning", "info", "debug")[min(args.verbose, 2)],
    )


def _start_logs(opts: RunOptions, log_dir: str, kind: str, label: str | None) -> RunOptions:
    from dataclasses import replace

    from pipeline.logs import configure_logging, log_file

    opts = replace(opts, log_path=log_file(Path(log_dir), kind, label))
    configure_logging(opts.console_level, json_path=opts.log_path)
    return opts


def _single(args: argparse.Namespace, opts: RunOptions, request: PlanRequest) -> int:
    from pipeline.context import State
    from pipeline.machine import load_stages
    from pipeline.runner import GracefulStop, ToolboxFactory, run_request
    from pipeline.store import CheckpointStore

    opts = _start_logs(opts, args.log_dir, "run", request.request_id)
    factory = ToolboxFactory(catalog_path=opts.catalog, backend=opts.backend, model=opts.model)
    stages = load_stages(opts.stages)
    with GracefulStop().installed(restore=False) as stop:
        ctx = run_request(
            request,
            store=CheckpointStore(opts.state_dir, background=True),
            toolbox_factory=factory,
            settings=opts.settings,
            force=opts.force,
            stages=stages,
            out_dir=opts.out_dir,
            stop=stop,
            rerun_stale=opts.rerun_stale,
            no_wait=opts.no_wait,
        )
    if ctx.state is State.awaiting_approval:
        return print_awaiting(args, ctx)
    done = ctx.state is State.done
    last = ctx.errors[-1] if ctx.errors and ctx.state is State.failed else None
    error = f"{last.stage.value}: {last.message}" if last else None
    outputs = [str(opts.out_dir / f"{ctx.request_id}{s}") for s in (".json", ".md", ".html")]
    result = {
        "id": ctx.request_id,
        "state": ctx.state.value,
        "outcome": ctx.outcome if done else None,
        "rounds": ctx.round,
        "outputs": outputs if done else [],
        "error": error,
    }
    if args.json:
        print(json.dumps(result))
    elif done:
        print(f"{ctx.request_id}: {ctx.outcome} after {ctx.round} round(s) -> {outputs[0]}")
    else:
        print(f"{ctx.request_id}: failed at {error}; fix and 'advise resume {ctx.request_id}'")
    return EXIT_OK if done else EXIT_FAILED


def _cmd_run(args: argparse.Namespace) -> int:
    from pipeline.batch_input import Invalid, RequestValidator, read_item

    path = Path(args.request)
    if not path.is_file():
        raise RequestInputError(
            f"request file {args.request!r} does not exist; pass a PlanRequest JSON file"
        )
    item = read_item(path)
    opts = _options(args)
    checked = RequestValidator(opts.exceptions_dir).check(item)
    if isinstance(checked, Invalid):
        raise RequestInputError(f"{args.request}: {checked.message}")
    return _single(args, opts, checked)


def _prepare(opts: RunOptions) -> RunOptions:
    """Fail fast, in the parent, on a catalog, backend or stage set that cannot load; and
    the fingerprints every request of the batch is checked against (stale or not)."""
    from dataclasses import replace

    from pipeline.machine import load_stages
    from pipeline.runner import ToolboxFactory
    from pipeline.stale import Fingerprints

    factory = ToolboxFactory(catalog_path=opts.catalog, backend=opts.backend, model=opts.model)
    config = factory.run_config(opts.settings, load_stages(opts.stages).name)
    return replace(opts, current=Fingerprints(factory.catalog_fingerprint, config.fingerprint()))


def _batch(args: argparse.Namespace, opts: RunOptions, items: Any, total: int | None) -> int:
    from pipeline.batch import run_batch
    from pipeline.runner import GracefulStop

    with GracefulStop().installed(restore=False) as stop:
        report = run_batch(items, opts, stop=stop, total=total, progress=sys.stderr.isatty())
    if args.json:
        print(json.dumps(report.as_json(), sort_keys=True))
    else:
        _print_report(report, opts)
    return int(report.exit_code)


def _cmd_batch(args: argparse.Namespace) -> int:
    from pipeline.batch_input import input_items

    opts = _options(args)
    items, total = input_items(args.input)
    opts = _prepare(_start_logs(opts, args.log_dir, "batch", None))
    return _batch(args, opts, items, total)


def _cmd_resume(args: argparse.Namespace) -> int:
    from pipeline.batch_input import resume_items
    from pipeline.store import CheckpointStore

    if bool(args.id) == bool(args.all):
        raise RequestInputError("give a request id or --all (not both); see 'advise status'")
    opts = _options(args)
    store = CheckpointStore(opts.state_dir)
    if args.all:
        opts = _prepare(_start_logs(opts, args.log_dir, "resume", None))
        items = resume_items(store, opts.out_dir, opts.current, every=opts.force)
        return _batch(args, opts, items, None)
    ctx = store.load(args.id)
    if ctx is None:
        raise CheckpointMissingError(args.id, opts.state_dir)
    return _single(args, opts, ctx.request)


def _print_report(report: BatchReport, opts: RunOptions) -> None:
    from rich.table import Table

    from pipeline.results import percentile

    out = console()
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
    out.print(table)
    if report.count("rerun_stale") and opts.current is not None:
        out.print(f"rerun_stale: finished under another catalog or configuration than the "
                  f"current {opts.current.short()}; rerun, previous outputs kept as .prev",
                  markup=False, highlight=False)  # fmt: skip
    listed = [("failed", report.failures), ("invalid", report.invalid), ("stale", report.stale),
              ("awaiting approval", report.awaiting)]  # fmt: skip
    for title, lines in listed:
        for line in lines:
            out.print(f"{title}: {line}", markup=False, highlight=False)
    out.print(f"summary: {opts.out_dir / 'batch-summary.jsonl'} (this run: "
              f"{report.run_summary})", highlight=False)  # fmt: skip


# Subcommand registrars, in the order --help lists them.
REGISTRARS: list[Callable[[argparse._SubParsersAction], None]] = [  # type: ignore[type-arg]
    add_run,
    add_batch,
    add_resume,
    add_approve,
    add_deny,
    add_status,
    add_show,
    add_diagram,
    add_catalog,
    add_audit,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="advise",
        formatter_class=Formatter,
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
    except (LockHeldError, CorruptCheckpointError, StaleResultError) as exc:
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

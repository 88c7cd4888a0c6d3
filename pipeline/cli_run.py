"""The ``advise`` commands that run requests: ``run`` (one request), ``batch`` (many, on
worker processes or Ray, with progress on stderr) and ``resume`` (one checkpoint, or all
unfinished ones), and the engine options they share."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.cli_approvals import print_awaiting
from pipeline.cli_common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    Formatter,
    alternatives_option,
    seconds,
)
from pipeline.errors import CheckpointMissingError, ExitCode, RequestInputError
from pipeline.terminal import stdout_to_stderr

if TYPE_CHECKING:
    from agents.artifacts import PlanRequest
    from pipeline.jobs import RunOptions
    from pipeline.progress import ProgressMode


_ENGINE_HELP = """\
exit codes (all pipeline commands):
  0  everything asked for finished        2  usage or input error (nothing run)
  1  some request failed, invalid, locked  3  interrupted (Ctrl-C / SIGTERM), resumable
  4  nothing failed, but some request awaits approval (advise approve/deny, then resume)
  5  storage: a directory full, read-only or not writable (the path is named)
  6  degraded: the LLM backend failed and the offline path answered (rerun to redo)
"""


def _engine_options(p: argparse.ArgumentParser, *, batch: bool = False) -> None:
    from pipeline.config import ENGINE, RUNNING, add_settings

    g = add_settings(p, (*RUNNING, *ENGINE) if batch else RUNNING, title="engine options")
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
        "--no-wait",
        action="store_true",
        help="dry run: approvals a request needs (e.g. an overload) are recorded as denied "
        "and the request is re-planned, instead of stopping in awaiting_approval",
    )
    # Tests and the memory benchmark only: 'real' agents, or 'module:attr' of a StageSet.
    g.add_argument("--stages", default="real", help=argparse.SUPPRESS)
    g.add_argument("-v", "--verbose", action="count", default=0, help="-v info, -vv debug")
    g.add_argument("--json", action="store_true", help="print the result as JSON")
    if batch:
        g.add_argument(
            "-q",
            "--quiet",
            action="store_true",
            help="no progress on stderr (a bar on a terminal, else a line every "
            "--progress-every seconds)",
        )
        g.add_argument(
            "--progress-every",
            type=seconds,
            metavar="SECONDS",
            help="seconds between progress lines when stderr is not a terminal (default: 10)",
        )


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
    alternatives_option(p)
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
        "per\nrequest), and prints a summary table. With --templates, the finished requests it "
        "skips get\ntheir outputs written again with those templates (no stage runs; see "
        "'advise render').\n\nexamples:\n"
        "  advise batch demos/requests.jsonl --workers 2\n"
        "  advise batch demos/requests.jsonl --engine ray --workers 2   # pip install -e '.[ray]'\n"
        "  head -n 5 demos/requests.jsonl | advise batch - --json\n\n" + _ENGINE_HELP,
    )
    p.add_argument("input", help="JSONL file, directory of JSON files, or '-' (stdin)")
    alternatives_option(p)
    _engine_options(p, batch=True)
    p.set_defaults(handler=_cmd_batch)


def add_resume(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "resume",
        help="resume a checkpointed request, or all unfinished ones",
        formatter_class=Formatter,
        description="Resume from the checkpoint: finished stages are not run again; a "
        "failed run re-enters\nthe stage that failed. A checkpoint made with another "
        "catalog or configuration is\nrefused unless --force.\n\nexamples:\n"
        "  advise resume add-cs-minor\n  advise resume --all --workers 2\n\n" + _ENGINE_HELP,
    )
    p.add_argument("id", nargs="?", help="request id")
    p.add_argument("--all", action="store_true", help="every unfinished checkpoint")
    _engine_options(p, batch=True)
    p.set_defaults(handler=_cmd_resume)


def _options(args: argparse.Namespace) -> RunOptions:
    from dataclasses import replace

    from agents.toolbox import Settings
    from pipeline.jobs import RunOptions

    opts = RunOptions(
        state_dir=Path(args.state_dir),
        out_dir=Path(args.out_dir),
        catalog=args.catalog,
        backend=args.backend,
        model=args.model,
        settings=Settings(max_rounds=args.max_rounds),
        stages=args.stages,
        workers=getattr(args, "workers", 1),
        engine=getattr(args, "engine", "process"),
        ray_address=getattr(args, "ray_address", None),
        force=args.force,
        rerun_stale=args.rerun_stale,
        no_wait=args.no_wait,
        exceptions_dir=Path(args.exceptions) if getattr(args, "exceptions", None) else None,
        alternatives=getattr(args, "alternatives", None),
        templates=_templates(args),
        console_level=("warning", "info", "debug")[min(args.verbose, 2)],
    )
    every = getattr(args, "progress_every", None)
    return opts if every is None else replace(opts, progress_every_s=every)


def _start_logs(opts: RunOptions, log_dir: str, kind: str, label: str | None) -> RunOptions:
    from dataclasses import replace

    from pipeline.logs import configure_logging, log_file

    opts = replace(opts, log_path=log_file(Path(log_dir), kind, label))
    configure_logging(opts.console_level, json_path=opts.log_path)
    return opts


def _single(args: argparse.Namespace, opts: RunOptions, request: PlanRequest) -> int:
    from pipeline.context import State
    from pipeline.runner import GracefulStop, ToolboxFactory, run_request
    from pipeline.startup import lazy_stages, resume_gc
    from pipeline.store import CheckpointStore

    opts = _start_logs(opts, args.log_dir, "run", request.request_id)
    factory = ToolboxFactory(catalog_path=opts.catalog, backend=opts.backend, model=opts.model)
    stages = lazy_stages(opts.stages)  # each agent loads when its stage first runs
    resume_gc()  # start-up is over: what it loaded is frozen, the stages get a collector
    with GracefulStop().installed(restore=False) as stop, stdout_to_stderr():
        store = CheckpointStore(opts.state_dir, background=True)
        ctx = run_request(request, opts.for_request(store, factory, stages, stop))
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
        "degraded": {stage.value: why for stage, why in ctx.degraded.items()} if done else {},
    }
    if args.json:
        print(json.dumps(result))
    elif done:
        print(f"{ctx.request_id}: {ctx.outcome} after {ctx.round} round(s) -> {outputs[0]}")
    else:
        print(f"{ctx.request_id}: failed at {error}; fix and 'advise resume {ctx.request_id}'")
    if done and ctx.degraded:  # usable, but the LLM backend failed (pipeline.degraded)
        from pipeline.degraded import degraded_note

        print(degraded_note(ctx), file=sys.stderr)
        return int(ExitCode.DEGRADED)
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
    from agents.catalog import load_catalog

    calendar = load_catalog(opts.catalog).calendar  # cached: the run loads it again for free
    checked = RequestValidator(
        opts.exceptions_dir, calendar=calendar, alternatives=opts.alternatives
    ).check(item)
    if isinstance(checked, Invalid):
        raise RequestInputError(f"{args.request}: {checked.message}")
    return _single(args, _own_catalog(opts, checked.request_id), checked)


def _prepare(opts: RunOptions) -> RunOptions:
    """Fail fast, in the parent, on a catalog, backend or stage set that cannot load; and
    the fingerprints every request of the batch is checked against (stale or not)."""
    from dataclasses import replace

    from pipeline.machine import stage_set_name
    from pipeline.runner import ToolboxFactory
    from pipeline.stale import Fingerprints

    # The catalog comes from its cache when unchanged; the agents (and OR-Tools) are only
    # checked to exist: the workers load them, the parent never runs a stage itself
    # unless it is the only worker.
    factory = ToolboxFactory(catalog_path=opts.catalog, backend=opts.backend, model=opts.model)
    config = factory.run_config(opts.settings, stage_set_name(opts.stages))
    current = Fingerprints(factory.catalog_fingerprint, config.fingerprint())
    return replace(opts, current=current, calendar=factory.catalog.calendar)


def _templates(args: argparse.Namespace) -> Path | None:
    """``--templates DIR``, checked before anything runs (a broken template is exit 2)."""
    from agents.reports import check_templates

    if not getattr(args, "templates", None):
        return None
    directory = Path(args.templates)
    check_templates(directory)
    return directory


def _batch(args: argparse.Namespace, opts: RunOptions, items: Any, total: int | None) -> int:
    from pipeline.batch import run_batch
    from pipeline.runner import GracefulStop
    from pipeline.startup import resume_gc

    resume_gc()  # start-up is over (see _single)
    mode: ProgressMode = "off" if args.quiet else "bar" if sys.stderr.isatty() else "lines"
    from agents.reports import use_templates

    stop = GracefulStop()  # stdout carries only the report printed after the run
    with stop.installed(restore=False), use_templates(opts.templates), stdout_to_stderr():
        report = run_batch(items, opts, stop=stop, total=total, progress=mode)
    if args.json:
        print(json.dumps(report.as_json(), sort_keys=True))
    else:
        from pipeline.cli_report import print_report

        print_report(report, opts)
    return int(report.exit_code)


def _engine_problem(opts: RunOptions, args: argparse.Namespace) -> int | None:
    """Fail fast, before any log or catalog: a Ray address without ``--engine ray`` is a
    usage error (exit 2); ``--engine ray`` without Ray installed raises
    RayUnavailableError (exit 2), which says how to install it."""
    if opts.ray_address and opts.engine != "ray":
        resolved = getattr(args, "settings_resolved", {}).get("ray_address")
        message = f"--ray-address {opts.ray_address!r} needs --engine ray"
        if resolved is not None and resolved.source in ("env", "file"):
            message = (
                f"ray_address {opts.ray_address!r} ({resolved.where}) needs engine ray: "
                '--engine ray, ADVISE_ENGINE=ray or engine = "ray" in advise.toml'
            )
        print(f"error: {message}", file=sys.stderr)
        return EXIT_USAGE
    if opts.engine == "ray":
        import pipeline.ray_engine  # noqa: F401
    return None


def _cmd_batch(args: argparse.Namespace) -> int:
    from pipeline.batch_input import input_items

    opts = _options(args)
    if (problem := _engine_problem(opts, args)) is not None:
        return problem
    items, total = input_items(args.input)
    opts = _prepare(_start_logs(opts, args.log_dir, "batch", None))
    return _batch(args, opts, items, total)


def _cmd_resume(args: argparse.Namespace) -> int:
    from pipeline.batch_input import resume_items
    from pipeline.store import CheckpointStore
    from pipeline.workspace import CatalogFingerprints

    if bool(args.id) == bool(args.all):
        raise RequestInputError("give a request id or --all (not both); see 'advise status'")
    opts = _options(args)
    store = CheckpointStore(opts.state_dir)
    if args.all:
        if (problem := _engine_problem(opts, args)) is not None:
            return problem
        opts = _prepare(_start_logs(opts, args.log_dir, "resume", None))
        known = CatalogFingerprints.of_command(opts.current, opts.catalog)
        items = resume_items(store, opts.out_dir, known, opts.catalog, every=opts.force)
        return _batch(args, opts, items, None)
    ctx = store.load(args.id)
    if ctx is None:
        raise CheckpointMissingError(args.id, opts.state_dir)
    return _single(args, _own_catalog(opts, ctx.request_id), ctx.request)


def _own_catalog(opts: RunOptions, request_id: str) -> RunOptions:
    """``opts`` with the catalog a run of ``request_id`` uses (``pipeline.workspace``)."""
    from dataclasses import replace

    from pipeline.workspace import own_catalog

    return replace(opts, catalog=own_catalog(opts.state_dir, request_id, opts.catalog))

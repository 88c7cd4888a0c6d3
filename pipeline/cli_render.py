"""``advise render``: finished requests' outputs written again from their checkpoints (an
office edited a template), and the batch index with them; no stage runs
(``pipeline.rerender``)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.cli_common import EXIT_FAILED, EXIT_OK, Formatter
from pipeline.config import WORKSPACE, add_settings
from pipeline.errors import RequestInputError

if TYPE_CHECKING:
    from pipeline.rerender import Rendered


def add_render(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "render",
        help="write finished requests' reports again from their checkpoints (new templates)",
        formatter_class=Formatter,
        description="Write the outputs of finished requests again - out/<id>.json, .md and "
        ".html, the\nletter inside them, and the batch index out/index.html - from their "
        "checkpoints, with\nthe templates given (--templates, ADVISE_TEMPLATES or advise.toml; "
        "else the shipped\nones). No stage runs and no checkpoint changes; only files whose "
        "content changes are\nreplaced. A request that is unknown or not finished is named "
        "with what to do (exit 1);\nthe others are still rendered.\n\n"
        "examples:\n  advise render --all --templates office\n"
        "  advise render add-cs-minor overload-low-gpa --json",
    )
    p.add_argument("ids", nargs="*", metavar="ID", help="request ids (see 'advise status')")
    p.add_argument("--all", action="store_true", help="every finished request in --state-dir")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_settings(p, (*WORKSPACE, "templates"))
    p.add_argument("--stages", default="real", help=argparse.SUPPRESS)  # tests only
    p.set_defaults(handler=_cmd_render)


def _cmd_render(args: argparse.Namespace) -> int:
    import structlog

    from agents.reports import check_templates, use_templates
    from pipeline.logs import configure_logging, log_file
    from pipeline.machine import load_stages
    from pipeline.rerender import finished_ids, rerender
    from pipeline.store import CheckpointStore

    if bool(args.ids) == bool(args.all):
        raise RequestInputError("give request ids or --all (not both); see 'advise status'")
    templates = Path(args.templates) if args.templates else None
    if templates is not None:
        check_templates(templates)  # a broken template stops everything before a write
    configure_logging("warning", json_path=log_file(Path(args.log_dir), "render"))
    store = CheckpointStore(Path(args.state_dir))
    out_dir = Path(args.out_dir)
    ids, unfinished = finished_ids(store) if args.all else (list(dict.fromkeys(args.ids)), 0)
    stages = load_stages(args.stages)
    results: list[Rendered] = []
    with use_templates(templates):
        for rid in ids:
            results.append(rerender(store, out_dir, rid, catalog=args.catalog, stages=stages))
        index = _index(out_dir)
    structlog.get_logger(__name__).info(
        "render.done", requests=len(results), templates=str(templates) if templates else None
    )
    failed = [r for r in results if not r.ok]
    if args.json:
        print(json.dumps({
            "templates": str(templates) if templates else None, "out_dir": str(out_dir),
            "requests": [r.as_json() for r in results], "index": index,
            "unfinished_skipped": unfinished,
        }))  # fmt: skip
    else:
        _print(results, index, unfinished, out_dir)
    return EXIT_FAILED if failed else EXIT_OK


def _index(out_dir: Path) -> str | None:
    """The batch index written again (when a batch ever wrote one in ``out_dir``)."""
    from pipeline.summaries import MERGED_NAME, RUNS_DIR, merge_summaries

    if not ((out_dir / RUNS_DIR).is_dir() or (out_dir / MERGED_NAME).is_file()):
        return None
    from pipeline.index import INDEX_NAME

    merge_summaries(out_dir)
    return str(out_dir / INDEX_NAME)


def _print(results: list[Rendered], index: str | None, unfinished: int, out_dir: Path) -> None:
    from pipeline.terminal import printable

    for r in results:
        if r.status == "rendered":
            line = f"{r.id}: rendered {', '.join(r.files)}"
        elif r.status == "unchanged":
            line = f"{r.id}: unchanged (its outputs in {out_dir} already match the templates)"
        else:
            line = f"{r.id}: {r.status}: {r.message}"
        print(printable(line))
        if r.ok and r.message:
            print(printable(f"  note: {r.message}"))
    if not results:
        print(f"no finished request to render in the state directory ({unfinished} unfinished)")
    elif unfinished:
        print(f"{unfinished} unfinished request(s) left alone ('advise status' lists them)")
    if index is not None:
        print(f"index: {index}")

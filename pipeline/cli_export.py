"""``advise export``: a finished request's plan as CSV, an iCalendar file or a PDF.

The request is found by its checkpoint (``--state-dir``): only a ``done`` request has a
plan, and one that is unknown, unfinished, failed or awaiting approval is refused with
what to run. CSV and iCalendar are made from the checkpoint's recommendation and the
catalog (``--catalog``, as for ``run``: term dates, rooms), and so is the PDF, laid out
without a browser (``--pdf-engine native``, the default); ``--pdf-engine chromium`` prints
the HTML report the run wrote (``--out-dir``) with headless Chromium instead. The file
goes to ``<out-dir>/<id>.<ext>`` unless ``-o`` names another, written atomically.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agents.errors import ExportError
from pipeline.cli_common import EXIT_OK, Formatter
from pipeline.config import WORKSPACE, add_settings

if TYPE_CHECKING:
    from agents.artifacts import Recommendation
    from agents.catalog import Catalog
    from pipeline.context import WorkflowContext

ExportFormat = Literal["csv", "ics", "pdf"]
FORMATS: tuple[ExportFormat, ...] = ("csv", "ics", "pdf")
PDF_ENGINES = ("native", "chromium")


def add_export(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "export",
        help="a finished request's plan as CSV, iCalendar (.ics) or PDF",
        formatter_class=Formatter,
        description="Export the plan of a finished request: csv (one row per planned "
        "course, with the next\nterm's sections), ics (the next term's class meetings as "
        "weekly events, later terms as\nall-day events; term dates, time zone and holidays "
        "from the catalog calendar) or pdf\n(title, date, the plan as a grid, the letter, "
        "page numbers; no browser needed - or the\nHTML report printed by Chromium with "
        "--pdf-engine chromium). Writes <out-dir>/<id>.<format>\nunless -o names the file."
        "\n\n"
        "examples:\n  advise export add-cs-minor --format csv\n"
        "  advise export add-cs-minor --format ics -o ~/plan.ics\n"
        "  advise export add-cs-minor --format pdf --out-dir out\n"
        "  advise export add-cs-minor --format pdf --pdf-engine chromium",
    )
    p.add_argument("id", help="request id (see 'advise status')")
    p.add_argument("--format", required=True, choices=FORMATS, help="what to write")
    p.add_argument(
        "-o", "--output", metavar="FILE", help="file to write (default: <out-dir>/<id>.<format>)"
    )
    p.add_argument("--json", action="store_true", help="print what was written as JSON")
    p.add_argument(
        "--pdf-engine",
        choices=PDF_ENGINES,
        help="with --format pdf: native (the default: laid out by fpdf2, no browser) or "
        "chromium (the HTML report printed by headless Chromium; the default when --chromium "
        "is given)",
    )
    p.add_argument(
        "--chromium",
        metavar="PATH",
        help="with --pdf-engine chromium: the Chromium or Chrome to print with (default: "
        "the first one found on PATH)",
    )
    add_settings(p, WORKSPACE)
    p.set_defaults(handler=_cmd_export)


def _cmd_export(args: argparse.Namespace) -> int:
    import json

    import structlog

    from agents.files import atomic_write, ensure_dir
    from pipeline.logs import configure_logging, log_file

    configure_logging("warning", json_path=log_file(Path(args.log_dir), "export"))
    state_dir, out_dir = Path(args.state_dir), Path(args.out_dir)
    ctx = finished(args.id, state_dir)
    fmt: ExportFormat = args.format
    target = Path(args.output) if args.output else out_dir / f"{ctx.request_id}.{fmt}"
    if fmt != "pdf" and (args.pdf_engine or args.chromium):
        given = "--pdf-engine" if args.pdf_engine else "--chromium"
        raise ExportError(f"{given} applies to --format pdf only, not --format {fmt}; drop it")
    engine = args.pdf_engine or ("chromium" if args.chromium else "native")
    if args.chromium and engine != "chromium":
        raise ExportError(
            f"--chromium {args.chromium!r} names a browser for --pdf-engine chromium, not "
            f"--pdf-engine {engine}; drop one of them"
        )
    if fmt == "pdf" and engine == "chromium":
        data = _pdf(ctx.request_id, out_dir, args.chromium)
        note = ""
    else:
        rec = ctx.recommendation
        assert rec is not None  # a done checkpoint always has it (see pipeline.outputs)
        data, note = _plan_file(fmt, ctx, rec, _catalog(ctx, args.catalog))
    ensure_dir(target.parent)
    atomic_write(target, data)
    structlog.get_logger(__name__).info(
        "export.written", request_id=ctx.request_id, format=fmt, path=str(target)
    )
    if args.json:
        said = note.strip().strip("()")
        print(
            json.dumps({"id": ctx.request_id, "format": fmt, "output": str(target), "note": said})
        )
    else:
        print(f"{ctx.request_id}: wrote {target}{note}")
    return EXIT_OK


def finished(request_id: str, state_dir: Path) -> WorkflowContext:
    """The checkpoint of a finished request, or an ``ExportError`` saying what to run."""
    from pipeline.context import State
    from pipeline.store import CheckpointStore

    ctx = CheckpointStore(state_dir).load(request_id)
    rid = request_id
    if ctx is None:
        raise ExportError(
            f"no request {rid!r} in {str(state_dir)!r}: run it first ('advise run "
            "REQUEST.json' or 'advise batch FILE'), check the id with 'advise status', or "
            "pass the --state-dir it ran with"
        )
    if ctx.state is State.done:
        return ctx
    if ctx.state is State.failed:
        stage = ctx.failed_stage.value if ctx.failed_stage else "?"
        why = f": {ctx.errors[-1].message}" if ctx.errors else ""
        raise ExportError(
            f"request {rid!r} failed at stage {stage!r}{why}; it has no plan to export - fix "
            f"the cause ('advise show {rid}') and 'advise resume {rid}', then export"
        )
    if ctx.state is State.awaiting_approval:
        rules = [a.rule_id for a in ctx.approvals if a.decision == "pending"] or ["RULE"]
        raise ExportError(
            f"request {rid!r} is awaiting approval of {', '.join(rules)}; 'advise approve "
            f"{rid} {rules[0]} --by NAME --reason TEXT' (or 'advise deny ...'), then 'advise "
            f"resume {rid}', then export"
        )
    raise ExportError(
        f"request {rid!r} is not finished (next stage: {ctx.state.value!r} in "
        f"{str(state_dir)!r}); finish it with 'advise resume {rid}', then export"
    )


def _catalog(ctx: WorkflowContext, named: str | None) -> Catalog:
    """The catalog ``--catalog`` names, else the one the request ran with."""
    from agents.catalog import catalog_fingerprint, load_catalog
    from pipeline.workspace import catalog_for

    path = catalog_for(ctx.request_id, ctx.catalog_source, named)
    catalog = load_catalog(path)
    current = catalog_fingerprint(path)
    if current != ctx.catalog_fingerprint:
        # Dates may have been added since the run: read them, and say so. Meeting times
        # still come from the plan; a room is only taken from a section that still matches.
        print(
            f"note: {ctx.request_id!r} was planned with catalog {ctx.catalog_fingerprint[:12]}; "
            f"term dates and rooms are read from the current catalog {current[:12]}",
            file=sys.stderr,
        )
    return catalog


def _plan_file(
    fmt: ExportFormat, ctx: WorkflowContext, rec: Recommendation, catalog: Catalog
) -> tuple[bytes, str]:
    from agents.writing.export_csv import plan_csv
    from agents.writing.export_ics import plan_ics
    from agents.writing.export_pdf import plan_pdf
    from agents.writing.export_plan import plan_terms

    registered = {(r.course, r.term) for r in ctx.request.student.registered}
    if fmt == "pdf":  # made now; a request answered without a plan has its answer
        now = dt.datetime.now(dt.UTC)
        return plan_pdf(rec, catalog, generated=now, registered=registered), ""
    _terms, counter = plan_terms(rec)
    note = ""
    if counter and rec.counter_proposal is not None:
        note = (
            f" (the counter-proposal graduating {rec.counter_proposal.graduation_term}: the "
            f"requested {rec.counter_proposal.target_term} is not feasible)"
        )
    if fmt == "csv":
        text = plan_csv(rec, catalog, registered)
    else:
        text = plan_ics(rec, catalog, stamp=ctx.updated_at, registered=registered)
    return text.encode("utf-8"), note


def _pdf(request_id: str, out_dir: Path, chromium: str | None) -> bytes:
    from agents.writing.pdf_chromium import find_chromium, html_pdf

    html = out_dir / f"{request_id}.html"
    if not html.is_file():
        raise ExportError(
            f"no HTML report {str(html)!r} for request {request_id!r}: pass the --out-dir it "
            f"ran with, or write it again with 'advise resume {request_id} --force'"
        )
    return html_pdf(html, find_chromium(chromium))

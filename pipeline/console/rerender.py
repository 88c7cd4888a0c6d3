"""Re-render a finished request's outputs from its checkpoint, nothing run again:
``python -m pipeline.console.rerender ID [--state-dir DIR] [--out-dir DIR]
[--templates DIR]`` - what the console's "re-render" button starts (after an office changed
its report templates, say). Under the request's lease, like every run: a request being
worked on elsewhere is refused (exit 1, naming the holder). The outputs are written as a
finished run writes them (``pipeline.outputs``; atomically), with the request's own catalog.
Exit 0 when written, 1 when refused, 2 when the request is unknown or not finished."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from agents.errors import AdvisingError
from pipeline.context import State
from pipeline.errors import LockHeldError


def rerender(
    state_dir: Path,
    out_dir: Path,
    request_id: str,
    *,
    stages: str = "real",
    templates: Path | None = None,
) -> list[Path]:
    """Write the request's outputs again from its checkpoint; the files written."""
    from agents.catalog import load_catalog, use_catalog
    from agents.files import atomic_write_many, ensure_dir, remove_temps
    from agents.reports import use_templates
    from pipeline.errors import CheckpointMissingError, PipelineError
    from pipeline.machine import load_stages
    from pipeline.outputs import render_outputs
    from pipeline.store import CheckpointStore
    from pipeline.workspace import own_catalog

    store = CheckpointStore(state_dir)
    catalog = load_catalog(own_catalog(state_dir, request_id, None))
    stage_set = load_stages(stages)
    with store.lock(request_id), use_catalog(catalog), use_templates(templates):
        ctx = store.load(request_id)
        if ctx is None:
            raise CheckpointMissingError(request_id, state_dir)
        if ctx.state is not State.done:
            raise PipelineError(
                f"{request_id!r} is {ctx.state.value}, not done: only a "
                "finished request has outputs to re-render; resume it"
            )
        files = render_outputs(ctx, stage_set, out_dir)
        ensure_dir(out_dir)
        for path in files:
            remove_temps(path)  # a killed writer's; the lease makes us the only writer
        atomic_write_many(files)
    return sorted(files)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pipeline.console.rerender", description=__doc__
    )
    parser.add_argument("id")
    parser.add_argument("--state-dir", default="state")
    parser.add_argument("--out-dir", default="out")
    parser.add_argument("--templates", help="directory of report templates")
    parser.add_argument("--stages", default="real", help=argparse.SUPPRESS)  # tests only
    args = parser.parse_args(argv)
    from pipeline.logs import configure_logging

    configure_logging("warning")
    templates = Path(args.templates) if args.templates else None
    try:
        files = rerender(
            Path(args.state_dir),
            Path(args.out_dir),
            args.id,
            stages=args.stages,
            templates=templates,
        )
    except LockHeldError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except AdvisingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{args.id}: re-rendered {', '.join(str(f) for f in files)}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

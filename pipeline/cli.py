"""The ``advise`` command line: the parser and ``main``.

Each subcommand is registered by a small ``add_<name>`` function and runs through a
``_cmd_<name>`` function that returns the exit code; the commands that run requests live
in ``pipeline.cli_run``, the inspection commands in ``pipeline.cli_status``, approvals in
``pipeline.cli_approvals``, the catalog and audit commands in ``pipeline.cli_catalog`` and
``pipeline.cli_audit``. Errors the user can fix are printed as one clear message on stderr
with exit code 2; nothing is half-written on failure.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Callable, Sequence
from typing import Any

from agents.errors import AdvisingError, StorageError
from pipeline.cli_common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_STORAGE,
    EXIT_USAGE,
    Formatter,
    Handler,
    package_version,
)
from pipeline.errors import CorruptCheckpointError, LockHeldError, RunInterrupted, StaleResultError
from pipeline.terminal import printable_output

Registrar = Callable[[argparse._SubParsersAction], None]  # type: ignore[type-arg]


def registrars() -> list[Registrar]:
    """Subcommand registrars, in the order --help lists them. Imported here, not with
    this module: a batch's worker processes import this module (it is the program's main
    module) but never parse a command line."""
    from pipeline.cli_approvals import add_approve, add_deny
    from pipeline.cli_audit import add_audit
    from pipeline.cli_catalog import add_catalog
    from pipeline.cli_config import add_config
    from pipeline.cli_export import add_export
    from pipeline.cli_render import add_render
    from pipeline.cli_run import add_batch, add_resume, add_run
    from pipeline.cli_serve import add_serve, add_users
    from pipeline.cli_status import add_diagram, add_show, add_status
    from pipeline.cli_student import add_student

    return [
        add_run,
        add_batch,
        add_resume,
        add_approve,
        add_deny,
        add_status,
        add_show,
        add_export,
        add_render,
        add_config,
        add_diagram,
        add_catalog,
        add_audit,
        add_student,
        add_serve,
        add_users,
    ]


# Commands whose start-up (imports, the catalog, the agents) runs without the cyclic
# garbage collector; each resumes it before requests run (``pipeline.startup``).
_PAUSED_START = frozenset({"run", "batch", "resume"})


class _Version(argparse.Action):
    """``--version``: the installed version, looked up only when asked for (reading the
    package metadata costs every command ~10 ms)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        print(f"advise {package_version()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="advise",
        formatter_class=Formatter,
        description="Advising-plan pipeline: audits, plans and recommendations for student "
        "plan requests.\n\nexamples:\n  advise catalog validate\n"
        "  advise audit demos/students/senior-on-track.json",
    )
    parser.add_argument("--version", action=_Version, help="show the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for register in registrars():
        register(sub)
    return parser


def _handle(args: argparse.Namespace) -> int:
    """The command's handler; the engine's errors as their message and exit code."""
    from pipeline.config import resolve_args

    handler: Handler = args.handler
    try:
        resolve_args(args)  # the workspace settings: flag > ADVISE_* > advise.toml > default
        return handler(args)
    except (RunInterrupted, KeyboardInterrupt) as exc:
        note = str(exc) or "checkpoints are saved; rerun the command or 'advise resume --all'"
        print(f"interrupted: {note}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except (LockHeldError, CorruptCheckpointError, StaleResultError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except StorageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_STORAGE
    except AdvisingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE


def main(argv: Sequence[str] | None = None) -> int:
    from pipeline.logs import configure_logging
    from pipeline.startup import pause_gc, resume_gc

    parser = build_parser()
    args = parser.parse_args(argv)
    if argv is None and args.command in _PAUSED_START:
        pause_gc()  # the program itself (callers passing argv keep their collector)
    try:
        with printable_output():  # nothing printed - a name, a title - can drive the terminal
            configure_logging("warning")
            return _handle(args)
    except BrokenPipeError:  # pragma: no cover - e.g. piping into head
        sys.stderr.close()
        return EXIT_OK
    finally:
        resume_gc()
        if argv is None:  # the process exits next: its last collection skips all we made
            gc.freeze()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

__all__ = ["EXIT_FAILED", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]

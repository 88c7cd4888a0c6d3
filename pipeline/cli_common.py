"""What every ``advise`` subcommand module shares: exit codes, the help formatter, the
handler type and the console tables print to. It imports no other CLI module, so the
subcommand modules and ``pipeline.cli`` can all import it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from pipeline.errors import ExitCode

if TYPE_CHECKING:
    from rich.console import Console

EXIT_OK = int(ExitCode.OK)
EXIT_FAILED = int(ExitCode.FAILED)
EXIT_USAGE = int(ExitCode.USAGE)
EXIT_INTERRUPTED = int(ExitCode.INTERRUPTED)
EXIT_AWAITING_APPROVAL = int(ExitCode.AWAITING_APPROVAL)
EXIT_STORAGE = int(ExitCode.STORAGE)

# The distribution name in pyproject.toml, whose version ``advise --version`` prints.
DISTRIBUTION = "advising-pipeline"

# A subcommand's handler: parsed arguments in, exit code out.
Handler = Callable[[argparse.Namespace], int]


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the line breaks of descriptions (their examples are laid out by hand)."""


def console() -> Console:
    from rich.console import Console

    # Piped output is not cut to 80 columns: ids must stay whole for scripts. No colour
    # codes: every escape sequence on stdout is neutralized (``pipeline.terminal``).
    return Console(soft_wrap=True, width=None if sys.stdout.isatty() else 160, color_system=None)


def package_version() -> str:
    """The installed package's version (``advise --version``)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def positive(text: str) -> int:
    """An argparse type: an integer of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {text!r}")
    return value


def seconds(text: str) -> float:
    """An argparse type: a number of seconds above 0."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):  # nan too
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return value


def alternatives_option(p: argparse.ArgumentParser) -> None:
    """``--alternatives K`` (``advise run`` and ``advise batch``)."""
    p.add_argument(
        "--alternatives",
        type=alternatives_count,
        metavar="K",
        help="show up to K (0-5) distinct plans beside the recommended one, each verified, "
        "with what differs; applies to requests that do not set 'alternatives' themselves "
        "(a request's own value wins, 0 included)",
    )


def alternatives_count(text: str) -> int:
    """An argparse type: a whole number from 0 to 5."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 5:
        raise argparse.ArgumentTypeError(f"expected a number of alternatives 0-5, got {text!r}")
    return value

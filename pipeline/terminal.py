"""What reaches the terminal: text that cannot drive it, and stdout kept for the result.

A student's name, a catalog title, a path or an error message can hold control
characters: ESC starts a sequence that recolours, retitles or rewrites the screen (or,
on some terminals, answers back as if typed), CR and backspace overwrite what was
printed. ``printable`` writes each one as a visible ``\\uXXXX`` escape - inside a JSON
string that is the same character, so JSON output stays exact - and keeps tab and
newline, the only controls the CLI's own layout uses. ``printable_output`` puts
``sys.stdout`` and ``sys.stderr`` behind it for a whole command (``pipeline.cli.main``);
the progress bar, whose escapes are the CLI's own and which shows only counts, writes to
the stream underneath (``raw``). The console log renders through ``printable`` too
(``pipeline.logs``), in worker processes as well.

``stdout_to_stderr`` is for ``--json``: while requests run, whatever a library, a worker
process or Ray prints to stdout goes to stderr, so stdout carries only the result.
"""

from __future__ import annotations

import io
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout, suppress
from typing import TextIO

# C0 controls but tab and newline, DEL and the C1 controls (U+009B is a one-character CSI).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with every control character but tab and newline written as ``\\uXXXX``:
    ``printable("Eve\\x1b[2J\\r\\n")`` is ``'Eve\\\\u001b[2J\\\\u000d\\n'``."""
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def one_line(text: str) -> str:
    """``printable`` with newlines escaped too: a value shown inside a line of the CLI's
    own (a student's name) cannot start a line that looks like one of the CLI's."""
    return printable(text).replace("\n", "\\u000a")


class PrintableStream(io.TextIOBase):
    """A text stream that passes everything written through ``printable``."""

    def __init__(self, stream: TextIO) -> None:
        self.raw = stream
        """The stream underneath, for output whose escapes are the CLI's own."""

    def write(self, text: str) -> int:
        self.raw.write(printable(text))
        return len(text)

    def flush(self) -> None:
        self.raw.flush()

    def isatty(self) -> bool:
        return self.raw.isatty()

    def fileno(self) -> int:
        return self.raw.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.raw, "encoding", None) or "utf-8"


def raw(stream: TextIO) -> TextIO:
    """The stream under a ``PrintableStream``; any other stream as it is."""
    return stream.raw if isinstance(stream, PrintableStream) else stream


@contextmanager
def printable_output() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` behind ``printable`` inside the block."""
    out, err = sys.stdout, sys.stderr
    sys.stdout = PrintableStream(raw(out))  # type: ignore[assignment]
    sys.stderr = PrintableStream(raw(err))  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err


@contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Everything written to stdout inside the block - by this process at the file
    descriptor, by worker processes started inside it, by Ray forwarding a worker's
    output - goes to stderr, so that stdout carries only what the command prints after
    (``--json``: the one JSON object)."""
    out = sys.stdout
    out.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no stdout at all
        yield
        return
    os.dup2(2, 1)
    try:
        with redirect_stdout(sys.stderr):
            yield
    finally:
        # Whatever was buffered for fd 1 inside the block belongs to stderr.
        for stream in (out, sys.__stdout__, sys.stderr):
            with suppress(AttributeError, OSError, ValueError):  # None, or closed
                stream.flush()  # type: ignore[union-attr]
        os.dup2(saved, 1)
        os.close(saved)

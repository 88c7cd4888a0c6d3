"""The shell commands of README.md and docs/*.md, read for tests/test_doc_commands.py.

A page's shell blocks (```sh, ```bash, ```console) are read in order into ``Command``s:

- a command is a line (backslash continuations joined); in a ```console block, a line
  starting with ``$ ``;
- a trailing comment (``cmd   # what it does``) is prose, except one starting ``exit N``,
  which is the exit status the command must end with (0 otherwise);
- comment lines starting in the first column after a command (``# state done, ...``), and in
  a ```console block the lines after a command, are its output as the page shows it: each
  must appear in what the command printed (spaces ignored), except lines with ``...`` or a
  timing (``21.4 ms``), which differ from run to run;
- an indented comment line continues the comment of the line above.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

FENCE = re.compile(r"^```(sh|bash|console)[ \t]*\n(.*?)^```", re.S | re.M)
EXIT = re.compile(r"^exit (\d+)\b")
VARIES = re.compile(r"\.\.\.|\d ms\b")


@dataclass
class Command:
    """One command of a page, where it is, the status it must end with, its shown output."""

    page: str
    line: int
    text: str
    status: int = 0
    shown: list[str] = field(default_factory=list)

    def where(self) -> str:
        return f"{self.page}:{self.line}: {self.text}"


def split_comment(line: str) -> tuple[str, str]:
    """``(command, comment)``: the comment is the text after a ``#`` that starts a word
    outside quotes."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1 :].strip()
    return line.rstrip(), ""


def _lines(block: str) -> list[tuple[int, str]]:
    """Lines with their offsets in the block, backslash continuations joined."""
    out: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for i, raw in enumerate(block.splitlines()):
        if pending is not None:
            raw = pending[1] + " " + raw.strip()
            i = pending[0]
        if raw.rstrip().endswith("\\"):
            pending = (i, raw.rstrip()[:-1].rstrip())
            continue
        pending = None
        out.append((i, raw))
    return out


def page_commands(path: Path, root: Path) -> list[Command]:
    """Every command of the page at ``path``, in order."""
    text = path.read_text(encoding="utf-8")
    page = path.relative_to(root).as_posix()
    commands: list[Command] = []
    for m in FENCE.finditer(text):
        first = text[: m.start(2)].count("\n") + 1
        console = m.group(1) == "console"
        last: Command | None = None
        for offset, raw in _lines(m.group(2)):
            if not raw.strip():
                continue
            if console and not raw.startswith("$ "):
                if last is not None:
                    last.shown.append(raw.strip())
                continue
            if raw.startswith("#"):
                if last is not None:
                    last.shown.append(raw[1:].strip())
                continue
            if raw[:1].isspace() and raw.strip().startswith("#"):
                continue  # the comment of the line above goes on
            command, comment = split_comment(raw[2:] if console else raw)
            status = EXIT.match(comment)
            last = Command(page, first + offset, command, int(status.group(1)) if status else 0)
            commands.append(last)
    return commands


def shown_lines(command: Command) -> list[str]:
    """The shown output lines a run can be checked against, spaces collapsed."""
    return [" ".join(s.split()) for s in command.shown if s and not VARIES.search(s)]

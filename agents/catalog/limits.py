"""The sizes of what the project reads, bounded, in one table.

A 10 MB request text, a 100,000-course record, a 60 MB transcript or a YAML alias bomb
must be refused at once with a message naming the limit, not run for minutes or exhaust
memory. Every reader checks its input against ``LIMITS`` before it parses or works on it,
and says ``<what>: <size>, over the limit of <limit>; <fix>``; the limits table in
docs/running.md is this table (``tests/test_fault_input_files.py`` compares them). The
values are far above anything real: a request is a few KB, a transcript a few hundred
KB, a 4,000-course catalog a few MB, a record a few dozen courses.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final


@dataclass(frozen=True)
class Limit:
    """One bound: its value, unit, what it bounds, and what a user gets past it."""

    value: int
    unit: str
    what: str
    outcome: str

    def past(self, fix: str) -> str:
        """The message for an input found over this limit while it is read (the reader
        stops there, so the whole size is not known)."""
        return f"{self.what}: more than the limit of {self.value:,} {self.unit}; {fix}"

    def problem(self, actual: int, fix: str) -> str:
        """The message for an input of size ``actual`` over this limit."""
        return (
            f"{self.what}: {actual:,} {self.unit}, over the limit of {self.value:,} "
            f"{self.unit}; {fix}"
        )


MiB: Final = 1024 * 1024

_INVALID = "the request is invalid{} (batch: status `invalid` with its line; `advise run`: exit 2)"
_BUILD = "`advise catalog build` (or a run on the directory) lists it with file, line, column"

LIMITS: Final[dict[str, Limit]] = {
    "request_bytes": Limit(1 * MiB, "bytes", "a request (one JSONL line or JSON file)",
                           _INVALID.format("") + "; the line is read past, never held whole"),
    "request_text": Limit(20_000, "characters", "a request's text, a record's notes",
                          _INVALID.format(" at `$.text`")),
    "name": Limit(200, "characters", "a student's name or id",
                  _INVALID.format(" at `$.student.name`") + "; a record file is refused (exit 2)"),
    "record_courses": Limit(2_000, "entries", "the courses (or registrations) of a record",
                            _INVALID.format(" at `$.student.courses`") + "; `advise audit` "
                            "and `advise student import` refuse it before any work (exit 2)"),
    "record_bytes": Limit(8 * MiB, "bytes", "a student record or exceptions file",
                          "refused before it is read (exit 2)"),
    "transcript_bytes": Limit(20 * MiB, "bytes", "a transcript file (PESC XML or CSV)",
                              "`advise student import` refuses it before it is read (exit 2)"),
    "catalog_bytes": Limit(64 * MiB, "bytes", "a catalog file (or a file of a catalog directory)",
                           "refused before it is read (exit 2); in a directory, a build problem"),
    "settings_bytes": Limit(1 * MiB, "bytes", "a workspace settings file (`advise.toml`)",
                            "every command refuses it before it is read (exit 2)"),
    "nesting": Limit(64, "levels", "the nesting of JSON, YAML or a transcript's XML",
                     _INVALID.format("") + "; a catalog, record or transcript: an "
                     "error naming the file"),
    "xml_elements": Limit(100_000, "elements", "the XML elements of a transcript",
                          "`advise student import` stops at that line (exit 2)"),
    "int_digits": Limit(4_300, "digits", "an integer in JSON (Python's own bound)",
                        _INVALID.format("") + "; a catalog or record error naming the file"),
    "yaml_aliases": Limit(100, "aliases", "the aliases (`*name`) in one YAML file", _BUILD),
    "yaml_values": Limit(500_000, "values", "one YAML file's values, every alias written out",
                         _BUILD),
}  # fmt: skip
"""Every input bound, by key. ``int_digits`` is Python's (``sys.get_int_max_str_digits``,
a guard against quadratic-time conversion), reported like the others. Nine short lines of
nested YAML anchors stand for a billion values with fewer than 100 aliases, so
``yaml_values`` bounds what the aliases stand for, not only how many there are."""


def limits_table() -> str:
    """The limits table of docs/running.md (Markdown), made from ``LIMITS``."""
    rows = ["| What | Limit | What you get past it |", "| --- | --- | --- |"]
    for key, limit in LIMITS.items():
        size = f"{limit.value:,} {limit.unit}"
        if limit.unit == "bytes":
            size += f" ({limit.value // MiB} MiB)"
        rows.append(f"| {limit.what} (`{key}`) | {size} | {limit.outcome} |")
    return "\n".join(rows) + "\n"


def not_utf8(data: bytes, exc: UnicodeDecodeError) -> tuple[int, str]:
    """Where ``data`` stops being UTF-8: its line, and ``not UTF-8 text (byte 0xNN)``."""
    return data[: exc.start].count(b"\n") + 1, f"not UTF-8 text (byte {data[exc.start]:#04x})"


def size_problem(path: Path, key: str, fix: str) -> str | None:
    """Why the file at ``path`` is too big to read under limit ``key``, else None (a file
    that cannot be stat'ed is left to the reader to report)."""
    limit = LIMITS[key]
    try:
        size = path.stat().st_size
    except OSError:
        return None
    return limit.problem(size, fix) if size > limit.value else None


def depth_problem(text: str) -> str | None:
    """Why ``text`` (JSON) nests too deeply to read, else None - found by scanning, so a
    hostile input never reaches the parser's recursion."""
    limit = LIMITS["nesting"].value
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return f"JSON nested deeper than the limit of {limit} levels; check its brackets"
        elif ch in "]}":
            depth -= 1
    return None


def loads(text: str) -> Any:
    """``json.loads`` bounded: ValueError with a readable message for a value nested too
    deeply or an integer with too many digits (``json.JSONDecodeError`` as usual for
    syntax)."""
    problem = depth_problem(text)
    if problem is not None:
        raise ValueError(problem)
    try:
        return json.loads(text, parse_int=_bounded_int)
    except RecursionError:  # pragma: no cover - depth_problem bounds the nesting first
        raise ValueError("JSON nested too deeply to read") from None


def _bounded_int(digits: str) -> int:
    """``int(digits)``, or a ValueError saying how long the number is: Python refuses to
    read one of more than ``sys.get_int_max_str_digits()`` digits (the quadratic-time
    conversion is a known denial of service)."""
    python = sys.get_int_max_str_digits()
    limit = min(LIMITS["int_digits"].value, python) if python else LIMITS["int_digits"].value
    count = len(digits.lstrip("-"))
    if count > limit:
        raise ValueError(
            f"an integer with {count:,} digits, over the limit of {limit:,} digits; write "
            "it in fewer digits"
        )
    return int(digits)


def unicode_problem(value: Any, path: str = "$") -> str | None:
    """The JSON path of the first string in ``value`` that is not valid Unicode (a lone
    surrogate such as ``\\ud800``), with the fix; None if there is none."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            bad = value[exc.start]
            return (
                f"{path}: {bad!a} at character {exc.start + 1} is a lone surrogate, not "
                "valid Unicode; remove it or write the whole character"
            )
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            found = unicode_problem(key, f"{path} (a key)") or unicode_problem(
                item, f"{path}.{key}" if isinstance(key, str) else path
            )
            if found:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found = unicode_problem(item, f"{path}[{i}]")
            if found:
                return found
    return None

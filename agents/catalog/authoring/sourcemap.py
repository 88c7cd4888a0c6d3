"""Where each part of a built catalog came from, so the loader's problems point at files.

The loader reports problems by JSON path (``$.courses[3].units: ...``). While a catalog
directory is read, every value's JSON path is recorded with its place in the files
(``courses.csv:5 column 'units'``, ``programs/CS-BS.yaml:14``); ``SourceMap.explain``
rewrites a loader problem to start with that place instead of the path.
"""

from __future__ import annotations

import re

JsonPath = tuple[str | int, ...]

# "$.courses[3] (15-112).prerequisites: message" - crossref adds the item in parentheses.
_PROBLEM_RE = re.compile(
    r"^\$(?P<head>(?:\.[^.\[\s:()]+|\[\d+\])*)(?: \([^)]*\))?"
    r"(?P<tail>(?:\.[^.\[\s:()]+|\[\d+\])*): (?P<message>.*)$",
    re.DOTALL,
)
_PART_RE = re.compile(r"\.([^.\[]+)|\[(\d+)\]")
_UNKNOWN_FIELD_RE = re.compile(r"^unknown field '([^']+)'")

# Problems the loader reports without a path, and the file they concern.
_PATHLESS = (
    ("duplicate course code", "courses.csv"),
    ("duplicate program code", "programs/"),
    ("duplicate policy rule id", "policies.yaml"),
    ("duplicate document id", "documents/"),
)

# How to fix the loader's problems that do not already say so, by how they start.
_HINTS = (
    ("unknown field", "remove it or correct its spelling"),
    ("unknown course", "add the course to courses.csv or correct the code"),
    ("unknown program", "add programs/<CODE>.yaml or correct the code"),
    ("unknown document", "add documents/<id>.md or correct the id"),
    ("unknown policy rule", "add the rule to policies.yaml or correct the id"),
    ("section ", "add the season to the course's offered_terms or move the section"),
)


def _with_hint(message: str) -> str:
    for start, hint in _HINTS:
        if message.startswith(start) and " - " not in message:
            return f"{message} - {hint}"
    return message


def parse_path(text: str) -> JsonPath:
    """``.courses[3].units`` -> ``('courses', 3, 'units')``."""
    return tuple(int(index) if index else name for name, index in _PART_RE.findall(text))


class SourceMap:
    """JSON paths of a raw catalog mapped to places in the catalog directory's files."""

    def __init__(self) -> None:
        self._at: dict[JsonPath, str] = {}

    def add(self, path: JsonPath, where: str) -> None:
        self._at[path] = where

    def locate(self, path: JsonPath) -> str | None:
        """The place recorded for ``path`` or, failing that, for its nearest parent."""
        for end in range(len(path), -1, -1):
            where = self._at.get(path[:end])
            if where is not None:
                return where
        return None

    def explain(self, problem: str) -> str:
        """A loader problem rewritten to name the file and line it comes from."""
        m = _PROBLEM_RE.match(problem)
        if m is None:
            return _pathless(problem)
        path = parse_path(m.group("head") + m.group("tail"))
        message = m.group("message")
        unknown = _UNKNOWN_FIELD_RE.match(message)
        if unknown:
            path = (*path, unknown.group(1))
        where = self.locate(path)
        if where is None:
            return problem
        return f"{where}: {_with_hint(message)}"


def _pathless(problem: str) -> str:
    if problem.startswith("prerequisite cycle: "):
        return (
            f"courses.csv column 'prerequisites': {problem} - a course cannot require "
            "itself, directly or through others; remove one of these prerequisites"
        )
    for prefix, file in _PATHLESS:
        if problem.startswith(prefix):
            return f"{file}: {problem} - ids must be unique"
    return problem

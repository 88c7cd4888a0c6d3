"""Reading the layout's YAML files with the line of every value, and writing them back.

PyYAML's safe loader reads the value; the composed node tree gives each value's line (a
mapping entry's line is its key's line), recorded in the source map under the JSON path
the value takes in the catalog. Duplicate keys, which YAML itself silently resolves to the
last one, are reported.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import yaml

from agents.catalog.authoring.csvfiles import read_layout_text
from agents.catalog.authoring.sourcemap import JsonPath, SourceMap
from agents.catalog.limits import LIMITS

SYNTAX_HINT = (
    "check the indentation, and put quotes around text that contains ': ' or starts "
    "with a special character such as '*', '&', '[' or '{'"
)


class YamlLimitError(yaml.MarkedYAMLError):
    """A YAML file over one of the bounds in ``agents.catalog.limits``, where it went over."""


_OVER = {
    "yaml_aliases": "more than {n} aliases (*name) in one file, the limit; write the values "
    "out instead of repeating anchors",
    "yaml_values": "more than {n} values once every alias (*name) is written out, the limit "
    "(aliases of anchors that hold aliases multiply); write the values out instead of "
    "repeating anchors",
    "nesting": "nested deeper than {n} levels, the limit; nest the values less deeply",
}


class BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader with one file bounded while it is composed, before any value is
    built: its aliases (``yaml_aliases``), its values counted with every alias written out
    (``yaml_values`` - nine lines of nested anchors stand for a billion values, an alias
    bomb that walking or writing the value would expand) and its nesting (``nesting``:
    the composer recurses)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.aliases = 0
        self.values = 0  # aliases expanded
        self._depth = 0
        self._sizes: dict[str, int] = {}  # anchor -> the values its node stands for

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            self.aliases += 1
            self._check("yaml_aliases", self.aliases, event.start_mark)
            self.values += self._sizes.get(event.anchor or "", 1)
            self._check("yaml_values", self.values, event.start_mark)
            return super().compose_node(parent, index)
        before = self.values
        self.values += 1
        self._check("yaml_values", self.values, event.start_mark)
        self._depth += 1
        self._check("nesting", self._depth, event.start_mark)
        node = super().compose_node(parent, index)
        self._depth -= 1
        if getattr(event, "anchor", None) is not None:
            self._sizes[event.anchor] = self.values - before
        return node

    def _check(self, key: str, count: int, mark: Any) -> None:
        limit = LIMITS[key].value
        if count > limit:
            raise YamlLimitError(problem=_OVER[key].format(n=f"{limit:,}"), problem_mark=mark)


def load_bounded(text: str) -> tuple[yaml.Node | None, Any]:
    """The node tree and the value of one YAML document, composed once under the bounds of
    ``BoundedLoader``; ``yaml.YAMLError`` (a ``YamlLimitError`` for a bound) when it
    cannot be read."""
    loader = BoundedLoader(text)
    try:
        node = loader.get_single_node()
        return node, (loader.construct_document(node) if node is not None else None)
    finally:
        loader.dispose()


def _yaml_problem(name: str, exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    where = f"{name}:{mark.line + 1} column {mark.column + 1}" if mark is not None else name
    if isinstance(exc, YamlLimitError):
        return f"{where}: {exc.problem}"
    reason = getattr(exc, "problem", None) or str(exc)
    context, start = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context and start is not None and mark is not None and start.line != mark.line:
        # The mistake is often where the construct started, not where YAML noticed it.
        reason += f" ({context} that started on line {start.line + 1} column {start.column + 1})"
    return f"{where}: YAML syntax error: {reason} - {SYNTAX_HINT}"


def _walk(
    node: yaml.Node,
    path: JsonPath,
    name: str,
    base: JsonPath,
    smap: SourceMap,
    problems: list[str],
) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            key = str(key_node.value)
            line = key_node.start_mark.line + 1
            if key in seen:
                problems.append(
                    f"{name}:{line}: key {key!r} is already on line {seen[key]} - keep one"
                )
            seen[key] = line
            smap.add((*base, *path, key), f"{name}:{line} field {key!r}")
            _walk(value_node, (*path, key), name, base, smap, problems)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            smap.add((*base, *path, i), f"{name}:{item.start_mark.line + 1}")
            _walk(item, (*path, i), name, base, smap, problems)


def read_yaml(
    path: Path, name: str, base: JsonPath, smap: SourceMap, problems: list[str]
) -> tuple[bool, Any]:
    """``(ok, value)`` of a YAML file whose values sit at ``base`` in the catalog; a syntax
    error is recorded as a problem with its line and column and gives ``(False, None)``."""
    text = read_layout_text(path, name, problems)
    if text is None:
        return False, None
    try:
        node, value = load_bounded(text)
    except yaml.YAMLError as exc:
        problems.append(_yaml_problem(name, exc))
        return False, None
    smap.add(base, f"{name}:1")
    if node is not None:
        _walk(node, (), name, base, smap, problems)
    return True, _json_dates(value)


def _json_dates(value: Any) -> Any:
    """``value`` with every date YAML read (an unquoted ``2027-08-30``) as the text JSON
    holds it in: the catalog's JSON Schema checks a date as a string."""
    if isinstance(value, dt.date):  # a datetime too
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _json_dates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_dates(v) for v in value]
    return value


def parse_front_matter(
    text: str, name: str, first_line: int, problems: list[str]
) -> tuple[bool, Any]:
    """The YAML of a Markdown file's front matter, which starts on ``first_line``."""
    try:
        return True, load_bounded(text)[1]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            mark.line += first_line - 1
        problems.append(_yaml_problem(name, exc))
        return False, None


def dump_yaml(value: Any) -> str:
    """YAML text that ``read_yaml`` reads back to ``value``, keys in their given order."""
    return yaml.safe_dump(value, sort_keys=False, allow_unicode=True, width=88)

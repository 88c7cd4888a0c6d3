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

from agents.catalog.authoring.sourcemap import JsonPath, SourceMap

SYNTAX_HINT = (
    "check the indentation, and put quotes around text that contains ': ' or starts "
    "with a special character such as '*', '&', '[' or '{'"
)


def _yaml_problem(name: str, exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    where = f"{name}:{mark.line + 1} column {mark.column + 1}" if mark is not None else name
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
    text = path.read_text(encoding="utf-8-sig")
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        value = yaml.safe_load(text)
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
        return True, yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            mark.line += first_line - 1
        problems.append(_yaml_problem(name, exc))
        return False, None


def dump_yaml(value: Any) -> str:
    """YAML text that ``read_yaml`` reads back to ``value``, keys in their given order."""
    return yaml.safe_dump(value, sort_keys=False, allow_unicode=True, width=88)

"""Building catalog JSON from a catalog directory, and the JSON form builds write.

``build_catalog`` reads the layout (``agents.catalog.authoring.layout``), validates the
result with the catalog loader (JSON Schema, models, cross-references) and rewrites every
loader problem to name the file and line it comes from. ``catalog_json`` is the one JSON
form a built catalog takes: fields left at their defaults are omitted, prerequisites are
written as expressions where the expression reads back to the same tree, whole numbers are
written without '.0'. ``write_catalog`` writes it atomically.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agents.catalog.authoring.layout import read_layout
from agents.catalog.codes import CodeIndex
from agents.catalog.model import Catalog
from agents.catalog.parse import parse_catalog
from agents.catalog.prereq import PrereqNode, format_prereq
from agents.catalog.prereq_parse import parse_prereq
from agents.errors import CatalogError, LayoutError, PrereqSyntaxError
from agents.files import atomic_write_text


def prereq_text(node: PrereqNode, codes: CodeIndex | None = None) -> str | None:
    """The expression for ``node``, or None when no expression reads back to it (a group
    with one member, for instance); read with the catalog's course ``codes``."""
    text = format_prereq(node)
    try:
        return text if parse_prereq(text, codes) == node else None
    except PrereqSyntaxError:
        return None


def _whole_numbers(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _whole_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_whole_numbers(v) for v in value]
    return value


def catalog_json(catalog: Catalog) -> dict[str, Any]:
    """The JSON form of ``catalog`` that builds write (and that round trips compare)."""
    data: dict[str, Any] = catalog.model_dump(mode="json", exclude_defaults=True)
    for course, raw in zip(catalog.courses, data["courses"], strict=True):
        for field in ("prerequisites", "corequisites"):
            node = getattr(course, field)
            if node is not None and (text := prereq_text(node, catalog.code_index)) is not None:
                raw[field] = text
    return dict(_whole_numbers(data))


def build_catalog(directory: str | Path) -> tuple[Catalog, dict[str, Any]]:
    """The catalog a directory describes and its JSON; raises ``LayoutError`` listing every
    problem with its file and line."""
    root = Path(directory)
    raw, smap, problems = read_layout(root)
    if problems:
        raise LayoutError(str(root), problems)
    try:
        catalog = parse_catalog(raw, source=str(root))
    except CatalogError as exc:
        raise LayoutError(str(root), [smap.explain(p) for p in exc.problems]) from None
    data = catalog_json(catalog)
    # The written form must load to the same catalog; a failure here is a bug of this module.
    if parse_catalog(data, source="<built catalog>") != catalog:
        raise AssertionError("catalog_json does not load back to the same catalog")
    return catalog, data


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON so that ``path`` holds either the old file or the whole new one."""
    write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` so that ``path`` holds either the old file or the whole new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, text)


def build_to_file(directory: str | Path, out: str | Path) -> Catalog:
    """Build the catalog of ``directory`` and write its JSON to ``out``."""
    catalog, data = build_catalog(directory)
    write_json_atomic(Path(out), data)
    return catalog

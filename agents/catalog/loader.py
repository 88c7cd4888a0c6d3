"""Loading a catalog file: JSON Schema first, then typed models, then cross-references.

Every problem names the file, the JSON path, the offending value and what was expected, so
a registrar converting a real catalog can fix it without reading code. Problems are
collected, not raised one at a time. The readable schema problems come from
``agents.catalog.validation``, the cross-reference checks from ``agents.catalog.crossref``.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import structlog
from pydantic import ValidationError

from agents.catalog.crossref import reference_problems
from agents.catalog.model import Catalog
from agents.catalog.schemas import model_schema, published_schema, write_schema_file
from agents.catalog.validation import pydantic_problems, schema_problems
from agents.errors import CatalogError, CatalogReferenceError, CatalogSchemaError

log = structlog.get_logger(__name__)

SCHEMA_FILE = "catalog.schema.json"


def default_catalog_path() -> Path:
    """The sample catalog shipped with the package."""
    return Path(str(resources.files("agents") / "data" / "catalog.json"))


def catalog_schema() -> dict[str, Any]:
    """The catalog's JSON Schema as generated from the models (the published file's source)."""
    return model_schema(Catalog, SCHEMA_FILE)


def published_catalog_schema() -> dict[str, Any]:
    return published_schema(SCHEMA_FILE)


def load_catalog(path: str | Path | None = None) -> Catalog:
    """Load and fully check a catalog file (the shipped sample when ``path`` is None)."""
    p = Path(path) if path is not None else default_catalog_path()
    try:
        stat = p.stat()
    except FileNotFoundError:
        raise CatalogError(
            str(p), ["file not found; pass the path of a catalog JSON file"]
        ) from None
    return _load_cached(str(p.resolve()), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=8)
def _load_cached(path: str, _mtime: int, _size: int) -> Catalog:
    return parse_catalog_text(Path(path).read_text(encoding="utf-8"), source=path)


def parse_catalog_text(text: str, source: str = "<catalog>") -> Catalog:
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogSchemaError(
            source, [f"not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"]
        ) from None
    return parse_catalog(raw, source)


def parse_catalog(raw: Any, source: str = "<catalog>") -> Catalog:
    problems = schema_problems(raw, published_catalog_schema())
    if problems:
        raise CatalogSchemaError(source, problems)
    try:
        catalog = Catalog.model_validate(raw)
    except ValidationError as exc:
        raise CatalogSchemaError(source, pydantic_problems(exc)) from None
    refs = reference_problems(catalog)
    if refs:
        raise CatalogReferenceError(source, refs)
    log.debug("catalog.loaded", source=source, courses=len(catalog.courses))
    return catalog


def catalog_fingerprint(path: str | Path | None = None) -> str:
    """sha256 of the catalog file's bytes; a changed catalog gives a new fingerprint."""
    p = Path(path) if path is not None else default_catalog_path()
    return hashlib.sha256(p.read_bytes()).hexdigest()


def write_schema(directory: Path) -> Path:
    """Write the published schema file (used when the models change)."""
    return write_schema_file(directory, SCHEMA_FILE, catalog_schema())


if __name__ == "__main__":  # pragma: no cover - maintenance entry point
    print(write_schema(Path(__file__).resolve().parent.parent / "schemas"))

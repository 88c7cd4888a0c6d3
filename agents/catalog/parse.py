"""Reading a catalog's JSON: JSON Schema first, then typed models, then cross-references.

Every problem names the JSON path, the offending value and what was expected; problems are
collected, not raised one at a time. The readable schema problems come from
``agents.catalog.validation``, the cross-reference checks from ``agents.catalog.crossref``.
Files and directories are read by ``agents.catalog.loader``; the authoring layout's build
checks what it assembles here too.
"""

from __future__ import annotations

import json
from typing import Any

import structlog
from pydantic import ValidationError

from agents.catalog.crossref import reference_problems
from agents.catalog.limits import loads as bounded_loads
from agents.catalog.limits import unicode_problem
from agents.catalog.migrate import MIGRATE_HINT, catalog_version
from agents.catalog.model import Catalog
from agents.catalog.schemas import model_schema, published_schema
from agents.catalog.validation import pydantic_problems, schema_problems
from agents.errors import CatalogReferenceError, CatalogSchemaError

log = structlog.get_logger(__name__)

SCHEMA_FILE = "catalog.schema.json"


def catalog_schema() -> dict[str, Any]:
    """The catalog's JSON Schema as generated from the models (the published file's source)."""
    return model_schema(Catalog, SCHEMA_FILE)


def published_catalog_schema() -> dict[str, Any]:
    return published_schema(SCHEMA_FILE)


def parse_catalog_text(text: str, source: str = "<catalog>") -> Catalog:
    try:
        raw = bounded_loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogSchemaError(
            source, [f"not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"]
        ) from None
    except ValueError as exc:  # nested too deeply, an integer too long
        raise CatalogSchemaError(source, [str(exc)]) from None
    bad = unicode_problem(raw)
    if bad is not None:
        raise CatalogSchemaError(source, [bad])
    return parse_catalog(raw, source)


def parse_catalog(raw: Any, source: str = "<catalog>") -> Catalog:
    if catalog_version(raw) == 1:
        raise CatalogSchemaError(source, [MIGRATE_HINT.format(source=source)])
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

"""Published JSON Schemas: generated from the Pydantic models, shipped in
``agents/schemas/`` and kept equal to the models by tests."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agents.files import atomic_write_text

DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE_ID = "https://advising.example/schemas/"


def model_schema(model: type[BaseModel], file_name: str | None = None) -> dict[str, Any]:
    """The model's schema with the draft named and, given a file name, its ``$id``."""
    schema = model.model_json_schema()
    schema["$schema"] = DRAFT
    if file_name is not None:
        schema["$id"] = BASE_ID + file_name
    return schema


def published_schema(file_name: str) -> dict[str, Any]:
    """A schema file as shipped with the package."""
    text = (resources.files("agents") / "schemas" / file_name).read_text(encoding="utf-8")
    return json.loads(text)


def write_schema_file(directory: Path, file_name: str, schema: dict[str, Any]) -> Path:
    """Write a schema file the way every published one is written (sorted, indented)."""
    target = directory / file_name
    atomic_write_text(target, json.dumps(schema, indent=2, sort_keys=True) + "\n")
    return target

"""Artifacts: published JSON Schemas match the models; models are strict."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from agents.artifacts import ARTIFACT_MODELS, ConstraintSet, artifact_schema, schema_dir


@pytest.mark.parametrize("name", sorted(ARTIFACT_MODELS))
def test_published_schema_matches_model(name: str) -> None:
    published = json.loads((schema_dir() / f"{name}.schema.json").read_text(encoding="utf-8"))
    assert published == json.loads(json.dumps(artifact_schema(name)))


@pytest.mark.parametrize("name", sorted(ARTIFACT_MODELS))
def test_every_field_is_documented(name: str) -> None:
    schema = artifact_schema(name)
    undocumented = [
        f"{model}.{field}"
        for model, definition in [(name, schema), *schema.get("$defs", {}).items()]
        for field, prop in definition.get("properties", {}).items()
        if not prop.get("description")
    ]
    assert undocumented == []


def test_unknown_field_is_rejected() -> None:
    with pytest.raises(ValidationError) as info:
        ConstraintSet.model_validate({"max_units_per_term": 54, "max_unit": 60})
    assert info.value.errors()[0]["type"] == "extra_forbidden"
    assert info.value.errors()[0]["loc"] == ("max_unit",)

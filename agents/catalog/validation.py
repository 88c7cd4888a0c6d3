"""Schema validation of raw catalog data, reported as problems a person can act on.

``schema_problems`` checks JSON against a JSON Schema and turns each error into one line:
the JSON path, the offending value and what was expected (for a union, the error of the
branch the data was meant for, not a list of every branch). ``pydantic_problems`` does the
same for the model-level checks that a JSON Schema cannot express.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError as SchemaError
from pydantic import ValidationError


def read_json(path: str | Path, error: Callable[[str, list[str]], Exception], what: str) -> Any:
    """The JSON value in ``path``; a missing, unreadable or malformed file raises
    ``error(path, [problem])``, the problem saying how to fix it (``what``: 'a student
    JSON file')."""
    p = Path(path)
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(str(p), [f"file not found; pass the path of {what}"]) from None
    except json.JSONDecodeError as exc:
        problem = f"not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        raise error(str(p), [problem]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(str(p), [f"cannot read: {exc}"]) from None


def json_path(parts: Iterable[Any]) -> str:
    """``$.courses[3].units`` from a sequence of keys and indexes."""
    out = "$"
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


_TYPE_NAMES = {
    "string": "a string",
    "object": "an object",
    "null": "null",
    "number": "a number",
    "integer": "an integer",
    "array": "a list",
    "boolean": "true or false",
}


def _types(names: Iterable[str]) -> str:
    words = [_TYPE_NAMES.get(n, n) for n in dict.fromkeys(names)]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _describe(err: SchemaError) -> str:
    v = err.validator
    if v == "type":
        expected = err.validator_value
        names = expected if isinstance(expected, list) else [expected]
        return f"expected {_types(names)}, got {_short(err.instance)}"
    if v == "required":
        missing = [p for p in err.validator_value if p not in err.instance]
        return f"missing required field {missing[0]!r}"
    if v == "additionalProperties":
        allowed = sorted(err.schema.get("properties", {}))
        extra = sorted(set(err.instance) - set(allowed))
        return f"unknown field {extra[0]!r}; allowed fields: {', '.join(allowed)}"
    if v in ("enum", "const"):
        options = err.validator_value if v == "enum" else [err.validator_value]
        return f"expected one of {', '.join(map(repr, options))}, got {_short(err.instance)}"
    if v == "pattern":
        return f"expected text matching {err.validator_value!r}, got {_short(err.instance)}"
    if v in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        op = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}
        return f"expected a number {op[str(v)]} {err.validator_value}, got {_short(err.instance)}"
    if v == "minItems":
        return f"expected at least {err.validator_value} item(s), got {len(err.instance)}"
    if v == "minLength":
        return f"expected non-empty text, got {_short(err.instance)}"
    if v in ("anyOf", "oneOf"):
        leaf = _leaf(err)
        if leaf is not err:
            return _describe(leaf)
        types = [str(e.validator_value) for e in err.context if e.validator == "type"]
        if types:
            return f"expected {_types(types)}, got {_short(err.instance)}"
        return f"does not match any allowed form, got {_short(err.instance)}"
    return f"{err.message}"


def _discriminated(err: SchemaError) -> SchemaError | None:
    """For a tagged union, the error that matters: a bad tag, or the tagged branch's error."""
    disc = err.schema.get("discriminator") if isinstance(err.schema, dict) else None
    if not disc or not isinstance(err.instance, dict):
        return None
    prop = disc["propertyName"]
    mapping: dict[str, str] = disc.get("mapping", {})
    tag = err.instance.get(prop)
    if tag not in mapping:
        return SchemaError(
            f"expected one of {', '.join(map(repr, mapping))}, got {_short(tag)}",
            validator="enum",  # type: ignore[arg-type]
            validator_value=list(mapping),
            instance=tag,
            path=[*err.absolute_path, prop],
        )
    refs = [alt.get("$ref") for alt in err.schema.get("oneOf", err.schema.get("anyOf", []))]
    index = refs.index(mapping[tag]) if mapping[tag] in refs else -1
    branch = [e for e in err.context if e.schema_path and e.schema_path[0] == index]
    return jsonschema.exceptions.best_match(branch) if branch else None


def _leaf(err: SchemaError) -> SchemaError:
    """Descend through unions to the error a person should read."""
    for _ in range(50):
        if err.validator not in ("anyOf", "oneOf"):
            return err
        sub = _discriminated(err)
        if sub is None and err.context:
            sub = _deepest(err)
        if sub is None:
            return err
        err = sub
    return err


def _deepest(err: SchemaError) -> SchemaError | None:
    """Among a plain union's branches, the error from the branch that got furthest."""
    level = len(err.absolute_path)
    shape_errors = [
        e for e in err.context if not (e.validator == "type" and len(e.absolute_path) == level)
    ]
    if not shape_errors:
        return None  # only type mismatches: described by the union itself
    depth = max(len(e.absolute_path) for e in shape_errors)
    return jsonschema.exceptions.best_match(
        [e for e in shape_errors if len(e.absolute_path) == depth]
    )


def _error_path(err: SchemaError) -> list[Any]:
    return list(_leaf(err).absolute_path)


def schema_problems(raw: Any, schema: dict[str, Any]) -> list[str]:
    """One readable line per way ``raw`` breaks ``schema``, in JSON-path order."""
    validator = jsonschema.Draft202012Validator(schema)
    problems = []
    for err in sorted(validator.iter_errors(raw), key=lambda e: [str(p) for p in e.absolute_path]):
        problems.append(f"{json_path(_error_path(err))}: {_describe(err)}")
    return problems


def pydantic_problems(exc: ValidationError) -> list[str]:
    """One readable line per error of a model validation, in the same form."""
    out = []
    for err in exc.errors():
        loc = [x for x in err["loc"] if not (isinstance(x, str) and "[" in x)]
        msg = err["msg"].splitlines()[0]
        if msg.startswith("Value error, "):
            msg = msg[len("Value error, ") :]
        out.append(f"{json_path(loc)}: {msg} (got {_short(err.get('input'))})")
    return out

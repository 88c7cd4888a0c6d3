"""Schema validation of raw catalog data, reported as problems a person can act on.

``schema_problems`` checks JSON against a JSON Schema and turns each error into one line:
the JSON path, the offending value and what was expected (for a union, the error of the
branch the data was meant for, not a list of every branch). ``pydantic_problems`` does the
same for the model-level checks that a JSON Schema cannot express. A missing field is named
by its own path with what to add, never by its parent's whole value; a term code that does
not match its pattern says what one is and suggests the code meant, a course code what is
wrong with it (empty, a control character, a space at an end).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from agents.catalog.codes import COURSE_CODE_PATTERN, code_problem
from agents.catalog.limits import loads as bounded_loads
from agents.catalog.limits import not_utf8, size_problem, unicode_problem
from agents.catalog.terms import TERM_CODE_PATTERN, active_calendar, readable_term
from agents.errors import TermError

if TYPE_CHECKING:  # jsonschema loads when something is validated, not with the catalog
    from jsonschema.exceptions import ValidationError as SchemaError


def read_json(path: str | Path, error: Callable[[str, list[str]], Exception], what: str) -> Any:
    """The JSON value in ``path``; a missing, unreadable or malformed file raises
    ``error(path, [problem])``, the problem saying how to fix it (``what``: 'a student
    JSON file')."""
    p = Path(path)
    too_big = size_problem(p, "record_bytes", f"is this {what}?")
    if too_big is not None:
        raise error(str(p), [too_big])
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise error(str(p), [f"file not found; pass the path of {what}"]) from None
    except OSError as exc:
        raise error(str(p), [f"cannot read: {exc}"]) from None
    try:
        value = bounded_loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        line, problem = not_utf8(data, exc)
        raise error(str(p), [f"line {line}: {problem}; is this {what}?"]) from None
    except json.JSONDecodeError as exc:
        problem = f"not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        raise error(str(p), [problem]) from None
    except ValueError as exc:  # nested too deeply, an integer too long
        raise error(str(p), [str(exc)]) from None
    bad = unicode_problem(value)
    if bad is not None:
        raise error(str(p), [bad])
    return value


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
        name = _missing_name(err)
        doc = err.schema.get("properties", {}).get(name, {}).get("description")
        return missing_problem(name, doc)
    if v == "additionalProperties":
        allowed = sorted(err.schema.get("properties", {}))
        extra = sorted(set(err.instance) - set(allowed))
        return f"unknown field {extra[0]!r}; allowed fields: {', '.join(allowed)}"
    if v in ("enum", "const"):
        options = err.validator_value if v == "enum" else [err.validator_value]
        return f"expected one of {', '.join(map(repr, options))}, got {_short(err.instance)}"
    if v == "pattern":
        return pattern_problem(err.instance, str(err.validator_value))
    if v in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        op = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}
        return f"expected a number {op[str(v)]} {err.validator_value}, got {_short(err.instance)}"
    if v == "minItems":
        return f"expected at least {err.validator_value} item(s), got {len(err.instance)}"
    if v == "minLength":
        return f"expected non-empty text, got {_short(err.instance)}"
    if v in ("maxLength", "maxItems"):
        return too_long(len(err.instance), err.validator_value, v == "maxItems")
    if v in ("anyOf", "oneOf"):
        leaf = _leaf(err)
        if leaf is not err:
            return _describe(leaf)
        types = [str(e.validator_value) for e in err.context if e.validator == "type"]
        if types:
            return f"expected {_types(types)}, got {_short(err.instance)}"
        return f"does not match any allowed form, got {_short(err.instance)}"
    # jsonschema's own message quotes the whole instance; quote it short
    return err.message.replace(repr(err.instance), _short(err.instance))


def _missing_name(err: SchemaError) -> str:
    """The property a ``required`` error is about (its message is "'name' is a required
    property"; the first missing one when the message cannot be read)."""
    missing = [p for p in err.validator_value if p not in err.instance]
    said = err.message.partition(" is a required property")[0]
    return next((p for p in missing if repr(p) == said), missing[0])


def _discriminated(err: SchemaError) -> SchemaError | None:
    """For a tagged union, the error that matters: a bad tag, or the tagged branch's error."""
    from jsonschema.exceptions import ValidationError as SchemaError
    from jsonschema.exceptions import best_match

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
    return best_match(branch) if branch else None


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
    from jsonschema.exceptions import best_match

    level = len(err.absolute_path)
    shape_errors = [
        e for e in err.context if not (e.validator == "type" and len(e.absolute_path) == level)
    ]
    if not shape_errors:
        return None  # only type mismatches: described by the union itself
    depth = max(len(e.absolute_path) for e in shape_errors)
    return best_match([e for e in shape_errors if len(e.absolute_path) == depth])


def _error_path(err: SchemaError) -> list[Any]:
    leaf = _leaf(err)
    path = list(leaf.absolute_path)
    # a missing field is named by its own path, never by the parent (and its whole value)
    return [*path, _missing_name(leaf)] if leaf.validator == "required" else path


def schema_problems(raw: Any, schema: dict[str, Any]) -> list[str]:
    """One readable line per way ``raw`` breaks ``schema``, in JSON-path order."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    problems = []
    for err in sorted(validator.iter_errors(raw), key=lambda e: [str(p) for p in e.absolute_path]):
        if _readable_term(err):
            continue  # 'Fall 2026': the model reads it as F2026 (agents.catalog.terms.TermCode)
        problem = f"{json_path(_error_path(err))}: {_describe(_leaf(err))}"
        if problem not in problems:
            problems.append(problem)
    return problems


def _readable_term(err: SchemaError) -> bool:
    """A term written in words where the schema asks for a code, which the models accept."""
    err = _leaf(err)  # an optional term is a union with null
    if err.validator != "pattern" or err.validator_value != TERM_CODE_PATTERN:
        return False
    return re.match(TERM_CODE_PATTERN, str(readable_term(err.instance))) is not None


def pydantic_problems(exc: ValidationError) -> list[str]:
    """One readable line per error of a model validation, in the same form."""
    out = []
    for err in exc.errors():
        loc = [x for x in err["loc"] if not (isinstance(x, str) and "[" in x)]
        out.append(pydantic_problem(err, json_path(loc)))
    return out


def pydantic_problem(err: ErrorDetails, path: str, schema: dict[str, Any] | None = None) -> str:
    """One pydantic error as ``path: what is wrong (got value)``: a missing field says what
    to add (from its description in ``schema``, the model's JSON Schema) and never quotes
    the parent; a term or course code that does not match says what one looks like."""
    if err["type"] == "missing":
        name = str(err["loc"][-1])
        return f"{path}: {missing_problem(name, _description(schema, err['loc']))}"
    value = err.get("input")
    if err["type"] == "extra_forbidden":
        return f"{path}: unknown field - remove it or correct its spelling (got {_short(value)})"
    if err["type"] == "string_pattern_mismatch":
        return f"{path}: {pattern_problem(value, str((err.get('ctx') or {}).get('pattern')))}"
    if err["type"] in ("string_too_long", "too_long"):
        limit = (err.get("ctx") or {}).get("max_length")
        if isinstance(limit, int) and isinstance(value, str | list | dict):
            return f"{path}: {too_long(len(value), limit, err['type'] == 'too_long')}"
    msg = err["msg"].splitlines()[0]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    return f"{path}: {msg} (got {_short(value)})"


def too_long(count: int, limit: int, items: bool) -> str:
    """'201 characters, over the limit of 200 characters; shorten it' - for a text or, with
    ``items``, a list (the limits are ``agents.catalog.limits.LIMITS``)."""
    unit, fix = ("entries", "shorten the list") if items else ("characters", "shorten it")
    return f"{count:,} {unit}, over the limit of {limit:,} {unit}; {fix}"


def missing_problem(name: str, description: str | None) -> str:
    """'required field missing; add 'name' (preferred name)' - the description's first
    clause says what the field holds."""
    doc = re.split(r"; |\. |\.$", description.strip())[0] if description else ""
    if doc[:1].isupper() and not doc[1:2].isupper():
        doc = doc[0].lower() + doc[1:]
    return f"required field missing; add {name!r}" + (f" ({doc})" if doc else "")


def pattern_problem(value: Any, pattern: str) -> str:
    """Why ``value`` does not match ``pattern``: for a term or course code, what one is
    and the code meant when the text reads as one; else the pattern itself."""
    if pattern == TERM_CODE_PATTERN:
        return term_code_problem(value)
    if pattern == COURSE_CODE_PATTERN:
        why = code_problem(value) if isinstance(value, str) else None
        return f"{_short(value)} is not a course code: it {why or 'is not text'}"
    return f"expected text matching {pattern!r}, got {_short(value)}"


def term_code_problem(value: Any) -> str:
    """'Fall 2024' is not a term code; write F2024 - read with the calendar in use (the
    default semester calendar when no catalog is bound, as when a request is checked)."""
    cal = active_calendar()
    try:
        code = cal.parse(value).code if isinstance(value, str) else None
    except TermError:
        code = None
    if code is not None and code != value:
        return f"{_short(value)} is not a term code; write {code}"
    kinds = ", ".join(f"{k.code} {k.name}" for k in cal.terms)
    return (
        f"{_short(value)} is not a term code; write a kind and a 4-digit year such as "
        f"{cal.examples()} ({cal.system} kinds: {kinds})"
    )


def _description(schema: dict[str, Any] | None, loc: Iterable[int | str]) -> str | None:
    """The description of the field at pydantic location ``loc`` in a model's JSON Schema
    (keys it does not have, such as pydantic's union tags, are passed over)."""
    if schema is None:
        return None
    node: dict[str, Any] = schema
    keys = list(loc)
    for i, key in enumerate(keys):
        sub = _child(node, schema, key)
        if sub is not None:
            node = sub
        elif isinstance(key, int) or i == len(keys) - 1:
            return None
    doc = node.get("description") or _resolve(node, schema).get("description")
    return doc if isinstance(doc, str) else None


def _resolve(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return dict(root.get("$defs", {}).get(ref[len("#/$defs/") :], {}))
    return node


def _child(node: dict[str, Any], root: dict[str, Any], key: int | str) -> dict[str, Any] | None:
    node = _resolve(node, root)
    if isinstance(key, int) and isinstance(node.get("items"), dict):
        return dict(node["items"])
    if isinstance(key, str) and key in node.get("properties", {}):
        return dict(node["properties"][key])
    for alt in (*node.get("anyOf", ()), *node.get("oneOf", ())):
        sub = _child(alt, root, key)
        if sub is not None:
            return sub
    return None

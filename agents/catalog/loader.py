"""Loading a catalog file: JSON Schema first, then typed models, then cross-references.

Every problem names the file, the JSON path, the offending value and what was expected, so
a registrar converting a real catalog can fix it without reading code. Problems are
collected, not raised one at a time.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import structlog
from jsonschema.exceptions import ValidationError as SchemaError
from pydantic import ValidationError

from agents.catalog.model import (
    AllOfRequirement,
    Catalog,
    CourseRequirement,
    CourseSetRequirement,
    Document,
    NOfRequirement,
    RequirementNode,
    pattern_matches,
)
from agents.catalog.prereq import (
    CourseCond,
    ProgramCond,
    courses_in,
    iter_prereq,
)
from agents.catalog.schemas import model_schema, published_schema, write_schema_file
from agents.catalog.terms import Term
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
    validator = jsonschema.Draft202012Validator(schema)
    problems = []
    for err in sorted(validator.iter_errors(raw), key=lambda e: [str(p) for p in e.absolute_path]):
        problems.append(f"{json_path(_error_path(err))}: {_describe(err)}")
    return problems


def _pydantic_problems(exc: ValidationError) -> list[str]:
    out = []
    for err in exc.errors():
        loc = [x for x in err["loc"] if not (isinstance(x, str) and "[" in x)]
        msg = err["msg"].splitlines()[0]
        if msg.startswith("Value error, "):
            msg = msg[len("Value error, ") :]
        out.append(f"{json_path(loc)}: {msg} (got {_short(err.get('input'))})")
    return out


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
        raise CatalogSchemaError(source, _pydantic_problems(exc)) from None
    refs = reference_problems(catalog)
    if refs:
        raise CatalogReferenceError(source, refs)
    log.debug("catalog.loaded", source=source, courses=len(catalog.courses))
    return catalog


def catalog_fingerprint(path: str | Path | None = None) -> str:
    """sha256 of the catalog file's bytes; a changed catalog gives a new fingerprint."""
    p = Path(path) if path is not None else default_catalog_path()
    return hashlib.sha256(p.read_bytes()).hexdigest()


# --------------------------------------------------------------------------- references


def _dupes(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        if item in seen and item not in out:
            out.append(item)
        seen.add(item)
    return out


def _walk_req(node: RequirementNode, path: str) -> Iterable[tuple[RequirementNode, str]]:
    yield node, path
    if isinstance(node, AllOfRequirement | NOfRequirement):
        for i, c in enumerate(node.children):
            yield from _walk_req(c, f"{path}.children[{i}]")


def reference_problems(cat: Catalog) -> list[str]:
    """Every reference that does not resolve, every duplicate id, every prerequisite cycle."""
    problems: list[str] = []
    codes = cat.course_by_code
    grades = cat.grade_by_symbol
    programs = cat.program_by_code

    for kind, items in (
        ("course code", [c.code for c in cat.courses]),
        ("program code", [p.code for p in cat.programs]),
        ("policy rule id", [r.id for r in cat.policies]),
        ("document id", [d.id for d in cat.documents]),
    ):
        for d in _dupes(items):
            problems.append(f"duplicate {kind} {d!r}")

    def grade_ok(grade: str | None, where: str) -> None:
        if grade is not None and grade not in grades:
            problems.append(
                f"{where}: unknown grade {grade!r}; the grade scale has "
                f"{', '.join(g.grade for g in cat.grade_scale)}"
            )

    for i, c in enumerate(cat.courses):
        at = f"$.courses[{i}] ({c.code})"
        for field in ("prerequisites", "corequisites"):
            for n in iter_prereq(getattr(c, field)):
                if isinstance(n, CourseCond):
                    if n.course not in codes:
                        problems.append(f"{at}.{field}: unknown course {n.course!r}")
                    elif n.course == c.code:
                        problems.append(f"{at}.{field}: the course requires itself")
                    grade_ok(n.min_grade, f"{at}.{field}")
                elif isinstance(n, ProgramCond) and n.program not in programs:
                    problems.append(f"{at}.{field}: unknown program {n.program!r}")
        for a in c.antirequisites:
            if a not in codes:
                problems.append(f"{at}.antirequisites: unknown course {a!r}")
        for d in _dupes(f"{s.term}/{s.id}" for s in c.sections):
            problems.append(f"{at}.sections: duplicate section {d!r}")
        for j, s in enumerate(c.sections):
            if not c.offered.offered_in(Term.parse(s.term)):
                problems.append(
                    f"{at}.sections[{j}]: section {s.id!r} is in {s.term}, a term the course "
                    f"is not offered (offered: {', '.join(c.offered.terms)}, "
                    f"{c.offered.years} year)"
                )
            for k, m in enumerate(s.meetings):
                if m.end <= m.start:
                    problems.append(
                        f"{at}.sections[{j}].meetings[{k}]: ends at {m.end} before it starts "
                        f"at {m.start}"
                    )

    for i, prog in enumerate(cat.programs):
        at = f"$.programs[{i}] ({prog.code})"
        ids = []
        for node, path in _walk_req(prog.requirement, f"{at}.requirement"):
            ids.append(node.id)
            if isinstance(node, CourseRequirement):
                if node.course not in codes:
                    problems.append(f"{path}: unknown course {node.course!r}")
                grade_ok(node.min_grade, path)
            elif isinstance(node, NOfRequirement) and node.n > len(node.children):
                problems.append(
                    f"{path}: n_of needs {node.n} of only {len(node.children)} children"
                )
            elif isinstance(node, CourseSetRequirement):
                for code in [*node.courses, *node.exclude]:
                    if code not in codes:
                        problems.append(f"{path}: unknown course {code!r}")
                grade_ok(node.min_grade, path)
                if node.min_courses is None and node.min_units is None:
                    problems.append(f"{path}: course_set needs min_courses or min_units")
                for pat in node.patterns:
                    if not any(pattern_matches(pat, c) for c in codes):
                        problems.append(f"{path}: pattern {pat!r} matches no course")
                for attr in node.attributes:
                    if not any(attr in c.attributes for c in cat.courses):
                        problems.append(f"{path}: attribute {attr!r} is on no course")
        for d in _dupes(ids):
            problems.append(f"{at}.requirement: duplicate requirement id {d!r}")
        for j, lim in enumerate(prog.sharing):
            if lim.with_program is not None and lim.with_program not in programs:
                problems.append(f"{at}.sharing[{j}]: unknown program {lim.with_program!r}")
            if lim.rule is not None and lim.rule not in cat.rule_by_id:
                problems.append(f"{at}.sharing[{j}]: unknown policy rule {lim.rule!r}")
        for field in ("eligible_majors", "excluded_majors"):
            for code in getattr(prog, field):
                if code not in programs:
                    problems.append(f"{at}.{field}: unknown program {code!r}")
        if prog.document is not None and prog.document not in cat.document_by_id:
            problems.append(f"{at}.document: unknown document {prog.document!r}")

    doc: Document | None  # a policy may cite an unknown document
    for i, doc in enumerate(cat.documents):
        for d in _dupes(s.id for s in doc.sections):
            problems.append(f"$.documents[{i}] ({doc.id}): duplicate section id {d!r}")

    for i, rule in enumerate(cat.policies):
        at = f"$.policies[{i}] ({rule.id})"
        doc = cat.document_by_id.get(rule.citation.document)
        if doc is None:
            problems.append(f"{at}.citation.document: unknown document {rule.citation.document!r}")
        elif not any(s.id == rule.citation.section for s in doc.sections):
            problems.append(
                f"{at}.citation.section: document {doc.id!r} has no section "
                f"{rule.citation.section!r}; it has {', '.join(s.id for s in doc.sections)}"
            )

    problems.extend(_cycle_problems(cat))
    return problems


def _cycle_problems(cat: Catalog) -> list[str]:
    graph = {
        c.code: [p for p in courses_in(c.prerequisites) if p in cat.course_by_code]
        for c in cat.courses
    }
    state: dict[str, int] = {}
    stack: list[str] = []
    found: list[str] = []
    seen_cycles: set[frozenset[str]] = set()

    def visit(code: str) -> None:
        state[code] = 1
        stack.append(code)
        for nxt in graph[code]:
            if state.get(nxt) == 1:
                cycle = [*stack[stack.index(nxt) :], nxt]
                key = frozenset(cycle)
                if key not in seen_cycles:
                    seen_cycles.add(key)
                    found.append("prerequisite cycle: " + " -> ".join(cycle))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[code] = 2

    for code in sorted(graph):
        if code not in state:
            visit(code)
    return found


def write_schema(directory: Path) -> Path:
    """Write the published schema file (used when the models change)."""
    return write_schema_file(directory, SCHEMA_FILE, catalog_schema())


if __name__ == "__main__":  # pragma: no cover - maintenance entry point
    print(write_schema(Path(__file__).resolve().parent.parent / "schemas"))

"""Loading a catalog file: JSON Schema first, then typed models, then cross-references.

Every problem names the file, the JSON path, the offending value and what was expected, so
a registrar converting a real catalog can fix it without reading code. Problems are
collected, not raised one at a time. The readable schema problems come from
``agents.catalog.validation``, the cross-reference checks from ``agents.catalog.crossref``.

A catalog that passed every check once is kept by its fingerprint in
``agents.catalog.cache`` (a later process loads it without validating it again), and in
this process by path, modification time and size.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import resources
from pathlib import Path

import structlog

from agents.catalog.cache import cached_catalog
from agents.catalog.limits import LIMITS, not_utf8
from agents.catalog.model import Catalog
from agents.catalog.parse import (
    SCHEMA_FILE,
    catalog_schema,
    parse_catalog,
    parse_catalog_text,
    published_catalog_schema,
)
from agents.catalog.schemas import write_schema_file
from agents.errors import CatalogError, CatalogSchemaError

log = structlog.get_logger(__name__)

__all__ = [
    "SCHEMA_FILE",
    "catalog_fingerprint",
    "catalog_schema",
    "default_catalog_path",
    "load_catalog",
    "parse_catalog",
    "parse_catalog_text",
    "published_catalog_schema",
    "write_schema",
]


def default_catalog_path() -> Path:
    """The sample catalog shipped with the package."""
    return Path(str(resources.files("agents") / "data" / "catalog.json"))


def load_catalog(path: str | Path | None = None) -> Catalog:
    """Load and fully check a catalog file (the shipped sample when ``path`` is None), or
    build one from a catalog directory in the authoring layout."""
    p = Path(path) if path is not None else default_catalog_path()
    if p.is_dir():
        return _build_cached(str(p.resolve()), catalog_fingerprint(p))
    try:
        stat = p.stat()
    except FileNotFoundError:
        raise CatalogError(
            str(p), ["file not found; pass the path of a catalog JSON file"]
        ) from None
    limit = LIMITS["catalog_bytes"]
    if stat.st_size > limit.value:
        raise CatalogError(str(p), [limit.problem(stat.st_size, "is this a catalog file?")])
    return _load_cached(str(p.resolve()), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=8)
def _build_cached(path: str, fingerprint: str) -> Catalog:
    def build() -> Catalog:
        # The authoring layout (YAML, CSV, Markdown readers) loads only on a cache miss.
        from agents.catalog.authoring import build_catalog

        return build_catalog(path)[0]

    return cached_catalog(fingerprint, build, source=path)


@lru_cache(maxsize=8)
def _load_cached(path: str, _mtime: int, _size: int) -> Catalog:
    data = Path(path).read_bytes()
    return cached_catalog(
        hashlib.sha256(data).hexdigest(),
        lambda: parse_catalog_text(_utf8(data, path), source=path),
        source=path,
    )


def _utf8(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, what = not_utf8(data, exc)
        raise CatalogSchemaError(
            path,
            [f"line {line}: {what}; a catalog file is JSON in UTF-8 - is this a catalog file?"],
        ) from None


def catalog_fingerprint(path: str | Path | None = None) -> str:
    """sha256 of the catalog file's bytes (of a catalog directory: of every file's relative
    path and bytes); a changed catalog gives a new fingerprint."""
    p = Path(path) if path is not None else default_catalog_path()
    if not p.is_dir():
        stat = p.stat()
        return _file_fingerprint(str(p.resolve()), stat.st_mtime_ns, stat.st_size)
    h = hashlib.sha256()
    for f in sorted(x for x in p.rglob("*") if x.is_file() and _layout_file(x, p)):
        h.update(f.relative_to(p).as_posix().encode("utf-8") + b"\0")
        h.update(_digest(f))
    return h.hexdigest()


@lru_cache(maxsize=8)
def _file_fingerprint(path: str, _mtime: int, _size: int) -> str:
    return _digest(Path(path)).hex()


def _digest(path: Path) -> bytes:
    """sha256 of a file, read in chunks: an oversized file is refused by its reader, not
    held in memory here first."""
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").digest()


_LAYOUT_FILES = {"institution.yaml", "courses.csv", "sections.csv", "policies.yaml"}
_LAYOUT_FOLDERS = {"programs", "program-versions", "documents"}


def _layout_file(path: Path, root: Path) -> bool:
    """Whether ``path`` is one of the files a catalog directory is built from (other files
    beside them, such as sample students, do not change the catalog)."""
    parts = path.relative_to(root).parts
    if any(part.startswith(".") for part in parts):
        return False
    return (len(parts) == 1 and parts[0] in _LAYOUT_FILES) or (
        len(parts) == 2 and parts[0] in _LAYOUT_FOLDERS
    )


def write_schema(directory: Path) -> Path:
    """Write the published schema file (used when the models change)."""
    return write_schema_file(directory, SCHEMA_FILE, catalog_schema())


if __name__ == "__main__":  # pragma: no cover - maintenance entry point
    print(write_schema(Path(__file__).resolve().parent.parent / "schemas"))

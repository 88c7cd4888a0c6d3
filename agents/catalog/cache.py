"""A cache of checked catalogs, so a process skips the JSON Schema validation, the model
building and the cross-reference checks of a catalog it has seen before.

A checked catalog is pickled to ``<cache dir>/<key>.pickle``, where the key is the sha256
of the catalog's fingerprint (its file's bytes, or every input file of a catalog
directory) and of the code that reads catalogs (every source file of ``agents.catalog``,
the published catalog schema, the Pydantic and Python versions): a changed catalog or a
changed reader never meets an old entry.

The cache directory is ``$ADVISE_CATALOG_CACHE_DIR``, else ``catalogs`` in the platform's
user cache directory for ``advising-pipeline`` (``platformdirs.user_cache_dir``: on Linux
``$XDG_CACHE_HOME/advising-pipeline``, else ``~/.cache/advising-pipeline``; on macOS
``~/Library/Caches/advising-pipeline``; on Windows under ``%LOCALAPPDATA%``) - never the
catalog's own directory: a registrars' shared folder or the installed package must not
receive files that load as code. For the same reason an entry is read only when it is a
regular file this user owns that nobody else may write, and its payload's sha256 (in the
header line) matches before it is unpickled. A missing, corrupt, stale or untrusted entry
is ignored and rebuilt; a directory that cannot be written only means no cache. Entries
are written to a temporary file and renamed into place, so a reader never sees half of
one; at most ``KEEP`` entries are kept.

An entry also keeps what is costly to derive from a catalog and depends on nothing else:
every term's always-clashing course pairs (``agents.catalog.clashes``: a sweep over every
section, about a second a term on a 3,000-course catalog), computed when the entry is
written. A process that loads the catalog from its cache starts with them.

``ADVISE_CATALOG_CACHE=off`` (or ``0``, ``false``, ``no``) turns the cache off.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import sys
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import platformdirs
import pydantic
import structlog
from pydantic import BaseModel

from agents.catalog.base import cached_names
from agents.catalog.clashes import PACKED, packed
from agents.catalog.model import Catalog
from agents.errors import CatalogError, StorageError
from agents.files import atomic_write

log = structlog.get_logger(__name__)

ENABLE_ENV = "ADVISE_CATALOG_CACHE"
DIR_ENV = "ADVISE_CATALOG_CACHE_DIR"
APP_NAME = "advising-pipeline"  # the platform cache directory's name for this project
FORMAT = b"advise-catalog-cache 2"
KEEP = 16  # entries kept; older ones are removed when a new one is written
_OFF = {"0", "off", "false", "no"}
_ON = {"", "1", "on", "true", "yes"}
_PACKAGE = Path(__file__).resolve().parent
_SCHEMA = _PACKAGE.parent / "schemas" / "catalog.schema.json"


def cache_enabled(env: Mapping[str, str] | None = None) -> bool:
    """Whether ``ADVISE_CATALOG_CACHE`` allows the cache (it does unless turned off)."""
    value = (env if env is not None else os.environ).get(ENABLE_ENV, "").strip().lower()
    if value in _OFF:
        return False
    if value in _ON:
        return True
    raise CatalogError(
        ENABLE_ENV,
        [f"unknown value {value!r}; set it to 'off' (or 0) to turn the catalog cache off, "
         "or 'on' (or 1, or leave it unset) to use it"],
    )  # fmt: skip


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where checked catalogs are kept: ``$ADVISE_CATALOG_CACHE_DIR`` (read from ``env``,
    default the process environment), else ``catalogs`` in the platform's user cache
    directory (``platformdirs``, which reads the process environment: ``XDG_CACHE_HOME``)."""
    env = env if env is not None else os.environ
    if env.get(DIR_ENV):
        return Path(env[DIR_ENV])
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)) / "catalogs"


@cache
def code_version() -> str:
    """sha256 of what decides how a catalog file becomes a ``Catalog``: the source of
    ``agents.catalog`` (models, parsing, the directory layout's build), the published
    schema, and the Pydantic and Python versions (pickles depend on both)."""
    h = hashlib.sha256(FORMAT)
    h.update(f"{pydantic.VERSION} {sys.version_info[:2]}".encode())
    files = sorted(p for p in _PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)
    named = [(p.relative_to(_PACKAGE).as_posix(), p) for p in files]
    for name, path in [*named, ("<published schema>", _SCHEMA)]:
        try:
            data = path.read_bytes()
        except OSError:
            data = b"<missing>"
        h.update(name.encode() + b"\0")
        h.update(hashlib.sha256(data).digest())
    return h.hexdigest()


def cache_key(fingerprint: str) -> str:
    """The entry's name for a catalog fingerprint under the current code."""
    return hashlib.sha256(f"{fingerprint}\0{code_version()}".encode()).hexdigest()


def cached_catalog(fingerprint: str, build: Callable[[], Catalog], *, source: str) -> Catalog:
    """The catalog whose fingerprint is ``fingerprint``: from the cache when an entry for
    it (and the current code) is there and sound, else ``build()`` (which checks it and
    raises on any problem - a bad catalog is never cached), stored for next time."""
    if not cache_enabled():
        return build()
    path = cache_dir() / f"{cache_key(fingerprint)}.pickle"
    catalog = read_entry(path)
    if catalog is not None:
        log.debug("catalog.cache_hit", source=source, entry=str(path))
        return catalog
    catalog = build()
    write_entry(path, catalog)
    return catalog


def read_entry(path: Path) -> Catalog | None:
    """The catalog in cache entry ``path``, or None if it is missing or cannot be trusted
    (each reason is logged at debug level; the caller rebuilds and overwrites it)."""
    try:
        with path.open("rb") as f:
            info = os.fstat(f.fileno())
            header = f.readline(200)
            payload = f.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return _ignored(path, f"unreadable: {exc}")
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
        return _ignored(path, "not a regular file owned by this user")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return _ignored(path, "writable by other users")
    parts = header.rstrip(b"\n").rsplit(b" ", 1)
    if len(parts) != 2 or parts[0] != FORMAT:
        return _ignored(path, "not a catalog cache entry")
    if hashlib.sha256(payload).hexdigest().encode() != parts[1]:
        return _ignored(path, "checksum mismatch (truncated or damaged)")
    try:
        entry = pickle.loads(payload)
    except Exception as exc:  # a damaged pickle may raise anything; it is only a cache
        return _ignored(path, f"cannot be unpickled: {type(exc).__name__}: {exc}")
    catalog, clashes = entry if isinstance(entry, tuple) and len(entry) == 2 else (entry, None)
    if not isinstance(catalog, Catalog):
        return _ignored(path, f"holds a {type(catalog).__name__}, not a Catalog")
    if not isinstance(clashes, dict):
        return _ignored(path, "holds no clash table")
    catalog.derived[PACKED] = clashes
    return catalog


def _ignored(path: Path, reason: str) -> Catalog | None:
    """No catalog (the entry is rebuilt), with why."""
    log.debug("catalog.cache_ignored", entry=str(path), reason=reason)
    return None


def write_entry(path: Path, catalog: Catalog) -> bool:
    """Store ``catalog`` at ``path`` atomically (temp file, then ``os.replace``); False
    when the directory cannot be written (the cache is then simply not used)."""
    clashes = packed(catalog)
    entry = (_without_caches(catalog), clashes)
    payload = pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL)
    catalog.derived[PACKED] = clashes  # stripped with the other caches just above
    header = FORMAT + b" " + hashlib.sha256(payload).hexdigest().encode() + b"\n"
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        atomic_write(path, header + payload, mode=0o600)
    except (OSError, StorageError) as exc:
        log.debug("catalog.cache_unwritable", entry=str(path), error=str(exc))
        return False
    _prune(path.parent, keep=KEEP)
    return True


def _prune(directory: Path, keep: int) -> None:
    """Remove all but the ``keep`` most recently written entries (best effort)."""
    try:
        entries = sorted(
            directory.glob("*.pickle"), key=lambda p: p.stat().st_mtime_ns, reverse=True
        )
        for old in entries[keep:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass


def _without_caches(model: BaseModel) -> BaseModel:
    """``model`` with the values its ``cached_property`` indexes and memos hold dropped,
    here and in every nested model: they are per-process state (some are keyed on
    ``id()``), recomputed on first use after loading."""
    seen: set[int] = set()

    def strip(value: Any) -> None:
        if isinstance(value, BaseModel):
            if id(value) in seen:
                return
            seen.add(id(value))
            for name in cached_names(type(value)):
                value.__dict__.pop(name, None)
            for field in type(value).model_fields:
                strip(getattr(value, field))
        elif isinstance(value, list | tuple | set | frozenset):
            for item in value:
                strip(item)
        elif isinstance(value, dict):
            for item in value.values():
                strip(item)

    strip(model)
    return model

"""The workspace's catalogs as the console's admin sees them: which there are, what
``advise catalog validate`` says of each, the catalogs an admin uploaded, and the one new
requests from ``/new`` use.

Uploaded catalogs are kept in ``<state_dir>/.console/catalogs/<name>.json``, beside the
console's other files (accounts, access log, new requests): one directory to back up, and
never read by a command that walks the checkpoints. A name is checked against
``SAFE_NAME`` and refused otherwise, so an upload never names a path; a stored catalog is
never replaced (requests made with it record its path).

The catalog chosen for new requests is kept in ``<state_dir>/.console/settings.json``
(the office's hand-edited ``advise.toml`` is left alone); when none is chosen, new
requests use the workspace's catalog (``--catalog``, ``ADVISE_CATALOG``, advise.toml)."""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog

from agents.catalog.limits import LIMITS
from agents.errors import AdvisingError, CatalogError
from agents.files import atomic_write, ensure_dir
from pipeline.console.users import console_dir
from pipeline.workspace import BUNDLED, describe_source, path_of, source_of

log = structlog.get_logger(__name__)

CATALOGS_DIR = "catalogs"
SETTINGS_NAME = "settings.json"
SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
MAX_BYTES = int(LIMITS["catalog_bytes"].value)


def catalog_key(source: str) -> str:
    """A catalog's name in URLs: made from its source, never a path."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:12]


@dataclass
class Checked:
    """One catalog with what ``advise catalog validate`` says of it."""

    source: str
    name: str
    key: str
    schema_version: int | None = None
    counts: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    warnings: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def validate(source: str, shown_as: str | None = None) -> Checked:
    """Load and check a catalog as ``advise catalog validate`` does (the loader's problems
    are errors; the catalog checks' findings are warnings). ``shown_as`` replaces the
    file's path in messages (an upload's own name, not our temporary file)."""
    from agents.catalog import load_catalog
    from agents.catalog.checks import catalog_warnings, located
    from agents.toolbox import Toolbox
    from pipeline.cli_catalog import catalog_counts

    name = shown_as or describe_source(source)
    checked = Checked(source=source, name=name, key=catalog_key(source))
    path = path_of(source)
    try:
        cat = load_catalog(path)
    except CatalogError as exc:
        checked.errors = [_shown(p, path, shown_as) for p in exc.problems]
        return checked
    except (AdvisingError, OSError) as exc:
        checked.errors = [_shown(str(exc), path, shown_as)]
        return checked
    found = catalog_warnings(cat, Toolbox(catalog=cat).horizon_terms)
    where = [w.where() for w in found]
    if found and path is not None and Path(path).is_dir():
        where = located(path, found)
    checked.schema_version = cat.schema_version
    checked.counts = catalog_counts(cat)
    checked.warnings = [w.as_json(at) for w, at in zip(found, where, strict=True)]
    return checked


def _shown(text: str, path: str | None, shown_as: str | None) -> str:
    return text.replace(path, shown_as) if path and shown_as else text


class CatalogShelf:
    """The console's uploaded catalogs and its choice for new requests."""

    def __init__(self, state_dir: Path, configured: str | None) -> None:
        self.dir = console_dir(state_dir) / CATALOGS_DIR
        self.settings_path = console_dir(state_dir) / SETTINGS_NAME
        self.configured = source_of(configured) if configured is not None else None

    def uploaded(self) -> dict[str, str]:
        """Stored name -> source of every uploaded catalog."""
        if not self.dir.is_dir():
            return {}
        found = (p for p in sorted(self.dir.glob("*.json")) if SAFE_NAME.match(p.stem))
        return {p.stem: source_of(p) for p in found}

    def sources(self, used: list[str]) -> list[str]:
        """The bundled sample, the workspace's configured catalog, those the requests were
        made with (``used``), the uploaded ones and the chosen one."""
        chosen = self.chosen()
        extra = [s for s in (self.configured, chosen) if s is not None]
        return sorted({BUNDLED, *used, *extra, *self.uploaded().values()})

    def chosen(self) -> str | None:
        """The catalog an admin chose for new requests (its source), or None."""
        try:
            value = json.loads(self.settings_path.read_text(encoding="utf-8")).get("catalog")
        except (OSError, ValueError, AttributeError):
            return None
        return value if isinstance(value, str) and value else None

    def for_new_requests(self) -> str | None:
        """The catalog path (None: the bundled sample) a request from /new runs with: the
        admin's choice, else the workspace's configured catalog."""
        source = self.chosen() or self.configured
        return None if source is None else path_of(source)

    def choose(self, source: str | None) -> None:
        ensure_dir(self.settings_path.parent)
        data = {"catalog": source} if source is not None else {}
        atomic_write(self.settings_path, (json.dumps(data, indent=2) + "\n").encode("utf-8"))
        log.info("console.catalog_chosen", source=source)

    def store(self, name: str, filename: str, data: bytes) -> Checked:
        """Check an uploaded catalog file as ``advise catalog validate`` does and, only when
        it has no errors, keep it as ``<name>.json`` (written atomically). The result names
        the upload, never our files; ``ValueError`` for a name or file refused outright."""
        if not SAFE_NAME.match(name):
            raise ValueError(
                f"catalog name {name!r}: use letters, digits, '-' and '_' only (at most 64, "
                "starting with a letter or digit), e.g. 'catalog-2027'"
            )
        if len(data) > MAX_BYTES:
            raise ValueError(f"catalog file {filename!r} is larger than {MAX_BYTES} bytes")
        target = self.dir / f"{name}.json"
        if target.exists():
            raise FileExistsError(
                f"a catalog named {name!r} is already stored (requests made with it keep its "
                "path); upload it under another name"
            )
        with tempfile.TemporaryDirectory(prefix="advise-catalog-") as tmp:
            path = Path(tmp) / "catalog.json"
            path.write_bytes(data)
            checked = validate(source_of(path), shown_as=f"catalog file {filename!r}")
        if not checked.ok:
            return checked
        ensure_dir(self.dir)
        atomic_write(target, data)
        log.info("console.catalog_stored", name=name, path=str(target))
        return validate(source_of(target))

"""Upgrading catalog files and directories to the current format (``advise catalog
migrate``): the conversions are ``agents.catalog.migrate``'s; this module reads, checks and
writes the files atomically."""

from __future__ import annotations

import json
from pathlib import Path

from agents.catalog.authoring.build import write_json_atomic, write_text_atomic
from agents.catalog.migrate import CURRENT_VERSION, migrate_institution_yaml, migrate_raw
from agents.catalog.parse import parse_catalog
from agents.errors import CatalogError

_ALREADY = f"already at version {CURRENT_VERSION}"


def migrate_catalog(path: str | Path, output: str | Path | None) -> list[str]:
    """Upgrade the catalog file or directory at ``path``; lines saying what was done.
    Raises ``CatalogError`` naming the file and the fix when it cannot."""
    p = Path(path)
    if p.is_dir():
        target = p / "institution.yaml"
        if output is not None:
            raise CatalogError(str(p), ["a directory is upgraded in place; leave out -o"])
        try:
            text, notes = migrate_institution_yaml(target.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise CatalogError(
                str(target), ["file not found; is this a catalog directory?"]
            ) from None
        except ValueError as exc:
            raise CatalogError(str(target), [str(exc)]) from None
        if notes:
            write_text_atomic(target, text)
        return [f"{target}: " + ("; ".join(notes) if notes else _ALREADY)]
    if output is None:
        raise CatalogError(str(p), ["say where to write the upgraded catalog: -o NEW.json"])
    try:
        raw = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CatalogError(str(p), ["file not found; pass a catalog JSON file"]) from None
    except json.JSONDecodeError as exc:
        raise CatalogError(str(p), [f"not valid JSON at line {exc.lineno}: {exc.msg}"]) from None
    if not isinstance(raw, dict):
        raise CatalogError(str(p), ["expected a JSON object (a catalog)"])
    try:
        new, notes = migrate_raw(raw)
    except ValueError as exc:
        raise CatalogError(str(p), [str(exc)]) from None
    parse_catalog(new, source=f"{p} (upgraded)")
    write_json_atomic(Path(output), new)
    return [f"{output}: written from {p}: " + ("; ".join(notes) or _ALREADY)]

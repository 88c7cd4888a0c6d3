"""What the retrieval indexes are built from: the catalog's policy, program and course text
as whoosh documents, and the fingerprint of that content that names an index's directory
(``agents.retrieval.index``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from agents.catalog import Catalog

__all__ = ["INDEX_FORMAT", "course_docs", "index_fingerprint", "policy_docs", "program_docs"]

# Bump when the schemas or what goes into them change: old cached indexes are then ignored.
INDEX_FORMAT = 1


def _index_content(catalog: Catalog) -> dict[str, Any]:
    """Exactly the catalog content the indexes are built from (and fingerprinted by)."""
    return {
        "format": INDEX_FORMAT,
        "documents": [d.model_dump(mode="json") for d in catalog.documents],
        "programs": [
            p.model_dump(
                mode="json", include={"code", "name", "kind", "aliases", "document", "catalog_year"}
            )
            for p in [*catalog.programs, *catalog.program_versions]
        ],
        "courses": [
            c.model_dump(mode="json", include={"code", "title", "description", "attributes"})
            for c in catalog.courses
        ],
    }


def index_fingerprint(catalog: Catalog) -> str:
    """sha256 of the indexed content; the name of the index's cache directory."""
    payload = json.dumps(_index_content(catalog), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def policy_docs(catalog: Catalog) -> Iterable[dict[str, str]]:
    for doc in catalog.documents:
        if doc.kind in ("policy", "general"):
            for s in doc.sections:
                yield {"document": doc.id, "section": s.id, "heading": s.heading, "text": s.text}


def program_docs(catalog: Catalog) -> Iterable[dict[str, str]]:
    linked: set[str] = set()
    # Versions of other catalog years too: their documents belong to the same program.
    for p in [*catalog.programs, *catalog.program_versions]:
        if p.document in linked:
            continue
        names = " ".join([p.code, p.name, *p.aliases])
        doc = catalog.document_by_id.get(p.document) if p.document else None
        if doc is None:
            yield {
                "document": "",
                "section": "",
                "program": p.code,
                "names": names,
                "heading": p.name,
                "text": p.name,
            }
            continue
        linked.add(doc.id)
        for s in doc.sections:
            yield {
                "document": doc.id,
                "section": s.id,
                "program": p.code,
                "names": names,
                "heading": s.heading,
                "text": s.text,
            }
    for doc in catalog.documents:
        if doc.kind == "program" and doc.id not in linked:
            for s in doc.sections:
                yield {
                    "document": doc.id,
                    "section": s.id,
                    "program": "",
                    "names": doc.title,
                    "heading": s.heading,
                    "text": s.text,
                }


def course_docs(catalog: Catalog) -> Iterable[dict[str, str]]:
    for c in catalog.courses:
        yield {
            "code": c.code,
            "title": c.title,
            "description": c.description,
            "attributes": ",".join(c.attributes),
            "attribute_words": " ".join(a.replace("-", " ") for a in c.attributes),
        }

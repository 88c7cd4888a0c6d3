"""The catalog browser: the catalogs the workspace's requests were made with (and the
bundled sample, the configured one and those an admin uploaded), each one's programs, a
course, and a search - what ``advise catalog programs``, ``course`` and ``search`` print
(``pipeline.cli_browse``).

A catalog is named in URLs by a key made from its recorded source, never by a path: only
catalogs the workspace already uses can be opened."""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from agents.errors import AdvisingError
from pipeline.console.auth import need
from pipeline.console.catalogs import catalog_key
from pipeline.console.pages import page
from pipeline.console.routes_catalog_admin import workspace_sources
from pipeline.workspace import describe_source, path_of

SEARCH_LIMIT = 15


def _sources(request: Request) -> dict[str, str]:
    return {catalog_key(s): s for s in workspace_sources(request)}


def _catalog(request: Request) -> tuple[str, Any]:
    from agents.catalog import load_catalog

    key = request.path_params["key"]
    source = _sources(request).get(key)
    if source is None:
        raise HTTPException(404, "no such catalog in this workspace")
    try:
        return key, load_catalog(path_of(source))
    except (AdvisingError, OSError) as exc:
        raise HTTPException(409, f"{describe_source(source)}: {exc}") from None


async def catalogs(request: Request) -> Response:
    need(request, "viewer")
    listed = [{"key": k, "name": describe_source(s)} for k, s in _sources(request).items()]
    return page(request, "catalogs.html.j2", catalogs=listed)


async def programs(request: Request) -> Response:
    need(request, "viewer")
    from agents.catalog import credits_text, use_catalog

    key, cat = _catalog(request)
    with use_catalog(cat):
        rows = [
            {
                "code": p.code,
                "name": p.name,
                "kind": p.kind,
                "aliases": p.aliases,
                "year": p.catalog_year,
                "total": credits_text(p.total_units) if p.total_units is not None else "-",
            }
            for p in cat.programs
        ]
    return page(request, "catalog.html.j2", key=key, cat=cat, programs=rows)


async def course(request: Request) -> Response:
    need(request, "viewer")
    from agents.catalog import term_label, use_catalog
    from agents.catalog.lookup import resolve_course
    from pipeline.cli_browse import course_info

    key, cat = _catalog(request)
    try:
        info = course_info(cat, resolve_course(cat, request.query_params.get("code", "")))
    except AdvisingError as exc:
        raise HTTPException(404, str(exc)) from None
    with use_catalog(cat):
        terms = {s["term"]: term_label(s["term"]) for s in info["sections"]}
    return page(request, "course.html.j2", key=key, cat=cat, info=info, terms=terms)


async def search(request: Request) -> Response:
    need(request, "viewer")
    from pipeline.cli_browse import search_results

    key, cat = _catalog(request)
    text = request.query_params.get("q", "").strip()
    found = search_results(cat, text, SEARCH_LIMIT) if text else None
    return page(request, "catalog_search.html.j2", key=key, cat=cat, q=text, found=found)


ROUTES = [
    Route("/catalogs", catalogs, methods=["GET"]),
    Route("/catalogs/{key}", programs, methods=["GET"]),
    Route("/catalogs/{key}/course", course, methods=["GET"]),
    Route("/catalogs/{key}/search", search, methods=["GET"]),
]

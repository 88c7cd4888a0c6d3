"""The batch dashboard: every request of the workspace, filtered, searched and paged from
the summary index (``pipeline.console.index``). Every page viewed is written to the access
log with the request ids it showed."""

from __future__ import annotations

from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pipeline.console.access import AccessLog
from pipeline.console.auth import need
from pipeline.console.index import Page, RequestIndex
from pipeline.console.pages import page

PER_PAGE = 50


def _int(text: str | None, default: int) -> int:
    try:
        return int(text or default)
    except ValueError:
        return default


def _seen(filters: dict[str, str], found: Page) -> str:
    """The access log's detail of a dashboard page: its filters and the request ids shown
    (one entry per page viewed, not one per row)."""
    asked = " ".join(f"{k}={v!r}" for k, v in filters.items())
    ids = " ".join(r["id"] for r in found.rows)
    where = f"page {found.page}/{found.pages}" + (f" {asked}" if asked else "")
    return f"{where}; {len(found.rows)} shown: {ids}" if ids else f"{where}; none shown"


async def dashboard(request: Request) -> Response:
    user = need(request, "viewer")
    q = request.query_params
    index: RequestIndex = request.app.state.index
    state, catalog, search = q.get("state", ""), q.get("catalog", ""), q.get("q", "")
    found = index.page(
        state=state, catalog=catalog, search=search, page=_int(q.get("page"), 1), per_page=PER_PAGE
    )
    kept = {k: v for k, v in (("state", state), ("catalog", catalog), ("q", search)) if v}
    log: AccessLog = request.app.state.access
    log.record(user.name, user.role, "dashboard", detail=_seen(kept, found))

    def link(n: int) -> str:
        return "/?" + urlencode({**kept, "page": n})

    return page(
        request,
        "dashboard.html.j2",
        found=found,
        state=state,
        catalog=catalog,
        search=search,
        link=link,
    )


ROUTES = [Route("/", dashboard, methods=["GET"])]

"""The batch dashboard: every request of the workspace, filtered, searched and paged from
the summary index (``pipeline.console.index``)."""

from __future__ import annotations

from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pipeline.console.auth import need
from pipeline.console.index import RequestIndex
from pipeline.console.pages import page

PER_PAGE = 50


def _int(text: str | None, default: int) -> int:
    try:
        return int(text or default)
    except ValueError:
        return default


async def dashboard(request: Request) -> Response:
    need(request, "viewer")
    q = request.query_params
    index: RequestIndex = request.app.state.index
    state, catalog, search = q.get("state", ""), q.get("catalog", ""), q.get("q", "")
    found = index.page(
        state=state, catalog=catalog, search=search, page=_int(q.get("page"), 1), per_page=PER_PAGE
    )
    kept = {k: v for k, v in (("state", state), ("catalog", catalog), ("q", search)) if v}

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

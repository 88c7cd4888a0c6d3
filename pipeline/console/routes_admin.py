"""Admin pages: the access log (read, export as CSV) and the accounts."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from pipeline.console.access import AccessLog
from pipeline.console.auth import checked_form, need, users
from pipeline.console.errors import UserError
from pipeline.console.pages import flash, page

SHOWN = 500


async def access_page(request: Request) -> Response:
    need(request, "admin")
    log: AccessLog = request.app.state.access
    entries = list(log.entries())
    q = request.query_params.get("q", "").strip()
    if q:  # e.g. a request id: its views, decisions, runs and the dashboard pages showing it
        needle = q.casefold()
        entries = [e for e in entries if any(needle in str(v).casefold() for v in e.values())]
    return page(request, "access.html.j2", entries=entries[::-1][:SHOWN], total=len(entries), q=q)


async def access_csv(request: Request) -> Response:
    need(request, "admin")
    log: AccessLog = request.app.state.access
    headers = {"Content-Disposition": 'attachment; filename="access-log.csv"'}
    return Response(log.csv(), media_type="text/csv; charset=utf-8", headers=headers)


async def users_page(request: Request) -> Response:
    need(request, "admin")
    return page(request, "users.html.j2", accounts=users(request).list())


async def users_post(request: Request) -> Response:
    admin = need(request, "admin")
    form = await checked_form(request)
    name = str(form.get("name", ""))
    try:
        if form.get("action") == "remove":
            if name == admin.name:
                raise UserError("you cannot remove your own account while signed in with it")
            users(request).remove(name)
            flash(request, f"removed {name}")
        else:
            role, password = str(form.get("role", "")), str(form.get("password", ""))
            users(request).add(name, role, password, replace=bool(form.get("replace")))
            flash(request, f"saved {name} ({role})")
    except UserError as exc:
        flash(request, str(exc), "error")
    return RedirectResponse("/users", status_code=303)


ROUTES = [
    Route("/access", access_page, methods=["GET"]),
    Route("/access.csv", access_csv, methods=["GET"]),
    Route("/users", users_page, methods=["GET"]),
    Route("/users", users_post, methods=["POST"]),
]

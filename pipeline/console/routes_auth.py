"""Signing in and out with a local account."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from pipeline.console.access import AccessLog
from pipeline.console.auth import checked_form, current_user, safe_next, users
from pipeline.console.pages import page


async def login_page(request: Request) -> Response:
    oidc = request.app.state.config.oidc is not None
    return page(
        request, "login.html.j2", next=safe_next(request.query_params.get("next")), oidc=oidc
    )


async def login(request: Request) -> Response:
    form = await checked_form(request)
    name, password = str(form.get("name", "")), str(form.get("password", ""))
    user = users(request).verify(name, password)
    log: AccessLog = request.app.state.access
    if user is None:
        log.record(name[:64], "", "login_failed")
        return page(
            request,
            "login.html.j2",
            status_code=401,
            next=safe_next(form.get("next")),
            error="unknown user or wrong password",
        )
    request.session.clear()  # a fresh session: nothing set before signing in carries over,
    request.session["user"] = user.name  # not even the CSRF token (a new one is made)
    log.record(user.name, user.role, "login")
    return RedirectResponse(safe_next(form.get("next")), status_code=303)


async def logout(request: Request) -> Response:
    await checked_form(request)
    user = current_user(request)
    if user is not None:
        request.app.state.access.record(user.name, user.role, "logout")
    request.session.clear()
    return RedirectResponse("/login", status_code=303)


ROUTES = [
    Route("/login", login_page, methods=["GET"]),
    Route("/login", login, methods=["POST"]),
    Route("/logout", logout, methods=["POST"]),
]

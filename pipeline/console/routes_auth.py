"""Signing in and out with a local account; failed sign-ins are limited
(``pipeline.console.throttle``)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from pipeline.console.access import AccessLog
from pipeline.console.auth import checked_form, current_user, safe_next, users
from pipeline.console.pages import page
from pipeline.console.throttle import LoginThrottle


async def login_page(request: Request) -> Response:
    oidc = request.app.state.config.oidc is not None
    return page(
        request, "login.html.j2", next=safe_next(request.query_params.get("next")), oidc=oidc
    )


async def login(request: Request) -> Response:
    form = await checked_form(request)
    name, password = str(form.get("name", "")), str(form.get("password", ""))
    log: AccessLog = request.app.state.access
    throttle: LoginThrottle = request.app.state.throttle
    address = request.client.host if request.client is not None else ""
    refused = throttle.refused(name, address)
    if refused is not None:  # the password is not even checked
        log.record(name[:64], "", "login_locked", detail=f"from {address}")
        return page(
            request,
            "login.html.j2",
            status_code=429,
            next=safe_next(form.get("next")),
            error=refused,
        )
    user = users(request).verify(name, password)
    if user is None:
        throttle.failed(name, address)
        log.record(name[:64], "", "login_failed", detail=f"from {address}")
        return page(
            request,
            "login.html.j2",
            status_code=401,
            next=safe_next(form.get("next")),
            error="unknown user or wrong password",
        )
    throttle.succeeded(name)
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

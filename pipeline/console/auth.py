"""Who is signed in, what their role allows, and the CSRF token of every form.

The session is Starlette's signed cookie (``itsdangerous``; HttpOnly, SameSite=Lax, Secure
when the console is told it sits behind HTTPS) holding the user name and a CSRF token. The
account is looked up on every request, so a removed user or a changed role takes effect at
once. Every POST must carry the session's token in its ``csrf`` field (403 otherwise).
"""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import quote

from starlette.exceptions import HTTPException
from starlette.requests import Request

from pipeline.console.users import ROLES, Role, User, UserStore, role_allows


class LoginRequired(Exception):
    """Raised by ``need`` for a visitor who is not signed in: answered with the login page."""

    def __init__(self, next_path: str) -> None:
        self.next_path = next_path


def users(request: Request) -> UserStore:
    store: UserStore = request.app.state.users
    return store


def current_user(request: Request) -> User | None:
    """The local account signed in, or the identity provider's user with the role their
    groups gave at sign-in (``pipeline.console.oidc``)."""
    name, role = request.session.get("user"), request.session.get("oidc_role")
    if not isinstance(name, str):
        return None
    if role is not None:
        oidc = request.app.state.config.oidc is not None
        return User(name, role) if oidc and role in ROLES else None
    return users(request).get(name)


def need(request: Request, role: Role) -> User:
    """The signed-in user if their role is at least ``role``; else LoginRequired or 403."""
    user = current_user(request)
    if user is None:
        request.session.pop("user", None)
        raise LoginRequired(request.url.path)
    if not role_allows(user.role, role):
        raise HTTPException(403, f"this needs the {role} role; {user.name} is a {user.role}")
    return user


def csrf_token(request: Request) -> str:
    token = request.session.get("csrf")
    if not isinstance(token, str):
        token = request.session["csrf"] = secrets.token_urlsafe(32)
    return token


async def checked_form(request: Request) -> dict[str, Any]:
    """The POSTed form, once its CSRF token matches the session's (403 if not)."""
    form = await request.form()
    sent, expected = form.get("csrf"), request.session.get("csrf")
    problem = None
    if not isinstance(sent, str) or not isinstance(expected, str):
        problem = "missing CSRF token; reload the page and try again"
    elif not secrets.compare_digest(sent, expected):
        problem = "wrong CSRF token; reload the page and try again"
    if problem is not None:
        await form.close()  # uploaded files are spooled to temporary files
        raise HTTPException(403, problem)
    return dict(form)


def login_url(next_path: str) -> str:
    return f"/login?next={quote(next_path, safe='/')}"


def safe_next(value: object) -> str:
    """Where to go after signing in: a path on this site only (no //host, no scheme)."""
    if not isinstance(value, str) or not value.startswith("/") or value.startswith("//"):
        return "/"
    return "/" if "\\" in value or ":" in value.split("?")[0] else value

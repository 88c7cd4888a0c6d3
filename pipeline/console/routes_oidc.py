"""``/login/oidc`` sends the visitor to the identity provider; ``/auth/oidc`` is where the
provider sends them back. Present only when ``[console.oidc]`` is configured
(``pipeline.console.oidc``)."""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from pipeline.console.auth import safe_next
from pipeline.console.oidc import OIDCSettings


def oauth_client(settings: OIDCSettings) -> Any:
    from authlib.integrations.starlette_client import OAuth

    oauth = OAuth()
    oauth.register(
        "oidc",
        client_id=settings.client_id,
        client_secret=settings.client_secret,
        server_metadata_url=settings.metadata_url,
        client_kwargs={"scope": "openid profile email"},
    )
    return oauth.oidc


def _refusals() -> tuple[type[Exception], ...]:
    """What authlib raises for an answer it refuses: a bad state or error reply
    (OAuthError), an ID token with a bad signature, audience, issuer, expiry or nonce
    (joserfc's JoseError, the JOSE library authlib checks tokens with)."""
    from authlib.integrations.base_client.errors import OAuthError

    try:
        from joserfc.errors import JoseError
    except ImportError:  # pragma: no cover - an authlib that checks tokens itself
        return (OAuthError,)
    return (OAuthError, JoseError)


async def start(request: Request) -> Response:
    request.session["oidc_next"] = safe_next(request.query_params.get("next"))
    client = request.app.state.oidc_client
    redirect: Response = await client.authorize_redirect(request, str(request.url_for("oidc")))
    return redirect


async def callback(request: Request) -> Response:
    settings: OIDCSettings = request.app.state.config.oidc
    try:
        token = await request.app.state.oidc_client.authorize_access_token(request)
    except _refusals() as exc:
        request.app.state.access.record("", "", "login_failed", detail=f"oidc: {exc}")
        raise HTTPException(401, f"the identity provider's answer was refused: {exc}") from None
    claims = dict(token.get("userinfo") or {})
    name = str(claims.get(settings.username_claim) or claims.get("sub") or "")
    role = settings.role_of(claims)
    if not name or role is None:
        request.app.state.access.record(name[:64], "", "login_failed", detail="oidc: no group")
        raise HTTPException(
            403,
            f"{name or 'this account'} is in none of the groups allowed "
            "to use the console; ask an admin",
        )
    after = request.session.get("oidc_next", "/")
    request.session.clear()  # a fresh session, with a new CSRF token when a page asks
    request.session.update({"user": name, "oidc_role": role})
    request.app.state.access.record(name, role, "login", detail="oidc")
    return RedirectResponse(safe_next(after), status_code=303)


ROUTES = [
    Route("/login/oidc", start, methods=["GET"]),
    Route("/auth/oidc", callback, methods=["GET"], name="oidc"),
]

"""The console's application: ``create_app(ConsoleConfig(...))`` -> a Starlette app over one
workspace's files (checkpoints, outputs, logs). There is no database: the checkpoints are
the one source of truth, the dashboard's index is a cache of them."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pipeline.console.access import AccessLog
from pipeline.console.auth import LoginRequired, login_url
from pipeline.console.catalogs import CatalogShelf
from pipeline.console.index import RequestIndex
from pipeline.console.jobs import JobRunner, Workspace
from pipeline.console.oidc import OIDCSettings
from pipeline.console.pages import page
from pipeline.console.routes_admin import ROUTES as ADMIN_ROUTES
from pipeline.console.routes_audit import ROUTES as AUDIT_ROUTES
from pipeline.console.routes_auth import ROUTES as AUTH_ROUTES
from pipeline.console.routes_catalog import ROUTES as CATALOG_ROUTES
from pipeline.console.routes_catalog_admin import ROUTES as CATALOG_ADMIN_ROUTES
from pipeline.console.routes_dashboard import ROUTES as DASHBOARD_ROUTES
from pipeline.console.routes_new import ROUTES as NEW_ROUTES
from pipeline.console.routes_oidc import ROUTES as OIDC_ROUTES
from pipeline.console.routes_oidc import oauth_client
from pipeline.console.routes_request import ROUTES as REQUEST_ROUTES
from pipeline.console.throttle import LoginLimit, LoginThrottle
from pipeline.console.users import UserStore, session_secret
from pipeline.store import CheckpointStore

SESSION_COOKIE = "advise_console"
SESSION_MAX_AGE = 8 * 3600
# Pages use our stylesheet only; no script runs, no frame but our own report, no form posts
# anywhere else.
CSP = (
    "default-src 'self'; script-src 'none'; object-src 'none'; frame-ancestors 'self'; "
    "form-action 'self'; base-uri 'none'"
)


@dataclass(frozen=True)
class ConsoleConfig:
    state_dir: Path = Path("state")
    out_dir: Path = Path("out")
    log_dir: Path = Path("logs")
    workers: int = 2
    https: bool = False  # behind a TLS proxy: the session cookie is sent over HTTPS only
    oidc: OIDCSettings | None = None  # sign-in with the identity provider, beside local accounts
    stages: str = "real"  # tests only
    templates: Path | None = None  # an office's report templates, for the runs it starts
    catalog: str | None = None  # the workspace's catalog (flag, ADVISE_CATALOG, advise.toml)
    settings_file: Path | None = None  # the advise.toml the console was started with
    login_limit: LoginLimit = field(default_factory=LoginLimit)  # failed sign-ins allowed
    clock: Callable[[], float] = time.monotonic  # the sign-in limit's clock (tests move it)


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def add(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = message.setdefault("headers", [])
                names = {k.lower() for k, _ in headers}
                for k, v in (
                    (b"content-security-policy", CSP.encode()),
                    (b"x-frame-options", b"SAMEORIGIN"),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"same-origin"),
                    (b"cache-control", b"no-store"),
                ):
                    if k not in names:
                        headers.append((k, v))
            await send(message)

        await self.app(scope, receive, add if scope["type"] == "http" else send)


async def _login_required(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, LoginRequired)
    return RedirectResponse(login_url(exc.next_path), status_code=303)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return page(
        request,
        "error.html.j2",
        status_code=exc.status_code,
        status=exc.status_code,
        detail=exc.detail,
    )


def create_app(config: ConsoleConfig) -> Starlette:
    static = StaticFiles(directory=str(Path(__file__).with_name("static")))
    app = Starlette(
        routes=[
            *AUTH_ROUTES,
            *DASHBOARD_ROUTES,
            *REQUEST_ROUTES,
            *ADMIN_ROUTES,
            *CATALOG_ADMIN_ROUTES,  # before /catalogs/{key}
            *CATALOG_ROUTES,
            *AUDIT_ROUTES,
            *NEW_ROUTES,
            *(OIDC_ROUTES if config.oidc is not None else []),
            Mount("/static", static, name="static"),
        ],
        middleware=[
            Middleware(SecurityHeaders),
            Middleware(
                SessionMiddleware,
                secret_key=session_secret(config.state_dir),
                session_cookie=SESSION_COOKIE,
                max_age=SESSION_MAX_AGE,
                same_site="lax",
                https_only=config.https,
            ),
        ],
        exception_handlers={LoginRequired: _login_required, HTTPException: _http_error},
    )
    app.state.config = config
    app.state.out_dir = config.out_dir
    app.state.store = CheckpointStore(config.state_dir)
    app.state.users = UserStore(config.state_dir)
    app.state.access = AccessLog(config.state_dir)
    app.state.index = RequestIndex(config.state_dir)
    app.state.catalogs = CatalogShelf(config.state_dir, config.catalog)
    app.state.throttle = LoginThrottle(config.login_limit, config.clock)
    ws = Workspace(
        config.state_dir,
        config.out_dir,
        config.log_dir,
        config.stages,
        config.templates,
        catalog=config.catalog,
        settings_file=config.settings_file,
    )
    app.state.jobs = JobRunner(ws, workers=config.workers)
    app.state.oidc_client = oauth_client(config.oidc) if config.oidc is not None else None
    return app

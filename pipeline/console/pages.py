"""What every page shares: the templates (Jinja2, autoescaped: every value from a request or
a checkpoint is text, never markup), the flash message, and the request id check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.templating import Jinja2Templates

from pipeline.console.auth import csrf_token, current_user
from pipeline.console.index import outcome_words, state_words
from pipeline.errors import UnsafeRequestIdError
from pipeline.store import check_request_id

TEMPLATES = Jinja2Templates(directory=str(Path(__file__).with_name("templates")))
TEMPLATES.env.autoescape = True  # every template, whatever its name ends with
TEMPLATES.env.globals["state_words"] = state_words  # the advisor's words, as the batch index
TEMPLATES.env.globals["outcome_words"] = outcome_words


def flash(request: Request, message: str, kind: str = "ok") -> None:
    request.session.setdefault("flash", []).append([kind, message])


def page(request: Request, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    messages = request.session.pop("flash", [])
    return TEMPLATES.TemplateResponse(
        request,
        name,
        {
            "user": current_user(request),
            "csrf": csrf_token(request),
            "messages": messages,
            **context,
        },
        status_code=status_code,
    )


def request_id(request: Request) -> str:
    """The path's request id, if it is a safe file name (404 otherwise: nothing is read)."""
    rid = request.path_params.get("rid")
    try:
        return check_request_id(rid)
    except UnsafeRequestIdError:
        raise HTTPException(404, "no such request") from None

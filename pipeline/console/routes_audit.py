"""The what-if audit of a request's student: add programs (a minor, a concentration) or
switch the catalog year, and see the audit worksheet - what ``advise audit --add-program``
writes with ``--html`` (``pipeline.cli_audit``), against the request's own catalog."""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from agents.errors import AdvisingError
from pipeline.console.auth import need
from pipeline.console.pages import page, request_id
from pipeline.console.routes_request import REPORT_CSP, load_context
from pipeline.workspace import catalog_for

# A catalog year starts with the year it begins, as the record checks program_years.
_YEAR = re.compile(r"\d{4}")


class _Refused(Exception):
    """A what-if the catalog or the record refuses; the message says which field and why."""


def _what_if(request: Request) -> tuple[Any, Any, list[str], str]:
    """The request's catalog, its student (with the asked catalog year), the programs to
    add, and the request id."""
    from agents.catalog import check_student_against_catalog, load_catalog
    from agents.catalog.lookup import resolve_program

    rid = request_id(request)
    ctx = load_context(request, rid)
    try:
        cat = load_catalog(catalog_for(rid, ctx.catalog_source, None))
    except AdvisingError as exc:
        raise HTTPException(409, str(exc)) from None
    student = ctx.request.student
    year = request.query_params.get("year", "").strip()
    if year and not _YEAR.match(year):
        raise _Refused(f"catalog year {year!r} cannot be read; write it like {cat.catalog_year!r}")
    try:
        if year and year != student.catalog_year:
            raw = {**student.model_dump(mode="json", exclude_unset=True), "catalog_year": year}
            student = type(student).model_validate(raw)
        adds = [resolve_program(cat, t) for t in request.query_params.getlist("add") if t]
    except ValidationError as exc:
        first = exc.errors()[0]
        raise _Refused(f"catalog year {year!r}: {first['msg']}") from None
    except AdvisingError as exc:
        raise _Refused(str(exc)) from None
    problems = check_student_against_catalog(student, cat)
    if problems:
        raise _Refused("; ".join(problems))
    return cat, student, adds, rid


async def audit_page(request: Request) -> Response:
    user = need(request, "viewer")
    rid = request_id(request)
    ctx = load_context(request, rid)
    error = None
    try:
        cat, _, adds, _ = _what_if(request)
        programs = [(p.code, p.name, p.kind) for p in cat.programs]
    except _Refused as exc:
        error, adds, programs = str(exc), [], []
    request.app.state.access.record(
        user.name,
        user.role,
        "view",
        request_id=rid,
        student_id=ctx.request.student.id,
        detail="what-if audit",
    )
    return page(
        request,
        "audit.html.j2",
        ctx=ctx,
        programs=programs,
        adds=adds,
        year=request.query_params.get("year", ""),
        error=error,
        query=request.url.query,
    )


async def worksheet(request: Request) -> Response:
    need(request, "viewer")
    from agents.audit import audit
    from agents.catalog import use_catalog
    from agents.writing.worksheet import worksheet_html, worksheet_view

    try:
        cat, student, adds, _ = _what_if(request)
    except _Refused as exc:
        raise HTTPException(400, str(exc)) from None
    with use_catalog(cat):
        report = audit(cat, student, add_programs=adds)
        body = worksheet_html(worksheet_view(cat, student, report))
    headers = {"Content-Security-Policy": REPORT_CSP, "X-Frame-Options": "SAMEORIGIN"}
    return Response(body, media_type="text/html; charset=utf-8", headers=headers)


ROUTES = [
    Route("/requests/{rid}/audit", audit_page, methods=["GET"]),
    Route("/requests/{rid}/audit/worksheet", worksheet, methods=["GET"]),
]

"""The admin's catalog pages: every catalog of the workspace with what ``advise catalog
validate`` says of it, uploading a catalog file, and choosing the catalog new requests from
``/new`` use (``pipeline.console.catalogs``). Every action is written to the access log."""

from __future__ import annotations

from typing import Any

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from pipeline.console.access import AccessLog
from pipeline.console.auth import checked_form, need
from pipeline.console.catalogs import MAX_BYTES, CatalogShelf, Checked, catalog_key, validate
from pipeline.console.index import RequestIndex
from pipeline.console.pages import flash, page
from pipeline.workspace import describe_source


def shelf(request: Request) -> CatalogShelf:
    found: CatalogShelf = request.app.state.catalogs
    return found


def workspace_sources(request: Request) -> list[str]:
    index: RequestIndex = request.app.state.index
    return shelf(request).sources(index.catalog_sources())


def _listed(request: Request) -> list[Checked]:
    names = {s: n for n, s in shelf(request).uploaded().items()}
    listed = []
    for source in workspace_sources(request):
        checked = validate(source)
        if source in names:
            checked.name = f"{names[source]} (uploaded)"
        listed.append(checked)
    return listed


def _page(request: Request, status_code: int = 200, **context: Any) -> Response:
    s = shelf(request)
    return page(
        request,
        "catalogs_admin.html.j2",
        status_code=status_code,
        catalogs=_listed(request),
        chosen=s.chosen(),
        configured=s.configured,
        describe=describe_source,
        max_bytes=MAX_BYTES,
        **context,
    )


async def manage(request: Request) -> Response:
    need(request, "admin")
    return _page(request)


async def upload(request: Request) -> Response:
    admin = need(request, "admin")
    form = await checked_form(request)
    log: AccessLog = request.app.state.access
    file = form.get("catalog_file")
    try:
        if not isinstance(file, UploadFile) or not file.filename:
            return _page(request, 400, error="choose a catalog JSON file to upload")
        filename = file.filename
        name = str(form.get("name", "")).strip() or _stem(filename)
        data = await file.read(MAX_BYTES + 1)
    finally:
        for value in form.values():  # uploads are spooled to temporary files
            if isinstance(value, UploadFile):
                await value.close()
    try:
        checked = shelf(request).store(name, filename, data)
    except (ValueError, FileExistsError) as exc:
        log.record(admin.name, admin.role, "catalog_refused", detail=f"{filename}: {exc}")
        status = 409 if isinstance(exc, FileExistsError) else 400
        return _page(request, status, error=str(exc))
    if not checked.ok:
        detail = f"{filename} as {name}: {len(checked.errors)} problems"
        log.record(admin.name, admin.role, "catalog_refused", detail=detail)
        return _page(request, 400, error=f"{checked.name} was not stored", refused=checked)
    log.record(admin.name, admin.role, "catalog_upload", detail=f"{filename} as {name}")
    flash(request, f"stored {name}: {len(checked.warnings)} warnings")
    return RedirectResponse("/catalogs/manage", status_code=303)


def _stem(filename: str) -> str:
    """The upload's file name without .json, when it is a plain name (a name with a
    directory in it is kept whole, and so refused)."""
    return filename[:-5] if filename.lower().endswith(".json") else filename


async def choose(request: Request) -> Response:
    admin = need(request, "admin")
    form = await checked_form(request)
    key = str(form.get("key", ""))
    log: AccessLog = request.app.state.access
    if key == "workspace":
        shelf(request).choose(None)
        log.record(admin.name, admin.role, "catalog_choose", detail="the workspace's setting")
        flash(request, "new requests use the workspace's catalog setting")
        return RedirectResponse("/catalogs/manage", status_code=303)
    source = next((s for s in workspace_sources(request) if catalog_key(s) == key), None)
    if source is None:
        return _page(request, 404, error="no such catalog in this workspace")
    checked = validate(source)
    if not checked.ok:
        error = f"{checked.name} has errors; fix them before new requests use it"
        return _page(request, 409, error=error)
    shelf(request).choose(source)
    log.record(admin.name, admin.role, "catalog_choose", detail=describe_source(source))
    flash(request, f"new requests use {describe_source(source)}")
    return RedirectResponse("/catalogs/manage", status_code=303)


ROUTES = [
    Route("/catalogs/manage", manage, methods=["GET"]),
    Route("/catalogs/upload", upload, methods=["POST"]),
    Route("/catalogs/choose", choose, methods=["POST"]),
]

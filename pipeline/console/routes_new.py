"""A new request from the console: an uploaded PlanRequest JSON file, or one built from a
form (an id, the student record as a JSON file, the student's words, programs to add).
It is checked as ``advise run`` checks a request file (``pipeline.batch_input``: JSON, the
schema, the model, a safe id - every problem named by its JSON path), kept in
``state/.console/requests/<id>.json`` and run with ``advise run`` on the worker pool."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from agents.catalog.limits import LIMITS
from agents.files import atomic_write, ensure_dir
from pipeline.batch_input import InputItem, Invalid, RequestValidator
from pipeline.console.auth import checked_form, need
from pipeline.console.pages import flash, page
from pipeline.console.users import console_dir
from pipeline.store import CheckpointStore

REQUESTS_DIR = "requests"
MAX_BYTES = int(LIMITS["request_bytes"].value)


async def _upload(value: Any, what: str) -> str | None:
    """An uploaded file's text; None when none was chosen. ValueError says what is wrong."""
    if not isinstance(value, UploadFile) or not value.filename:
        return None
    data = await value.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError(f"{what} {value.filename!r} is larger than {MAX_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{what} {value.filename!r} is not UTF-8 text") from None


async def _request_text(form: dict[str, Any], catalog: str | None) -> tuple[str, str]:
    """The request as JSON text and where it came from (for messages)."""
    uploaded = await _upload(form.get("request_file"), "request file")
    if uploaded is not None:
        return uploaded, f"request file {form['request_file'].filename!r}"
    student = await _transcript_record(form, catalog)
    record = await _upload(form.get("student_file"), "student record")
    if student is None and record is None:
        raise ValueError(
            "upload a request JSON file, or a student record (JSON) or transcript (PESC XML "
            "or CSV) with a request id"
        )
    if student is None:
        try:
            student = json.loads(record or "")
        except ValueError as exc:
            raise ValueError(f"the student record is not valid JSON: {exc}") from None
    adds = [p.strip() for p in str(form.get("add_programs", "")).split(",") if p.strip()]
    raw = {
        "request_id": str(form.get("request_id", "")).strip(),
        "student": student,
        "text": str(form.get("text", "")).strip(),
        "add_programs": adds,
    }
    return json.dumps(raw), "the form"


async def _transcript_record(form: dict[str, Any], catalog: str | None) -> dict[str, Any] | None:
    """The student record made from an uploaded transcript, as ``advise student import``
    makes it (against the catalog a new request runs with: ``CatalogShelf``); None without
    one. A transcript with anything left out is refused with every problem listed."""
    from agents.catalog import load_catalog
    from agents.catalog.transcript_import import StudentFacts, import_transcript, record_json
    from agents.errors import AdvisingError

    upload = form.get("transcript_file")
    text = await _upload(upload, "transcript")
    if text is None:
        return None
    name = str(getattr(upload, "filename", ""))
    suffix = Path(name).suffix.lower()
    if suffix not in (".xml", ".csv"):
        raise ValueError(f"transcript {name!r}: name it .xml (PESC) or .csv")

    def field(key: str) -> str | None:
        return str(form.get(key, "")).strip() or None

    programs = tuple(p.strip() for p in str(form.get("programs", "")).split(",") if p.strip())
    facts = StudentFacts(id=field("student_id"), name=field("student_name"), programs=programs)
    with tempfile.TemporaryDirectory(prefix="advise-transcript-") as tmp:
        path = Path(tmp) / f"transcript{suffix}"
        path.write_text(text, encoding="utf-8")
        try:
            result = import_transcript(path, load_catalog(catalog), facts)
        except AdvisingError as exc:  # it names the file: the upload's name, not ours
            raise ValueError(str(exc).replace(str(path), f"transcript {name!r}")) from None
    if result.problems:
        left = "; ".join(str(p) for p in result.problems)
        raise ValueError(f"transcript {name!r}: left out, fix the transcript first: {left}")
    return dict(json.loads(record_json(result.record)))


def _catalog_named(request: Request) -> str:
    path = request.app.state.catalogs.for_new_requests()
    return "bundled sample" if path is None else str(path)


async def new_form(request: Request) -> Response:
    need(request, "advisor")
    return page(request, "new.html.j2", catalog=_catalog_named(request))


async def new_post(request: Request) -> Response:
    user = need(request, "advisor")
    form = await checked_form(request)
    catalog = request.app.state.catalogs.for_new_requests()
    try:
        text, source = await _request_text(form, catalog)
    except ValueError as exc:
        return page(request, "new.html.j2", status_code=400, error=str(exc))
    finally:
        for value in form.values():  # uploads are spooled to temporary files
            if isinstance(value, UploadFile):
                await value.close()
    checked = RequestValidator().check(InputItem(source=source, text=text))
    if isinstance(checked, Invalid):
        return page(request, "new.html.j2", status_code=400, error=f"{source}: {checked.message}")
    rid = checked.request_id
    store: CheckpointStore = request.app.state.store
    if store.exists(rid):
        error = f"a request with id {rid!r} exists in this workspace; open it or choose another id"
        return page(request, "new.html.j2", status_code=409, error=error)
    directory = ensure_dir(console_dir(store.root) / REQUESTS_DIR)
    path = directory / f"{rid}.json"
    atomic_write(path, checked.model_dump_json(exclude_unset=True).encode("utf-8"))
    job = request.app.state.jobs.submit(rid, "run", user.name, request_file=path, catalog=catalog)
    if job is None:
        flash(request, f"{rid}: a run from the console is already queued or running", "error")
    else:
        request.app.state.access.record(
            user.name,
            user.role,
            "run",
            request_id=rid,
            student_id=checked.student.id,
            detail="new request",
        )
        flash(request, f"{rid}: new request started")
    return RedirectResponse(f"/requests/{rid}", status_code=303)


ROUTES = [
    Route("/new", new_form, methods=["GET"]),
    Route("/new", new_post, methods=["POST"]),
]

"""Batch input: stream requests from a JSONL file, a directory of JSON files or stdin, or
the unfinished checkpoints of a state directory, and validate each request before it runs
(JSON, then the request JSON Schema, then the model, then a safe id). Every problem of
a request is reported, each naming its JSON path, the value (short) and the fix; a bare
student record given as a request is named as one."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import ValidationError

from agents.artifacts import PlanRequest, artifact_schema
from agents.catalog import limits, schema_problems
from agents.catalog.exceptions import error_path, load_exceptions
from agents.catalog.limits import LIMITS, MiB, size_problem
from agents.catalog.terms import Calendar, active_calendar, use_calendar
from agents.catalog.validation import pydantic_problem, too_long
from agents.errors import ExceptionsFileError, StudentRecordError
from pipeline.checkpoint_summary import CheckpointSummary
from pipeline.context import State
from pipeline.errors import CatalogSourceMissingError, RequestInputError, UnsafeRequestIdError
from pipeline.outputs import outputs_present
from pipeline.store import CheckpointStore, check_request_id
from pipeline.workspace import CatalogFingerprints


@dataclass(frozen=True)
class InputItem:
    """One request as read: its place in the input and its text (or why it is unreadable),
    or the id of a checkpoint to resume."""

    source: str
    text: str | None = None
    error: str | None = None
    resume_id: str | None = None


def iter_input(spec: str) -> Iterator[InputItem]:
    """Stream ``spec``: a JSONL file (one request per line), a directory of ``*.json``
    files (one request each) or ``-`` for JSON lines on stdin."""
    if spec == "-":
        yield from _lines(sys.stdin.buffer)
        return
    path = Path(spec)
    if path.is_dir():
        names = sorted(e.name for e in os.scandir(path) if e.name.endswith(".json"))
        for name in names:
            yield read_item(path / name)
        return
    with path.open("rb") as f:
        yield from _lines(f)


_TOO_BIG = "split it, or shorten its text"


def _lines(f: BinaryIO) -> Iterator[InputItem]:
    """One item per non-blank line; a line over the request size limit is an item with
    its error, read past without holding it in memory."""
    limit = LIMITS["request_bytes"]
    number = 0
    while data := f.readline(limit.value + 1):
        number += 1
        source = f"line {number}"
        if len(data) > limit.value and not data.endswith(b"\n"):
            size = len(data)
            while rest := f.readline(MiB):
                size += len(rest.rstrip(b"\r\n"))
                if rest.endswith(b"\n"):
                    break
            yield InputItem(source=source, error=limit.problem(size, _TOO_BIG))
            continue
        if not data.strip():
            continue
        try:
            yield InputItem(source=source, text=data.decode("utf-8").rstrip())
        except UnicodeDecodeError as exc:
            yield InputItem(source=source, error=_not_utf8(data, exc, "line"))


def _not_utf8(data: bytes, exc: UnicodeDecodeError, of: str) -> str:
    return (
        f"not UTF-8 text (byte {data[exc.start]:#04x} at byte {exc.start + 1:,} of the "
        f"{of}); save the file as UTF-8"
    )


def resume_items(
    store: CheckpointStore,
    out_dir: Path,
    known: CatalogFingerprints | None = None,
    named: str | None = None,
    *,
    every: bool = False,
) -> Iterator[InputItem]:
    """Every checkpoint that is not finished, whose outputs are missing, or that is stale
    (finished under other fingerprints than its own catalog - or the catalog ``named`` -
    and the configuration give now, see ``known``) or degraded (``pipeline.degraded``);
    with ``every``, all of them. A finished request whose own catalog is gone is left
    alone (``advise status`` lists it); an unfinished one is yielded, and reported as such
    by the worker."""
    for rid in store.ids():
        summary = store.summary(rid)
        if (
            every
            or summary is None
            or summary.state is not State.done
            or not outputs_present(out_dir, rid)
            or _stale(known, summary, named)
        ):
            yield InputItem(source=f"checkpoint {rid}", resume_id=rid)


def _stale(
    known: CatalogFingerprints | None, summary: CheckpointSummary, named: str | None
) -> bool:
    if known is None:
        return False
    try:
        now = known.for_request(summary.request_id, summary.catalog_source, named)
    except CatalogSourceMissingError:
        return False
    return now.differs(summary.fingerprints) or bool(summary.degraded)


@dataclass(frozen=True)
class Invalid:
    """Why a request was rejected before running."""

    request_id: str | None
    message: str


NOT_A_PLAN_REQUEST = (
    'this is a student record, not a plan request; wrap it as {"request_id": ..., "student": {...}}'
)


def is_student_record(raw: object) -> bool:
    """Whether ``raw`` is a bare student record (has a record's fields, no "student")."""
    return (
        isinstance(raw, dict)
        and "student" not in raw
        and "request_id" not in raw
        and len({"courses", "current_term", "start_term", "catalog_year", "programs"} & raw.keys())
        >= 2
    )


def joined(problems: list[str]) -> str:
    """Every problem of a request in one line (the summary line's ``error``, the log)."""
    if len(problems) == 1:
        return problems[0]
    return f"{len(problems)} problems: " + " | ".join(problems)


def plan_request_schema() -> dict[str, Any]:
    """The published request schema; generated from the model if the file is absent."""
    published = resources.files("agents") / "schemas" / "plan_request.schema.json"
    if published.is_file():
        return dict(json.loads(published.read_text(encoding="utf-8")))
    return artifact_schema("plan_request")


class RequestValidator:
    """JSON, then the request JSON Schema, then the model, then a safe id; then, given an
    exceptions directory, the student's advisor exceptions file
    (``<exceptions_dir>/<student id>.json``, if there is one) merged into the record; then,
    given ``alternatives`` (``--alternatives K``), that count for a request that does not
    set its own (a request's own value, 0 included, wins: it is the more specific wish)."""

    def __init__(
        self,
        exceptions_dir: Path | None = None,
        calendar: Calendar | None = None,
        alternatives: int | None = None,
    ) -> None:
        self._schema = plan_request_schema()
        self.exceptions_dir = exceptions_dir
        self.calendar = calendar
        self.alternatives = alternatives

    def check(self, item: InputItem) -> PlanRequest | Invalid:
        """The request, or why it is invalid: a term written in words is read with
        ``calendar`` (the catalog's, when the caller has it; else the default semester
        calendar) to suggest its code."""
        with use_calendar(self.calendar or active_calendar()):
            return self._check(item)

    def _check(self, item: InputItem) -> PlanRequest | Invalid:
        if item.error is not None or item.text is None:
            return Invalid(None, item.error or "empty")
        try:
            raw = limits.loads(item.text)
        except json.JSONDecodeError as exc:
            where = (
                f"line {exc.lineno} column {exc.colno}" if exc.lineno > 1 else f"column {exc.colno}"
            )
            return Invalid(None, f"not valid JSON at {where}: {exc.msg}")
        except ValueError as exc:  # nested too deeply, a number too long
            return Invalid(None, str(exc))
        if (bad := limits.unicode_problem(raw)) is not None:
            rid = raw.get("request_id") if isinstance(raw, dict) else None
            return Invalid(rid if isinstance(rid, str) and not limits.unicode_problem(rid)
                           else None, bad)  # fmt: skip
        if is_student_record(raw):
            return Invalid(None, NOT_A_PLAN_REQUEST)
        rid = raw.get("request_id") if isinstance(raw, dict) else None
        rid = rid if isinstance(rid, str) else None
        problems = _long_lists(raw) or schema_problems(raw, self._schema)
        if problems:
            return Invalid(rid, joined(problems))
        try:
            request = PlanRequest.model_validate(raw)
            check_request_id(request.request_id)
        except ValidationError as exc:
            errors = exc.errors()
            return Invalid(
                rid,
                joined([pydantic_problem(e, error_path(e["loc"]), self._schema) for e in errors]),
            )
        except UnsafeRequestIdError as exc:
            return Invalid(rid, f"$.request_id: {exc}")
        if self.alternatives is not None and "alternatives" not in request.model_fields_set:
            request = request.model_copy(update={"alternatives": self.alternatives})
        return self._with_exceptions(request)

    def _with_exceptions(self, request: PlanRequest) -> PlanRequest | Invalid:
        if self.exceptions_dir is None:
            return request
        sid = request.student.id
        rid = request.request_id
        if Path(sid).name != sid or sid in (".", ".."):
            return Invalid(
                rid, f"$.student.id: {sid!r} cannot name an exceptions file in "
                f"{str(self.exceptions_dir)!r}; use an id without path separators",
            )  # fmt: skip
        path = self.exceptions_dir / f"{sid}.json"
        if not path.is_file():
            return request
        try:
            student = request.student.with_exceptions(load_exceptions(path))
        except (ExceptionsFileError, StudentRecordError) as exc:
            return Invalid(rid, f"exceptions file {exc.source}: {'; '.join(exc.problems)}")
        return request.model_copy(update={"student": student})


def _long_lists(raw: object) -> list[str]:
    """The record's course lists over their limit, found before the schema checks every
    entry of them (seconds for a line of 17,000 courses)."""
    student = raw.get("student") if isinstance(raw, dict) else None
    if not isinstance(student, dict):
        return []
    limit = LIMITS["record_courses"].value
    return [
        f"$.student.{name}: {too_long(len(value), limit, items=True)}"
        for name in ("courses", "registered")
        if isinstance(value := student.get(name), list) and len(value) > limit
    ]


def input_items(spec: str) -> tuple[Iterator[InputItem], int | None]:
    """The items of ``spec`` (JSONL file, directory, or '-') and their count if cheap."""
    if spec != "-" and not Path(spec).exists():
        raise RequestInputError(
            f"batch input {spec!r} does not exist; pass a JSONL file, a directory of JSON "
            "files, or '-' to read JSON lines from stdin"
        )
    return iter_input(spec), _count(spec)


def _count(spec: str) -> int | None:
    path = Path(spec)
    if spec == "-":
        return None
    if path.is_dir():
        return sum(1 for e in os.scandir(path) if e.name.endswith(".json"))
    count, content = 0, False
    with path.open("rb") as f:
        while data := f.readline(MiB):  # an oversized line is never held whole
            content = content or bool(data.strip())
            if data.endswith(b"\n"):
                count, content = count + content, False
    return count + content


def read_item(path: Path) -> InputItem:
    """One request file as an input item (an unreadable or oversized file is an item with
    its error)."""
    problem = size_problem(path, "request_bytes", _TOO_BIG)
    if problem is not None:
        return InputItem(source=path.name, error=problem)
    try:
        data = path.read_bytes()
    except OSError as exc:
        return InputItem(source=path.name, error=f"cannot read: {exc}")
    try:
        return InputItem(source=path.name, text=data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return InputItem(source=path.name, error=_not_utf8(data, exc, "file"))

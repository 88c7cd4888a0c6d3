"""The console's what-if audit: a request's student audited with a program added or another
catalog year, against the request's own catalog - the worksheet ``advise audit --html``
writes, shown in a sandbox; refused what-ifs say why."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from agents.audit import audit
from agents.catalog import load_catalog, use_catalog
from agents.writing.worksheet import worksheet_html, worksheet_view
from pipeline.console.access import AccessLog
from pipeline.store import CheckpointStore
from tests.console.helpers import make_app, sign_in


@pytest.fixture
def client(root: Path) -> Any:
    client, _ = sign_in(make_app(root), "viewer")
    return client


def _expected(template: Path, root: Path, year: str | None = None) -> str:
    """The worksheet ``advise audit --html`` writes for done-1's student."""
    ctx = CheckpointStore(root / "state").load("done-1")
    assert ctx is not None
    cat = load_catalog(template / "catalog" / "catalog.json")
    student = ctx.request.student
    if year:
        student = student.model_copy(update={"catalog_year": year})
    with use_catalog(cat):
        return worksheet_html(worksheet_view(cat, student, audit(cat, student)))


def test_the_worksheet_is_the_one_advise_audit_writes(
    client: Any, template: Path, root: Path
) -> None:
    r = client.get("/requests/done-1/audit/worksheet")
    assert r.status_code == 200
    assert r.text == _expected(template, root)
    assert r.headers["content-security-policy"].endswith("; sandbox")


def test_switching_the_catalog_year(client: Any, template: Path, root: Path) -> None:
    r = client.get("/requests/done-1/audit/worksheet?year=2025-2026")
    assert r.text == _expected(template, root, "2025-2026")


def test_the_form_lists_the_catalogs_programs_and_frames_the_worksheet(client: Any) -> None:
    html = client.get("/requests/done-1/audit?add=cs-min&year=2026-2027").text
    assert re.search(r'<option value="CS-MIN" selected>CS-MIN - [^<]+ \(minor\)</option>', html)
    assert 'src="/requests/done-1/audit/worksheet?add=cs-min&amp;year=2026-2027" sandbox' in html


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("add=NOPE", "unknown program &#39;NOPE&#39;; the catalog has: CS-MIN"),
        (
            "year=soon",
            "catalog year &#39;soon&#39; cannot be read; write it like &#39;2026-2027&#39;",
        ),
    ],
)
def test_a_what_if_the_catalog_refuses_says_why(client: Any, query: str, message: str) -> None:
    html = client.get(f"/requests/done-1/audit?{query}").text
    assert message in html
    r = client.get(f"/requests/done-1/audit/worksheet?{query}")
    assert r.status_code == 400 and message in r.text


def test_a_what_if_audit_is_a_view_of_the_students_record(client: Any, root: Path) -> None:
    client.get("/requests/done-1/audit")
    [view] = [e for e in AccessLog(root / "state").entries() if e["detail"] == "what-if audit"]
    assert (view["user"], view["request_id"], view["student_id"]) == ("viewer", "done-1", "s-1")


def test_unsafe_ids_are_refused(client: Any) -> None:
    assert client.get("/requests/..%2Fusers/audit").status_code == 404
    assert client.get("/requests/%2Fetc%2Fpasswd/audit/worksheet").status_code == 404

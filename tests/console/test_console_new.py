"""A new request from the console: uploaded as a PlanRequest file or built from the form,
checked as ``advise run`` checks a request file, then run on the worker pool."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pipeline.console.access import AccessLog
from pipeline.store import CheckpointStore
from tests.console.helpers import sign_in
from tests.fake_stages import STUDENT, request_dict

REPO = Path(__file__).resolve().parents[2]


def _post(app: Any, role: str = "advisor", **kw: Any) -> Any:
    client, token = sign_in(app, role)
    return client.post("/new", data={"csrf": token, **kw.pop("data", {})}, **kw)


def _file(value: object, name: str = "r.json") -> tuple[str, bytes, str]:
    data = value if isinstance(value, bytes) else json.dumps(value).encode("utf-8")
    return (name, data, "application/json")


@pytest.mark.parametrize(
    ("files", "data", "message"),
    [
        ({}, {}, "upload a request JSON file, or a student record (JSON) or transcript (PESC XML"),
        (
            {"request_file": _file(b"{nope")},
            {},
            "request file &#39;r.json&#39;: not valid JSON at column 2",
        ),
        ({"request_file": _file(STUDENT)}, {}, "this is a student record, not a plan request"),
        ({"request_file": _file(request_dict("../x"))}, {}, "$.request_id"),
        (
            {"request_file": _file({**request_dict("x"), "student": {**STUDENT, "gpa": "high"}})},
            {},
            "$.student.gpa",
        ),
        (
            {"student_file": _file(b"[1,")},
            {"request_id": "x"},
            "the student record is not valid JSON",
        ),
        ({"request_file": _file(b"\xff\xfe")}, {}, "is not UTF-8 text"),
    ],
)
def test_a_request_that_cannot_run_is_refused_with_the_reason(
    app: Any, root: Path, files: dict[str, Any], data: dict[str, str], message: str
) -> None:
    r = _post(app, files=files, data=data)
    assert r.status_code == 400
    assert message in r.text
    assert app.state.jobs.current("x") is None
    assert not (root / "state" / ".console" / "requests").exists()


def test_an_id_already_in_the_workspace_is_refused(app: Any) -> None:
    r = _post(app, files={"request_file": _file(request_dict("done-1"))})
    assert r.status_code == 409
    assert "a request with id &#39;done-1&#39; exists in this workspace" in r.text


def test_a_viewer_cannot_start_a_request(app: Any) -> None:
    r = _post(app, "viewer", files={"request_file": _file(request_dict("new-1"))})
    assert r.status_code == 403
    assert app.state.jobs.current("new-1") is None


def test_the_form_is_for_advisors(app: Any) -> None:
    client, _ = sign_in(app, "advisor")
    html = client.get("/new").text
    assert 'enctype="multipart/form-data"' in html and 'name="student_file"' in html
    viewer, _ = sign_in(app, "viewer")
    assert viewer.get("/new").status_code == 403


@pytest.mark.slow
@pytest.mark.parametrize("how", ["upload", "form"])
def test_a_new_request_is_kept_and_run(
    app: Any, root: Path, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    if how == "upload":
        r = _post(app, files={"request_file": _file(request_dict("new-1", "plan my degree"))})
    else:
        r = _post(
            app,
            files={"student_file": _file(STUDENT)},
            data={"request_id": "new-1", "text": "plan my degree", "add_programs": "CS-MIN"},
        )
    assert "new-1: new request started" in r.text
    kept = json.loads((root / "state" / ".console" / "requests" / "new-1.json").read_text())
    assert (kept["request_id"], kept["text"], kept["student"]["id"]) == (
        "new-1",
        "plan my degree",
        "s-1",
    )
    app.state.jobs.drain()
    job = app.state.jobs.current("new-1")
    assert (job.kind, job.exit_code) == ("run", 0), job.output
    ctx = CheckpointStore(root / "state").load("new-1")
    assert ctx is not None and ctx.state.value == "done"
    [run] = [e for e in AccessLog(root / "state").entries() if e["action"] == "run"]
    assert (run["user"], run["request_id"], run["detail"]) == ("advisor", "new-1", "new request")


def test_an_upload_without_the_csrf_token_is_refused(app: Any) -> None:
    client, _ = sign_in(app, "advisor")
    r = client.post("/new", files={"request_file": _file(request_dict("new-1"))})
    assert r.status_code == 403
    assert app.state.jobs.current("new-1") is None


TRANSCRIPTS = REPO / "demos" / "transcripts"


@pytest.mark.parametrize(
    ("name", "data", "fields", "message"),
    [
        ("t.txt", b"x", {}, "transcript &#39;t.txt&#39;: name it .xml (PESC) or .csv"),
        (
            "t.csv",
            (TRANSCRIPTS / "econ-junior.csv").read_bytes(),
            {},
            "transcript &#39;t.csv&#39;: 3 problems\n  - no student id",
        ),
        (
            "t.csv",
            b"term,course,grade,credits\nFall 2024,15-112,A,9\nFall 2024,XX-999,A,9\n",
            {"student_id": "s-9", "student_name": "Kim", "programs": "ECON-BA"},
            "left out, fix the transcript first: ",
        ),
    ],
)
def test_a_transcript_that_cannot_make_a_record_is_refused(
    app: Any, name: str, data: bytes, fields: dict[str, str], message: str
) -> None:
    r = _post(
        app,
        files={"transcript_file": (name, data, "text/plain")},
        data={"request_id": "new-1", **fields},
    )
    assert r.status_code == 400
    assert message in r.text
    assert app.state.jobs.current("new-1") is None


@pytest.mark.slow
def test_a_request_from_a_pesc_transcript(
    app: Any, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    xml = (TRANSCRIPTS / "cs-junior-ap.xml").read_bytes()
    r = _post(
        app,
        files={"transcript_file": ("cs-junior-ap.xml", xml, "application/xml")},
        data={"request_id": "from-pesc", "text": "plan my degree"},
    )
    assert "from-pesc: new request started" in r.text
    kept = json.loads((root / "state" / ".console" / "requests" / "from-pesc.json").read_text())
    from agents.catalog import load_catalog
    from agents.catalog.transcript_import import import_transcript

    expected = import_transcript(TRANSCRIPTS / "cs-junior-ap.xml", load_catalog(None)).record
    assert kept["student"]["id"] == expected.id and len(kept["student"]["courses"]) == len(
        expected.courses
    )
    app.state.jobs.drain()
    job = app.state.jobs.current("from-pesc")
    assert job.exit_code == 0, job.output

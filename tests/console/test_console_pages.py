"""The console's pages: the dashboard (columns, filters, search, pages, the summary index),
a request's page and report, decisions, the access log, and ids that are not file names."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from pipeline.cli import main
from pipeline.console.access import AccessLog
from pipeline.console.index import RequestIndex
from pipeline.store import CheckpointStore
from tests.console.helpers import EVIL_NAME, sign_in


def _cells(html: str) -> list[list[str]]:
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", body, re.S)
    return [
        [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
        for row in rows
    ]


def test_the_dashboard_lists_every_request_with_its_columns(app: Any, root: Path) -> None:
    client, _ = sign_in(app, "viewer")
    rows = _cells(client.get("/").text)
    catalog = rows[0][6]
    assert catalog.endswith("/catalog/catalog.json")  # the template's: the copy keeps its path
    assert [r[0] for r in rows] == ["done-1", "evil-name", "stopped-1", "waits-1"]
    assert rows[0] == ["done-1", "Ada", "CS-MIN", "Finished", "Ready", "S2027", catalog, rows[0][7]]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", rows[0][7])
    assert rows[2][3:6] == ["Unfinished (at intake)", "", ""]
    assert rows[3][3] == "Needs approval"


def test_a_student_name_with_markup_is_shown_as_text(app: Any) -> None:
    client, _ = sign_in(app, "viewer")
    for page in (client.get("/").text, client.get("/requests/evil-name").text):
        assert "<script>" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt; Eve" in page


@pytest.mark.parametrize(
    ("query", "ids"),
    [
        ("state=done", ["done-1", "evil-name"]),
        ("state=awaiting_approval", ["waits-1"]),
        ("q=EVE", ["evil-name"]),
        ("q=stopped", ["stopped-1"]),
        ("q=s-1", None),
        ("catalog=elsewhere", []),
        ("state=done&q=done", ["done-1"]),
    ],
)
def test_the_dashboard_filters_and_searches(app: Any, query: str, ids: list[str] | None) -> None:
    client, _ = sign_in(app, "viewer")
    rows = _cells(client.get(f"/?{query}").text)
    found = [r[0] for r in rows if len(r) > 1]
    assert found == (ids if ids is not None else ["done-1", "evil-name", "stopped-1", "waits-1"])


def test_the_dashboard_pages(root: Path, app: Any) -> None:
    index = RequestIndex(root / "state")
    page = index.page(per_page=3, page=2)
    assert ([r["id"] for r in page.rows], page.total, page.page, page.pages) == (
        ["waits-1"],
        4,
        2,
        2,
    )
    assert index.page(per_page=3, page=99).page == 2  # past the end: the last page
    client, _ = sign_in(app, "viewer")
    html = client.get("/?state=done&page=1").text
    assert "Page 1 of 1" in html


def test_the_index_reads_only_the_checkpoints_that_changed(root: Path) -> None:
    index = RequestIndex(root / "state")
    index.refresh()
    assert index.reread == 4
    assert (root / "state" / ".console" / "index.json").is_file()
    again = RequestIndex(root / "state")  # a new server reads the kept index, not 4 files
    again.refresh()
    assert again.reread == 0
    store = CheckpointStore(root / "state")
    ctx = store.load("done-1")
    assert ctx is not None
    student = ctx.request.student.model_copy(update={"name": "Ada Lovelace"})
    store.save(
        ctx.model_copy(update={"request": ctx.request.model_copy(update={"student": student})})
    )
    (root / "state" / "stopped-1.json").unlink()
    rows = again.refresh()
    assert again.reread == 1
    assert [(r["id"], r["student"]) for r in rows][:2] == [
        ("done-1", "Ada Lovelace"),
        ("evil-name", EVIL_NAME),
    ]
    assert "stopped-1" not in [r["id"] for r in rows]


def test_a_broken_index_file_is_rebuilt_from_the_checkpoints(root: Path) -> None:
    RequestIndex(root / "state").refresh()
    (root / "state" / ".console" / "index.json").write_text("{not json", encoding="utf-8")
    index = RequestIndex(root / "state")
    assert len(index.refresh()) == 4 and index.reread == 4


def test_the_request_page_shows_what_it_waits_for_and_the_decision_form(app: Any) -> None:
    client, _ = sign_in(app, "advisor")
    html = client.get("/requests/waits-1").text
    assert "LOAD-OVERLOAD (S2027): awaiting advisor approval: Spring 2027 has 61 units" in html
    assert 'name="verdict" value="approve"' in html
    viewer, _ = sign_in(app, "viewer")
    assert 'name="verdict"' not in viewer.get("/requests/waits-1").text
    assert "Only an advisor can decide." in viewer.get("/requests/waits-1").text


def test_the_request_page_shows_a_finished_run(app: Any) -> None:
    client, _ = sign_in(app, "viewer")
    html = client.get("/requests/done-1").text
    assert "<h2>Negotiation</h2>" in html
    assert re.search(r"<td>1</td><td>.*?</td><td>.*?</td><td>rejected</td>", html)
    assert 'src="/requests/done-1/report" sandbox' in html


def test_the_report_is_served_in_a_sandbox(app: Any, root: Path) -> None:
    client, _ = sign_in(app, "viewer")
    r = client.get("/requests/done-1/report")
    assert r.content == (root / "out" / "done-1.html").read_bytes()
    assert r.headers["content-security-policy"].endswith("; sandbox")
    assert client.get("/requests/waits-1/report").status_code == 404


@pytest.mark.parametrize(
    "path",
    [
        "/requests/..%2F..%2Fetc%2Fpasswd",
        "/requests/%2Fetc%2Fpasswd",
        "/requests/../users.json",
        "/requests/%2E%2E",
        "/requests/.console",
        "/requests/con",
        "/requests/a%00b",
        "/requests/..%2Fstate%2Fdone-1/report",
        "/requests/%2e%2e/report",
        "/requests/no-such-id",
    ],
)
def test_ids_that_are_not_safe_file_names_are_refused(app: Any, path: str) -> None:
    client, token = sign_in(app, "advisor")
    r = client.get(path, follow_redirects=False)
    assert r.status_code == 404
    assert "root:" not in r.text and "argon2" not in r.text
    post = client.post(
        path.removesuffix("/report") + "/run",
        data={"kind": "resume", "csrf": token},
        follow_redirects=False,
    )
    assert post.status_code in (404, 405)


def test_an_approval_records_the_signed_in_user_and_is_logged(app: Any, root: Path) -> None:
    client, token = sign_in(app, "advisor")
    r = client.post(
        "/requests/waits-1/decide",
        data={
            "csrf": token,
            "rule": "LOAD-OVERLOAD",
            "verdict": "approve",
            "reason": "strong record",
        },
    )
    assert r.status_code == 200
    saved = json.loads((root / "state" / "waits-1.json").read_text(encoding="utf-8"))
    [item] = saved["approvals"]
    assert (item["decision"], item["by"], item["reason"]) == (
        "approved",
        "advisor",
        "strong record",
    )
    assert "LOAD-OVERLOAD approved by advisor" in r.text
    assert "LOAD-OVERLOAD (S2027): approved by advisor on" in r.text
    [decision] = [e for e in AccessLog(root / "state").entries() if e["action"] == "approve"]
    assert decision["user"] == "advisor" and decision["request_id"] == "waits-1"
    assert decision["student_id"] == "s-1" and decision["detail"] == "LOAD-OVERLOAD: strong record"


def test_a_decision_without_a_reason_is_refused(app: Any, root: Path) -> None:
    client, token = sign_in(app, "advisor")
    r = client.post(
        "/requests/waits-1/decide",
        data={"csrf": token, "rule": "LOAD-OVERLOAD", "verdict": "deny", "reason": "  "},
    )
    assert "a decision needs a reason: say why, in a sentence" in r.text
    saved = json.loads((root / "state" / "waits-1.json").read_text(encoding="utf-8"))
    assert [a["decision"] for a in saved["approvals"]] == ["pending"]


def test_deciding_a_rule_that_is_not_pending_says_what_is(app: Any) -> None:
    client, token = sign_in(app, "advisor")
    r = client.post(
        "/requests/done-1/decide",
        data={"csrf": token, "rule": "LOAD-OVERLOAD", "verdict": "approve", "reason": "x"},
    )
    assert "it is in state &#39;done&#39;, not awaiting approval" in r.text


def test_every_view_of_a_students_request_is_in_the_access_log(app: Any, root: Path) -> None:
    client, _ = sign_in(app, "viewer")
    client.get("/requests/done-1")
    client.get("/requests/done-1/report")
    client.get("/")
    views = [e for e in AccessLog(root / "state").entries() if e["action"] == "view"]
    assert [(e["user"], e["request_id"], e["detail"]) for e in views] == [
        ("viewer", "done-1", ""),
        ("viewer", "done-1", "report"),
    ]
    assert views[0]["student_id"] == "s-1" and views[0]["role"] == "viewer"


def test_an_admin_reads_and_exports_the_access_log(app: Any, root: Path) -> None:
    AccessLog(root / "state").record("=HYPERLINK(1)", "viewer", "view", request_id="done-1")
    client, _ = sign_in(app, "admin")
    assert "=HYPERLINK(1)" in client.get("/access").text
    r = client.get("/access.csv")
    assert r.headers["content-disposition"] == 'attachment; filename="access-log.csv"'
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert list(rows[0]) == ["at", "user", "role", "action", "request_id", "student_id", "detail"]
    assert [r["user"] for r in rows if r["action"] == "view"] == ["'=HYPERLINK(1)"]
    assert [r["action"] for r in rows][-2:] == ["login", "dashboard"]  # sign_in opens /


def test_an_admin_adds_and_removes_accounts_from_the_console(app: Any, root: Path) -> None:
    client, token = sign_in(app, "admin")
    r = client.post(
        "/users",
        data={
            "csrf": token,
            "action": "add",
            "name": "lee",
            "role": "advisor",
            "password": "x" * 12,
        },
    )
    assert "saved lee (advisor)" in r.text
    r = client.post("/users", data={"csrf": token, "action": "remove", "name": "admin"})
    assert "you cannot remove your own account" in r.text
    r = client.post("/users", data={"csrf": token, "action": "remove", "name": "lee"})
    assert "removed lee" in r.text


def test_a_checkpoint_that_does_not_parse_is_reported_not_shown(app: Any, root: Path) -> None:
    (root / "state" / "broken.json").write_text("{", encoding="utf-8")
    client, _ = sign_in(app, "viewer")
    assert _cells(client.get("/").text)[0][:4] == ["broken", "", "", "Unreadable checkpoint"]
    r = client.get("/requests/broken")
    assert r.status_code == 409 and "broken.json" in r.text


def test_serve_refuses_a_remote_address_without_allow_remote(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["serve", "--host", "0.0.0.0"]) == 2
    err = capsys.readouterr().err
    assert "--host '0.0.0.0' is not a loopback address" in err
    assert "put a TLS reverse proxy (nginx, Caddy) in front" in err


@pytest.mark.parametrize("module", ["starlette", "argon2"])
def test_serve_without_the_console_packages_says_how_to_install_them(
    module: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, module, None)  # as if it were not installed
    assert main(["serve", "--state-dir", "no-such-state"]) == 2
    err = capsys.readouterr().err
    assert "the web console needs the" in err
    assert "install the console extra: pip install -e '.[console]'" in err


def test_status_and_outcome_words_are_the_batch_indexs() -> None:
    from pipeline.console.index import outcome_words, state_words

    assert [state_words(s) for s in ("done", "awaiting_approval", "failed", "scheduling")] == [
        "Finished",
        "Needs approval",
        "Failed",
        "Unfinished (at scheduling)",
    ]
    assert outcome_words("infeasible", "proven") == "Cannot be planned as asked"
    assert outcome_words("infeasible", "timed_out") == "No plan in time"
    assert outcome_words("approved_with_risks", None) == "Ready, with risks"
    assert outcome_words(None, None) == ""

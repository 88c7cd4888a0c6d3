"""The console's door: signing in, roles enforced on every route, CSRF on every POST, the
session cookie, and the accounts (``advise users``)."""

from __future__ import annotations

import io
import json
import stat
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from pipeline.cli import main
from pipeline.console.auth import safe_next
from pipeline.console.errors import UserError
from pipeline.console.users import UserStore, session_secret
from tests.console.helpers import PASSWORD, copy_template, csrf_of, make_app, sign_in

GETS = [
    "/",
    "/requests/done-1",
    "/requests/done-1/report",
    "/requests/done-1/audit",
    "/requests/done-1/audit/worksheet",
    "/catalogs",
    "/catalogs/manage",
    "/access",
    "/access.csv",
    "/users",
]
POSTS = {
    "/requests/waits-1/decide": {"rule": "LOAD-OVERLOAD", "verdict": "approve", "reason": "ok"},
    "/requests/stopped-1/run": {"kind": "resume"},
    "/users": {"name": "mallory", "role": "admin", "password": "x" * 12},
    "/catalogs/choose": {"key": "workspace"},
    "/catalogs/upload": {"name": "c"},
    "/logout": {},
}
# The least role each route needs.
NEEDS = {
    "/": "viewer",
    "/requests/done-1": "viewer",
    "/requests/done-1/report": "viewer",
    "/requests/done-1/audit": "viewer",
    "/requests/done-1/audit/worksheet": "viewer",
    "/catalogs": "viewer",
    "/catalogs/manage": "admin",
    "/access": "admin",
    "/access.csv": "admin",
    "/users": "admin",
}


@pytest.mark.parametrize("path", GETS)
def test_a_visitor_who_is_not_signed_in_is_sent_to_the_login_page(app: Any, path: str) -> None:
    r = TestClient(app).get(path, follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] == f"/login?next={path}"


@pytest.mark.parametrize("path", [p for p in POSTS if p != "/logout"])
def test_a_post_without_a_session_is_refused(app: Any, path: str) -> None:
    r = TestClient(app).post(path, data=POSTS[path], follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] == f"/login?next={path}"


@pytest.mark.parametrize("path", list(POSTS))
@pytest.mark.parametrize("token", [None, "wrong"])
def test_every_post_needs_the_sessions_csrf_token(app: Any, path: str, token: str | None) -> None:
    client, _ = sign_in(app, "admin")
    data = dict(POSTS[path]) if token is None else {**POSTS[path], "csrf": token}
    r = client.post(path, data=data, follow_redirects=False)
    assert r.status_code == 403
    assert ("missing CSRF token" if token is None else "wrong CSRF token") in r.text
    assert client.get("/", follow_redirects=False).status_code == 200  # still signed in


def test_the_login_form_needs_its_csrf_token_too(app: Any) -> None:
    client = TestClient(app)
    client.get("/login")
    r = client.post("/login", data={"name": "admin", "password": PASSWORD})
    assert r.status_code == 403


@pytest.mark.parametrize("role", ["viewer", "advisor", "admin"])
@pytest.mark.parametrize("path", GETS)
def test_each_role_reads_what_it_may_and_nothing_more(app: Any, role: str, path: str) -> None:
    client, _ = sign_in(app, role)
    order = ["viewer", "advisor", "admin"]
    allowed = order.index(role) >= order.index(NEEDS[path])
    r = client.get(path, follow_redirects=False)
    assert r.status_code == (200 if allowed else 403)
    if not allowed:
        assert f"this needs the admin role; {role} is a {role}" in r.text


@pytest.mark.parametrize("path", ["/requests/waits-1/decide", "/requests/stopped-1/run"])
def test_a_viewer_cannot_decide_or_run(root: Path, app: Any, path: str) -> None:
    client, token = sign_in(app, "viewer")
    r = client.post(path, data={**POSTS[path], "csrf": token}, follow_redirects=False)
    assert r.status_code == 403
    assert "this needs the advisor role; viewer is a viewer" in r.text
    state = json.loads((root / "state" / "waits-1.json").read_text(encoding="utf-8"))
    assert [a["decision"] for a in state["approvals"]] == ["pending"]
    assert app.state.jobs.current("stopped-1") is None


def test_a_wrong_password_is_refused_and_logged(app: Any, root: Path) -> None:
    client = TestClient(app)
    token = csrf_of(client.get("/login").text)
    r = client.post("/login", data={"name": "admin", "password": "nope", "csrf": token})
    assert r.status_code == 401
    assert "unknown user or wrong password" in r.text
    assert client.get("/", follow_redirects=False).status_code == 303
    entries = list(app.state.access.entries())
    assert any(e["action"] == "login_failed" and e["user"] == "admin" for e in entries)


def test_after_signing_in_the_visitor_goes_where_they_were_going(app: Any) -> None:
    client = TestClient(app)
    token = csrf_of(client.get("/login?next=/requests/done-1").text)
    r = client.post(
        "/login",
        data={"name": "viewer", "password": PASSWORD, "csrf": token, "next": "/requests/done-1"},
        follow_redirects=False,
    )
    assert r.headers["location"] == "/requests/done-1"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("/requests/a", "/requests/a"),
        ("//evil.example/x", "/"),
        ("https://evil.example", "/"),
        ("/\\evil.example", "/"),
        ("/x:y", "/"),
        (None, "/"),
        ("", "/"),
    ],
)
def test_after_signing_in_only_a_path_on_this_site_is_followed(value: Any, expected: str) -> None:
    assert safe_next(value) == expected


def test_the_session_cookie_is_signed_httponly_and_samesite(app: Any) -> None:
    client = TestClient(app)
    token = csrf_of(client.get("/login").text)
    r = client.post(
        "/login",
        data={"name": "viewer", "password": PASSWORD, "csrf": token},
        follow_redirects=False,
    )
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie
    assert "secure" not in cookie  # plain HTTP on loopback; --https adds it
    forged = TestClient(app)
    forged.cookies.set("advise_console", cookie.split(";")[0].split("=", 1)[1][:-3] + "abc")
    assert forged.get("/", follow_redirects=False).status_code == 303


def test_behind_https_the_cookie_is_secure(root: Path) -> None:
    client = TestClient(make_app(root, https=True), base_url="https://testserver")
    token = csrf_of(client.get("/login").text)
    r = client.post(
        "/login",
        data={"name": "viewer", "password": PASSWORD, "csrf": token},
        follow_redirects=False,
    )
    assert "secure" in r.headers["set-cookie"].lower()


def test_a_removed_account_is_signed_out_at_once(template: Path, tmp_path: Path) -> None:
    copy_template(template, tmp_path)
    app = make_app(tmp_path)
    client, _ = sign_in(app, "advisor")
    UserStore(tmp_path / "state").remove("advisor")
    assert client.get("/", follow_redirects=False).status_code == 303


def test_logout_ends_the_session(app: Any) -> None:
    client, token = sign_in(app, "viewer")
    r = client.post("/logout", data={"csrf": token}, follow_redirects=False)
    assert r.headers["location"] == "/login"
    assert client.get("/", follow_redirects=False).status_code == 303


def test_pages_send_security_headers(app: Any) -> None:
    r = TestClient(app).get("/login")
    assert "script-src 'none'" in r.headers["content-security-policy"]
    assert r.headers["x-frame-options"] == "SAMEORIGIN"
    assert r.headers["x-content-type-options"] == "nosniff"


def test_users_command_adds_lists_and_removes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    state = str(tmp_path / "state")
    monkeypatch.setattr("sys.stdin", io.StringIO("a long password\n"))
    assert (
        main(
            [
                "users",
                "add",
                "rivera",
                "--role",
                "advisor",
                "--password-stdin",
                "--state-dir",
                state,
            ]
        )
        == 0
    )
    assert main(["users", "list", "--state-dir", state]) == 0
    out = capsys.readouterr().out
    assert "rivera\tadvisor\n" in out
    path = tmp_path / "state" / ".console" / "users.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    saved = json.loads(path.read_text(encoding="utf-8"))["users"]["rivera"]
    assert saved["role"] == "advisor" and saved["hash"].startswith("$argon2")
    assert "a long password" not in path.read_text(encoding="utf-8")
    assert UserStore(tmp_path / "state").verify("rivera", "a long password") is not None
    assert UserStore(tmp_path / "state").verify("rivera", "a long passworD") is None
    assert main(["users", "remove", "rivera", "--state-dir", state]) == 0
    assert UserStore(tmp_path / "state").list() == []


@pytest.mark.parametrize(
    ("name", "role", "password", "message"),
    [
        ("../x", "viewer", "x" * 10, "user name '../x' is not allowed"),
        ("ok", "root", "x" * 10, "unknown role 'root'; choose one of viewer, advisor, admin"),
        ("ok", "viewer", "short", "the password for 'ok' is too short; use at least 8 characters"),
    ],
)
def test_a_bad_account_is_refused_with_the_reason(
    tmp_path: Path, name: str, role: str, password: str, message: str
) -> None:
    with pytest.raises(UserError) as err:
        UserStore(tmp_path).add(name, role, password)
    assert message in str(err.value)


def test_adding_an_existing_user_needs_replace(tmp_path: Path) -> None:
    store = UserStore(tmp_path)
    store.add("a", "viewer", "x" * 10)
    with pytest.raises(UserError, match="user 'a' exists; pass --replace"):
        store.add("a", "admin", "y" * 10)
    assert store.add("a", "admin", "y" * 10, replace=True).role == "admin"


def test_the_session_secret_is_made_once_and_private(tmp_path: Path) -> None:
    first = session_secret(tmp_path)
    assert session_secret(tmp_path) == first and len(first) >= 32
    assert stat.S_IMODE((tmp_path / ".console" / "secret").stat().st_mode) == 0o600


def test_signing_in_starts_a_fresh_session_with_a_new_csrf_token(app: Any) -> None:
    client = TestClient(app)
    before = csrf_of(client.get("/login").text)
    client.post("/login", data={"name": "viewer", "password": PASSWORD, "csrf": before})
    after = csrf_of(client.get("/").text)
    assert after != before
    r = client.post("/logout", data={"csrf": before}, follow_redirects=False)
    assert r.status_code == 403

"""The admin's catalog pages: every catalog of the workspace with what ``advise catalog
validate`` says of it, uploads checked the same way and stored only when valid (never under
a name that is a path), and the catalog new requests from /new use - each action in the
access log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pipeline.console.access import AccessLog
from pipeline.console.catalogs import CatalogShelf, catalog_key, validate
from pipeline.console.jobs import Job, Workspace, command
from pipeline.store import CheckpointStore
from pipeline.workspace import BUNDLED, source_of
from tests.console.helpers import make_app, sign_in
from tests.fake_stages import STUDENT

REPO = Path(__file__).resolve().parents[2]


def _catalog_bytes(root: Path) -> bytes:
    return (root / "catalog" / "catalog.json").read_bytes()


def _upload(client: Any, token: str, filename: str, data: bytes, **form: str) -> Any:
    files = {"catalog_file": (filename, data, "application/json")}
    return client.post("/catalogs/upload", data={"csrf": token, **form}, files=files)


def _actions(root: Path) -> list[tuple[str, str, str]]:
    entries = AccessLog(root / "state").entries()
    return [(e["user"], e["action"], e["detail"]) for e in entries if "catalog" in e["action"]]


def test_the_admin_page_lists_every_catalog_with_its_validation(app: Any, root: Path) -> None:
    client, _ = sign_in(app, "admin")
    html = client.get("/catalogs/manage").text
    [used] = app.state.index.catalog_sources()
    for source in (BUNDLED, used):
        checked = validate(source)
        assert checked.ok and f'href="/catalogs/{checked.key}"' in html
        assert f"<td>{checked.schema_version}</td>" in html
        assert f"<td>{checked.counts['courses']}</td>" in html
    assert "the workspace's setting: <strong>bundled sample</strong>" in html


def test_the_configured_catalog_is_listed_even_before_a_request_used_it(root: Path) -> None:
    other = root / "other.json"
    other.write_bytes(_catalog_bytes(root))
    client, _ = sign_in(make_app(root, catalog=str(other)), "admin")
    html = client.get("/catalogs/manage").text
    assert f'href="/catalogs/{catalog_key(str(other))}"' in html
    assert f"the workspace's setting: <strong>{other}</strong>" in html


def test_a_broken_catalog_is_listed_with_its_errors(root: Path) -> None:
    broken = root / "broken.json"
    raw = json.loads(_catalog_bytes(root))
    raw["courses"][0]["units"] = "lots"
    broken.write_text(json.dumps(raw), encoding="utf-8")
    client, token = sign_in(make_app(root, catalog=str(broken)), "admin")
    html = client.get("/catalogs/manage").text
    assert "1 error<ul><li>$.courses[0].units: expected a number, got &#39;lots&#39;" in html
    r = client.post("/catalogs/choose", data={"csrf": token, "key": catalog_key(str(broken))})
    assert r.status_code == 409 and "has errors; fix them" in r.text


def test_a_valid_upload_is_stored_and_listed(app: Any, root: Path) -> None:
    client, token = sign_in(app, "admin")
    r = _upload(client, token, "fall-2027.json", _catalog_bytes(root))
    assert "stored fall-2027: 0 warnings" in r.text
    stored = root / "state" / ".console" / "catalogs" / "fall-2027.json"
    assert stored.read_bytes() == _catalog_bytes(root)
    assert "fall-2027 (uploaded)" in r.text
    viewer, _ = sign_in(app, "viewer")  # the browser shows it to everyone
    assert f'href="/catalogs/{catalog_key(str(stored))}"' in viewer.get("/catalogs").text
    assert _actions(root) == [("admin", "catalog_upload", "fall-2027.json as fall-2027")]


def test_an_invalid_upload_is_refused_with_every_problem_and_not_stored(
    app: Any, root: Path
) -> None:
    raw = json.loads(_catalog_bytes(root))
    raw["courses"][0]["units"] = "lots"
    raw["courses"][1]["title"] = 7
    client, token = sign_in(app, "admin")
    r = _upload(client, token, "bad.json", json.dumps(raw).encode("utf-8"))
    assert r.status_code == 400
    assert "catalog file &#39;bad.json&#39; was not stored" in r.text
    assert "<li>$.courses[0].units: expected a number, got &#39;lots&#39;</li>" in r.text
    assert "$.courses[1].title" in r.text
    assert not (root / "state" / ".console" / "catalogs" / "bad.json").exists()
    [(user, action, detail)] = _actions(root)
    assert (user, action) == ("admin", "catalog_refused") and detail.startswith("bad.json")


def test_an_upload_that_is_not_json_names_the_upload_not_a_temporary_file(
    app: Any, root: Path
) -> None:
    client, token = sign_in(app, "admin")
    r = _upload(client, token, "notes.json", b"{not json")
    assert r.status_code == 400
    assert "catalog file &#39;notes.json&#39;" in r.text and "advise-catalog-" not in r.text


@pytest.mark.parametrize(
    ("filename", "name"),
    [
        ("../../evil.json", ""),
        ("ok.json", "../evil"),
        ("ok.json", "/etc/passwd"),
        ("ok.json", "a/b"),
        ("ok.json", ".hidden"),
        ("ok.json", "x" * 65),
        ("..%2Fevil.json", ""),
    ],
)
def test_an_upload_never_names_a_path(app: Any, root: Path, filename: str, name: str) -> None:
    client, token = sign_in(app, "admin")
    r = _upload(client, token, filename, _catalog_bytes(root), name=name)
    assert r.status_code == 400
    assert "use letters, digits, &#39;-&#39; and &#39;_&#39; only" in r.text
    stored = root / "state" / ".console" / "catalogs"
    assert not stored.exists() or list(stored.iterdir()) == []
    assert not (root / "state" / "evil.json").exists() and not (root / "evil.json").exists()


def test_a_stored_catalog_is_never_replaced(app: Any, root: Path) -> None:
    client, token = sign_in(app, "admin")
    _upload(client, token, "c.json", _catalog_bytes(root))
    other = json.loads(_catalog_bytes(root))
    other["catalog_year"] = "2027-2028"
    r = _upload(client, token, "c.json", json.dumps(other).encode("utf-8"))
    assert r.status_code == 409 and "already stored" in r.text
    assert (root / "state" / ".console" / "catalogs" / "c.json").read_bytes() == _catalog_bytes(
        root
    )


def test_an_upload_larger_than_the_limit_is_refused(
    app: Any, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pipeline.console.routes_catalog_admin.MAX_BYTES", 100)
    monkeypatch.setattr("pipeline.console.catalogs.MAX_BYTES", 100)
    client, token = sign_in(app, "admin")
    r = _upload(client, token, "big.json", _catalog_bytes(root))
    assert r.status_code == 400 and "is larger than 100 bytes" in r.text


@pytest.mark.parametrize("role", ["viewer", "advisor"])
def test_only_an_admin_manages_catalogs(app: Any, root: Path, role: str) -> None:
    client, token = sign_in(app, role)
    assert client.get("/catalogs/manage").status_code == 403
    r = _upload(client, token, "c.json", _catalog_bytes(root))
    assert r.status_code == 403 and "this needs the admin role" in r.text
    key = catalog_key(str(root / "catalog" / "catalog.json"))
    assert client.post("/catalogs/choose", data={"csrf": token, "key": key}).status_code == 403
    assert not (root / "state" / ".console" / "catalogs").exists()
    assert CatalogShelf(root / "state", None).chosen() is None


@pytest.mark.parametrize("key", ["0123456789ab", "../../etc/passwd", "/etc/passwd", ""])
def test_only_a_listed_catalog_can_be_chosen(app: Any, root: Path, key: str) -> None:
    client, token = sign_in(app, "admin")
    r = client.post("/catalogs/choose", data={"csrf": token, "key": key})
    assert r.status_code == 404 and "no such catalog in this workspace" in r.text
    assert CatalogShelf(root / "state", None).chosen() is None


def test_the_chosen_catalog_is_kept_in_the_consoles_settings_and_wins(app: Any, root: Path) -> None:
    client, token = sign_in(app, "admin")
    _upload(client, token, "next-year.json", _catalog_bytes(root))
    stored = str(root / "state" / ".console" / "catalogs" / "next-year.json")
    r = client.post("/catalogs/choose", data={"csrf": token, "key": catalog_key(stored)})
    assert f"new requests use {stored}" in r.text
    settings = json.loads((root / "state" / ".console" / "settings.json").read_text())
    assert settings == {"catalog": stored}
    advisor, _ = sign_in(app, "advisor")
    assert (
        f"New requests run with the catalog <strong>{stored}</strong>." in advisor.get("/new").text
    )
    configured = CatalogShelf(root / "state", str(root / "catalog" / "catalog.json"))
    assert configured.for_new_requests() == stored  # the console's choice wins
    r = client.post("/catalogs/choose", data={"csrf": token, "key": "workspace"})
    assert "new requests use the workspace&#39;s catalog setting" in r.text
    assert configured.for_new_requests() == str(root / "catalog" / "catalog.json")
    assert [a for _, a, _ in _actions(root)] == [
        "catalog_upload",
        "catalog_choose",
        "catalog_choose",
    ]


def test_a_new_requests_run_is_given_the_chosen_catalog(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "s", tmp_path / "o", tmp_path / "l", catalog="office.json")
    new = Job("r-1", "run", "advisor", request_file=tmp_path / "r.json", catalog="/c/next.json")
    cmd = command(ws, new)
    assert cmd[cmd.index("--catalog") + 1] == "/c/next.json"
    resume = Job("r-1", "resume", "advisor", catalog="/c/next.json")  # its own catalog stays
    cmd = command(ws, resume)
    assert cmd[cmd.index("--catalog") + 1] == "office.json"


@pytest.mark.slow
def test_a_request_from_new_runs_with_the_chosen_catalog(
    app: Any, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    admin, token = sign_in(app, "admin")
    _upload(admin, token, "chosen.json", _catalog_bytes(root))
    stored = root / "state" / ".console" / "catalogs" / "chosen.json"
    admin.post("/catalogs/choose", data={"csrf": token, "key": catalog_key(str(stored))})
    advisor, token = sign_in(app, "advisor")
    files = {"student_file": ("s.json", json.dumps(STUDENT).encode("utf-8"), "application/json")}
    data = {"csrf": token, "request_id": "new-1", "text": "plan my degree"}
    assert "new-1: new request started" in advisor.post("/new", data=data, files=files).text
    app.state.jobs.drain()
    job = app.state.jobs.current("new-1")
    assert job.exit_code == 0, job.output
    ctx = CheckpointStore(root / "state").load("new-1")
    assert ctx is not None and ctx.catalog_source == source_of(stored)

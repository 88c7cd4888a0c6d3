"""Every dashboard page viewed (and every search) is one access-log entry naming the
viewer, the filters and the request ids the page showed - so an admin can tell who saw
which students' names - read at /access (searchable) and exported in /access.csv."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest

from pipeline.console import routes_dashboard
from pipeline.console.access import AccessLog
from tests.console.helpers import sign_in


def _pages(root: Path) -> list[dict[str, Any]]:
    return [e for e in AccessLog(root / "state").entries() if e["action"] == "dashboard"]


def test_a_dashboard_page_is_one_entry_with_the_ids_it_showed(app: Any, root: Path) -> None:
    sign_in(app, "viewer")  # it opens /
    [entry] = _pages(root)
    ids = sorted(r["id"] for r in app.state.index.page().rows)
    assert (entry["user"], entry["role"], entry["request_id"]) == ("viewer", "viewer", None)
    assert entry["detail"] == f"page 1/1; {len(ids)} shown: " + " ".join(
        r["id"] for r in app.state.index.page().rows
    )
    assert sorted(entry["detail"].split(": ", 1)[1].split()) == ids


def test_a_search_names_its_filters_and_only_the_rows_shown(app: Any, root: Path) -> None:
    client, _ = sign_in(app, "advisor")
    client.get("/?state=done&q=done-1")
    entry = _pages(root)[-1]
    assert entry["detail"] == "page 1/1 state='done' q='done-1'; 1 shown: done-1"
    client.get("/?q=no-such-student")
    assert _pages(root)[-1]["detail"] == "page 1/1 q='no-such-student'; none shown"


def test_each_page_of_a_long_list_names_its_own_rows(
    app: Any, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(routes_dashboard, "PER_PAGE", 3)
    client, _ = sign_in(app, "viewer")
    client.get("/?page=1")
    client.get("/?page=2")
    one, two = _pages(root)[-2:]
    assert one["detail"].startswith("page 1/2; 3 shown: ")
    assert two["detail"].startswith("page 2/2; 1 shown: ")
    shown = one["detail"].split(": ", 1)[1].split() + two["detail"].split(": ", 1)[1].split()
    assert shown == [r["id"] for r in app.state.index.page().rows]


def test_an_admin_sees_who_saw_a_request_in_the_log_and_its_export(app: Any, root: Path) -> None:
    viewer, _ = sign_in(app, "viewer")
    viewer.get("/?q=evil")
    admin, _ = sign_in(app, "admin")
    html = admin.get("/access?q=evil-name").text
    assert "<td>viewer</td><td>viewer</td><td>dashboard</td>" in html
    assert "q=&#39;evil&#39;; 1 shown: evil-name" in html
    assert "<td>admin</td><td>admin</td><td>dashboard</td>" in html  # admin's page lists it
    assert "1 shown: done-1" not in html  # a search that matched: only its entries
    rows = list(csv.DictReader(io.StringIO(admin.get("/access.csv").text)))
    assert any(
        r["user"] == "viewer" and r["action"] == "dashboard" and r["detail"].endswith("evil-name")
        for r in rows
    )


def test_a_viewer_cannot_read_the_log(app: Any) -> None:
    client, _ = sign_in(app, "viewer")
    assert client.get("/access?q=x").status_code == 403

"""The console's catalog browser: only the catalogs the workspace uses (and the bundled
sample), their programs, a course and a search - the values ``advise catalog`` prints."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from agents.catalog import load_catalog
from pipeline.cli_browse import course_info
from pipeline.console.routes_catalog import catalog_key
from pipeline.workspace import BUNDLED
from tests.console.helpers import build_workspace, copy_template, make_app, sign_in


@pytest.fixture(scope="module")
def client(template: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Signed in once, on a copy of the workspace: the catalog pages only read it (they
    write no access-log entry)."""
    root = copy_template(template, tmp_path_factory.mktemp("catalogs"))
    client, _ = sign_in(make_app(root), "viewer")
    return client


def _test_catalog(template: Path) -> str:
    return str(template / "catalog" / "catalog.json")


def test_the_catalogs_are_those_the_requests_use_and_the_sample(
    client: Any, template: Path
) -> None:
    html = client.get("/catalogs").text
    links = re.findall(r'<a href="/catalogs/([0-9a-f]{12})">([^<]+)</a>', html)
    assert sorted(links) == sorted(
        [
            (catalog_key(BUNDLED), "bundled sample"),
            (catalog_key(_test_catalog(template)), _test_catalog(template)),
        ]
    )


def test_a_catalogs_programs(client: Any, template: Path) -> None:
    html = client.get(f"/catalogs/{catalog_key(_test_catalog(template))}").text
    assert "<h1>Test College <small>catalog 2026-2027</small></h1>" in html
    assert re.search(r"<tr><td>CS-MIN</td><td>[^<]+</td><td>minor</td>", html)


def test_a_course_shows_what_advise_catalog_course_shows(client: Any, template: Path) -> None:
    key = catalog_key(_test_catalog(template))
    html = client.get(f"/catalogs/{key}/course?code=15112").text  # codes ignore '-'
    info = course_info(load_catalog(_test_catalog(template)), "15-112")
    assert f"<h2>15-112 {info['title']}</h2>" in html
    assert f"<dt>Prerequisites</dt><dd>{info['prerequisites']}</dd>" in html
    for use in info["used_by"]:
        assert f"{use['program']}: {use['requirement']}" in html


def test_an_unknown_course_says_how_to_find_one(client: Any) -> None:
    r = client.get(f"/catalogs/{catalog_key(BUNDLED)}/course?code=XX-999")
    assert r.status_code == 404
    assert "unknown course &#39;XX-999&#39;" in r.text


def test_a_search_lists_courses_and_policy_sections(client: Any) -> None:
    html = client.get(f"/catalogs/{catalog_key(BUNDLED)}/search?q=programming").text
    assert re.search(r'<a href="/catalogs/[0-9a-f]{12}/course\?code=[^"]+">', html)
    assert "<h2>Policy and program text</h2>" in html


@pytest.mark.parametrize(
    "path", ["/catalogs/0123456789ab", "/catalogs/..%2F..%2Fetc", "/catalogs/%2Fetc%2Fpasswd"]
)
def test_a_catalog_not_used_by_the_workspace_is_not_opened(client: Any, path: str) -> None:
    assert client.get(path).status_code == 404


def test_a_catalog_that_is_gone_is_reported(tmp_path: Path) -> None:
    build_workspace(tmp_path)  # its own: the shared workspace's catalog must stay
    client, _ = sign_in(make_app(tmp_path), "viewer")
    catalog = tmp_path / "catalog" / "catalog.json"
    catalog.unlink()
    r = client.get(f"/catalogs/{catalog_key(str(catalog))}")
    assert r.status_code == 409
    assert str(catalog) in r.text

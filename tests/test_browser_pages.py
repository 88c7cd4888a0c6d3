"""The batch index and the audit worksheet in headless Chromium: what a person sees after
the page's script ran (the index filters and sorts from its link), with screenshots saved
in the test's directory. Like tests/test_browser.py, a missing Chromium skips outside CI
and fails in CI."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.logs import configure_logging
from tests.test_browser import _browser, _chromium, _png_size

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

REPO = Path(__file__).resolve().parents[1]
IDS = ("senior-on-track", "overload-high-gpa", "add-minor-infeasible", "policy-question")


@pytest.fixture(autouse=True)
def _reset_logging() -> Iterator[None]:
    yield
    configure_logging("warning", stream=sys.stderr)


def _rows(dom: str) -> list[tuple[str, str, bool]]:
    """(status, outcome, hidden) of every request row, in page order."""
    return [
        (m[1], m[2], bool(m[3]))
        for m in re.finditer(r'<tr data-status="([a-z_]*)" data-outcome="([a-z_]*)"( hidden)?', dom)
    ]


def test_the_batch_index_filters_and_sorts_in_chromium(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chromium = _chromium()
    lines = [
        line
        for line in (REPO / "demos" / "requests.jsonl").read_text("utf-8").splitlines()
        if json.loads(line)["request_id"] in IDS
    ]
    (tmp_path / "in.jsonl").write_text("\n".join([*lines, "{broken"]) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["batch", "in.jsonl", "--json"]) == 1  # the broken line is invalid
    index = tmp_path / "out" / "index.html"
    url = index.as_uri()

    dom = _browser(chromium, tmp_path, "--dump-dom", url).stdout
    assert '<span id="shown">5 shown</span>' in dom
    assert sorted(_rows(dom)) == sorted([
        ("done", "approved", False), ("awaiting_approval", "", False),
        ("done", "infeasible", False), ("done", "answered", False), ("invalid", "", False),
    ])  # fmt: skip
    for rid in ("senior-on-track", "add-minor-infeasible", "policy-question"):
        assert f'<a href="{rid}.html">{rid}</a>' in dom
        assert (tmp_path / "out" / f"{rid}.html").is_file()

    # The link's view: only finished requests, sorted by graduation term (column 3).
    dom = _browser(chromium, tmp_path, "--dump-dom", f"{url}#status=done&sort=3").stdout
    assert '<span id="shown">3 shown</span>' in dom
    shown = [r for r in _rows(dom) if not r[2]]
    assert [r[0] for r in shown] == ["done"] * 3
    grads = re.findall(r'<td data-sort="([A-Z0-9]*)">', dom)
    assert grads == sorted(grads)  # ascending after one click on the column

    shot = tmp_path / "index.png"
    _browser(chromium, tmp_path, f"--screenshot={shot}", "--window-size=1280,800", url)
    assert _png_size(shot) == (1280, 800) and shot.stat().st_size > 20_000


def test_the_audit_worksheet_shows_progress_what_if_and_fallthrough_in_chromium(
    tmp_path: Path,
) -> None:
    chromium = _chromium()
    page = tmp_path / "audit.html"
    student = str(REPO / "demos" / "students" / "is-senior.json")
    exceptions = str(REPO / "demos" / "exceptions" / "is-senior.json")
    assert main(["audit", student, "--add-program", "CS-MIN", "--exception", exceptions,
                 "--as-of", "2026-11-20", "--html", "-o", str(page)]) == 0  # fmt: skip
    dom = _browser(chromium, tmp_path, "--dump-dom", page.as_uri()).stdout
    programs = re.findall(r'<article class="program( what-if)?" data-code="([A-Z-]+)" '
                          r'data-percent="(\d+)"', dom)  # fmt: skip
    assert [(code, bool(w)) for w, code, _ in programs] == [
        ("IS-BS", False), ("BUS-MIN", False), ("CS-MIN", True)
    ]  # fmt: skip
    assert all(0 <= int(p) <= 100 for _, _, p in programs)
    assert re.search(r'<p id="overall" class="meta" data-percent="\d+">', dom)
    assert "80-249" in dom.split('id="fallthrough"')[1].split("</section>")[0]
    assert 'id="lookahead"' in dom and "70-415" in dom.split('id="lookahead"')[1]
    whatif = dom.split('id="whatif"')[1].split("</section>")[0]
    assert "IS-BS 67-475: unmet -&gt; met" in whatif
    assert dom.count('<li class="exception" data-status="used">') == 2

    shot = tmp_path / "audit.png"
    _browser(chromium, tmp_path, f"--screenshot={shot}", "--window-size=1280,1600", page.as_uri())
    assert _png_size(shot) == (1280, 1600) and shot.stat().st_size > 50_000

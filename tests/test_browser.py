"""The HTML report of a two-round negotiation, loaded in headless Chromium: what a person
sees is the semester grid, each negotiation round and the citations.

Chromium renders the page (``--dump-dom`` gives the DOM after rendering, parsed here with
the standard library) and takes a screenshot into the test's temp dir. The test skips only
outside CI when Chromium is missing; in CI (``CI=true``) a missing browser fails it, and
``.ci/run`` installs Debian's ``chromium`` first.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from agents.artifacts import Recommendation
from agents.catalog import load_catalog
from agents.reports import round_sentences
from agents.writing.render import to_html
from eval.suite import SuiteRunner, load_scenarios

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

SCENARIO = "accel-low-gpa"  # GPA 2.6 asks for 3.5 years: rejected, revised, approved
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
WINDOW = (1280, 2400)


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail("chromium is not installed; .ci/run installs it (apt-get install chromium)")
    pytest.skip("chromium is not installed (apt-get install chromium); required in CI")


class _Visible(HTMLParser):
    """Text of the elements a person reads, keyed by what they are."""

    def __init__(self) -> None:
        super().__init__()
        self.section: str | None = None
        self.terms: list[dict[str, str]] = []
        self.rounds: list[dict[str, str]] = []
        self.citations: list[dict[str, str]] = []
        self._item: dict[str, str] | None = None
        self._field: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "section":
            self.section = a.get("id")
        elif tag == "article" and "term" in classes and self.section == "plan":
            self._item = {"term": a.get("data-term") or "", "text": ""}
            self.terms.append(self._item)
        elif tag == "li" and "round" in classes and self.section == "negotiation":
            self._item = {"round": a.get("data-round") or "", "text": ""}
            self.rounds.append(self._item)
        elif tag == "figure" and "citation" in classes and self.section == "citations":
            self._item = {"rule": a.get("data-rule") or "", "text": ""}
            self.citations.append(self._item)
        if self._item is not None and tag in ("h3", "figcaption", "blockquote"):
            self._field = tag
            self._item.setdefault(tag, "")

    def handle_endtag(self, tag: str) -> None:
        if tag == self._field:
            self._field = None
        # A round's <li> holds nested <li>s (violations, revisions), so a round ends where
        # the next begins or its section does.
        if tag in ("article", "figure", "section"):
            self._item = None

    def handle_data(self, data: str) -> None:
        if self._item is not None:
            self._item["text"] += data
            if self._field is not None:
                self._item[self._field] += data


def _recommendation(tmp_path: Path) -> Recommendation:
    scenario = next(s for s in load_scenarios() if s.id == SCENARIO)
    run = SuiteRunner(tmp_path / "work").run(scenario)
    assert run.ctx is not None and run.ctx.recommendation is not None, run.error
    return run.ctx.recommendation


def _browser(chromium: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_report_shows_grid_rounds_and_citations_in_chromium(tmp_path: Path) -> None:
    chromium = _chromium()
    rec = _recommendation(tmp_path)
    page = tmp_path / "report.html"
    page.write_text(to_html(rec), encoding="utf-8")
    url = page.resolve().as_uri()

    dom = _browser(chromium, tmp_path, "--dump-dom", url).stdout
    seen = _Visible()
    seen.feed(dom)

    assert [t["term"] for t in seen.terms] == [t.term for t in rec.plan]
    assert [t["h3"] for t in seen.terms] == [t.label for t in rec.plan]
    for shown, term in zip(seen.terms, rec.plan, strict=True):
        assert f"{term.units:g} units" in shown["text"]
        assert all(c.course in shown["text"] for c in term.courses)
    assert len(seen.rounds) == len(rec.negotiation) == 2
    assert [r["h3"] for r in seen.rounds] == ["Round 1: revised", "Round 2: approved"]
    for shown, r in zip(seen.rounds, rec.negotiation, strict=True):
        said = round_sentences(r)
        assert said["proposal"] in shown["text"]  # sentences, not raw field diffs
        assert all(v in shown["text"] for v in r.violations)
        assert all(c in shown["text"] for c in said["changes"])
        assert "->" not in shown["text"]
    assert any(v.startswith("LOAD-MAX (") for v in rec.negotiation[0].violations)
    catalog = load_catalog()
    assert [(c["rule"], c["figcaption"], c["blockquote"]) for c in seen.citations] == [
        (c.rule_id or "", c.heading, catalog.section_text(c.document, c.section).text)
        for c in rec.citations
    ]
    assert ("LOAD-MAX", "Course Load") in {(c["rule"], c["figcaption"]) for c in seen.citations}

    shot = tmp_path / "report.png"
    w, h = WINDOW
    _browser(chromium, tmp_path, f"--screenshot={shot}", f"--window-size={w},{h}", url)
    assert _png_size(shot) == WINDOW
    assert shot.stat().st_size > 50_000, "the screenshot is nearly blank"

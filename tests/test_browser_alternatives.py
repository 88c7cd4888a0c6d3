"""A report with alternatives in headless Chromium: each alternative is its own visible
block under #alternatives, with its label, the differences in words and its term grid.

The shipped page has no script; the test loads a copy with one appended that measures,
after layout, whether each alternative is rendered (display, visibility, a non-zero box)
and writes the answer into the DOM, which ``--dump-dom`` then returns. Like
tests/test_browser.py, a missing Chromium skips outside CI and fails in CI."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from agents.artifacts import Recommendation
from agents.catalog import term_label
from agents.writing.render import to_html
from eval.suite import SuiteRunner, load_scenarios
from tests.test_browser import WINDOW, _browser, _chromium, _png_size

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

SCENARIO = "add-cs-minor-is-junior"
MEASURE = """<script>
for (const a of document.querySelectorAll('#alternatives .alternative')) {
  const s = getComputedStyle(a), box = a.getBoundingClientRect();
  const shown = s.display !== 'none' && s.visibility === 'visible' && box.height > 40;
  a.setAttribute('data-visible', shown ? 'yes' : 'no');
}
</script></body>"""


class _Alternatives(HTMLParser):
    """Each ``#alternatives .alternative``: rank, kind, visibility, label, differences and
    its terms (code and heading)."""

    def __init__(self) -> None:
        super().__init__()
        self.section: str | None = None
        self.found: list[dict[str, Any]] = []
        self._depth = 0  # articles open inside the current alternative
        self._field: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "section":
            self.section = a.get("id")
        if self.section != "alternatives":
            return
        if tag == "article" and "alternative" in classes:
            self.found.append({"rank": a.get("data-rank"), "kind": a.get("data-kind"),
                               "visible": a.get("data-visible"), "label": "",
                               "differences": [], "terms": []})  # fmt: skip
            self._depth = 1
        elif tag == "article" and self._depth:
            self._depth += 1
            if "term" in classes:
                self.found[-1]["terms"].append([a.get("data-term"), ""])
        elif tag == "span" and "label" in classes and self._depth:
            self._field = "label"
        elif tag == "li" and "difference" in classes and self._depth:
            self.found[-1]["differences"].append("")
            self._field = "difference"
        elif tag == "h3" and self._depth > 1:
            self._field = "term"

    def handle_endtag(self, tag: str) -> None:
        if tag in ("span", "li", "h3"):
            self._field = None
        elif tag == "article" and self._depth:
            self._depth -= 1

    def handle_data(self, data: str) -> None:
        if self._field == "label":
            self.found[-1]["label"] += data
        elif self._field == "difference":
            self.found[-1]["differences"][-1] += data
        elif self._field == "term":
            self.found[-1]["terms"][-1][1] += data


def _recommendation(tmp_path: Path) -> Recommendation:
    scenario = next(s for s in load_scenarios() if s.id == SCENARIO)
    asked = scenario.model_copy(update={"request": {**scenario.request, "alternatives": 2}})
    run = SuiteRunner(tmp_path / "work").run(asked)
    assert run.ctx is not None and run.ctx.recommendation is not None, run.error
    return run.ctx.recommendation


def test_alternatives_are_visible_with_label_differences_and_terms_in_chromium(
    tmp_path: Path,
) -> None:
    chromium = _chromium()
    rec = _recommendation(tmp_path)
    assert len(rec.alternatives) == 2
    html = to_html(rec)
    assert "<script" not in html  # the shipped page stays script-free
    page = tmp_path / "report.html"
    page.write_text(html.replace("</body>", MEASURE), encoding="utf-8")
    url = page.resolve().as_uri()

    seen = _Alternatives()
    seen.feed(_browser(chromium, tmp_path, "--dump-dom", url).stdout)

    assert [(x["rank"], x["kind"], x["visible"], x["label"]) for x in seen.found] == [
        (str(a.rank), a.kind, "yes", a.label) for a in rec.alternatives
    ]
    for shown, a in zip(seen.found, rec.alternatives, strict=True):
        assert shown["differences"] == a.differences
        assert shown["terms"] == [[t.term, term_label(t.term)] for t in a.terms]

    shot = tmp_path / "report.png"
    w, h = WINDOW
    _browser(chromium, tmp_path, f"--screenshot={shot}", f"--window-size={w},{h}", url)
    assert _png_size(shot) == WINDOW

"""The documentation site (``docs/``, ``mkdocs.yml``): it builds with ``mkdocs build
--strict`` (no broken link, no page outside the navigation), the state machine diagram in
``docs/architecture.md`` is the one ``advise diagram`` draws from the transition table, and
the README stays a first visit's length."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.machine import mermaid

ROOT = Path(__file__).resolve().parents[1]
README_MAX_LINES = 250


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    home = (tmp_path / "index.html").read_text("utf-8")
    # The home page includes the README's own words (pymdownx.snippets), not a copy.
    assert "Turns student plan requests" in home and "<strong>Intake</strong>" in home
    for page in ("running", "catalog-guide", "student-records", "architecture", "performance"):
        assert (tmp_path / page / "index.html").is_file(), page


def test_every_docs_page_is_in_the_navigation() -> None:
    nav = (ROOT / "mkdocs.yml").read_text("utf-8")
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert [p for p in pages if f": {p}" not in nav] == []


def test_the_architecture_diagram_is_the_one_the_transition_table_draws() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text("utf-8")
    block = re.search(r"```mermaid\n(.*?)```", text, re.S)
    assert block is not None
    drawn = [
        line
        for line in mermaid().splitlines()
        if line.strip() and not line.strip().startswith(("classDef ", "Class "))
    ]
    assert block.group(1).splitlines() == drawn


def test_the_readme_fits_a_first_visit() -> None:
    lines = (ROOT / "README.md").read_text("utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES
    linked = set(re.findall(r"\]\(docs/([a-z-]+\.md)\)", "\n".join(lines)))
    assert linked == {p.name for p in (ROOT / "docs").glob("*.md")} - {"index.md"}

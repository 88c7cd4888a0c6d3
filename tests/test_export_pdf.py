"""The PDF export without a browser (``agents.writing.export_pdf``, fpdf2): a real request
run offline, exported with ``advise export --format pdf`` and read back with pypdf - pages,
title metadata, "page N of M" on every page, every planned course in the grid, the grid
across the page's width, the letter without "Written by: template" - and the layouts of a
request answered without a plan and of a name the built-in font cannot write."""

from __future__ import annotations

import datetime as dt
import io
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pypdf import PdfReader

from agents.artifacts import Recommendation
from agents.catalog import load_catalog
from agents.writing.export_pdf import plan_pdf
from agents.writing.render import to_html
from pipeline.cli import main
from pipeline.logs import configure_logging
from pipeline.store import CheckpointStore
from tests.shared_helpers import PLANNED

MADE = dt.datetime(2026, 11, 20, 15, 30, tzinfo=dt.UTC)


@pytest.fixture(autouse=True)
def _reset_logging() -> Iterator[None]:
    yield
    configure_logging("warning", stream=sys.stderr)


@pytest.fixture
def ws(plans: Path) -> Path:
    """The session's finished plans (tests/conftest.py): these tests only read them."""
    return plans


def _dirs(root: Path) -> list[str]:
    return ["--state-dir", str(root / "state"), "--out-dir", str(root / "out")]


def _rec(root: Path) -> Recommendation:
    ctx = CheckpointStore(root / "state").load(PLANNED)
    assert ctx is not None and ctx.recommendation is not None
    return ctx.recommendation


def _pages(data: bytes) -> list[str]:
    assert data.startswith(b"%PDF-") and b"%%EOF" in data[-1024:]
    return [p.extract_text() for p in PdfReader(io.BytesIO(data)).pages]


def test_the_pdf_needs_no_browser_and_holds_the_plan(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no Chromium to find
    target = tmp_path / "plan.pdf"
    assert main(["export", PLANNED, "--format", "pdf", "-o", str(target), *_dirs(ws)]) == 0
    data = target.read_bytes()
    reader = PdfReader(io.BytesIO(data))
    pages = _pages(data)
    rec = _rec(ws)
    title = f"Advising plan: {rec.student_name} ({PLANNED})"
    assert reader.metadata is not None and reader.metadata.title == title
    assert reader.metadata.author == load_catalog().institution.name
    assert len(pages) >= 2  # four years of courses and the letter
    for n, text in enumerate(pages, start=1):
        assert text.rstrip().endswith(f"page {n} of {len(pages)}")
    text = "\n".join(pages)
    assert pages[0].startswith(title)
    today = dt.datetime.now(dt.UTC).date()
    found = re.search(r"generated (\d{4}-\d{2}-\d{2}) \d{2}:\d{2} UTC", pages[0])
    assert found and abs(dt.date.fromisoformat(found[1]) - today) <= dt.timedelta(days=1)
    for term in rec.plan:
        units = sum(c.units for c in term.courses)
        assert f"{term.label} - {len(term.courses)} courses, {units:g} units" in text
        for c in term.courses:
            assert re.search(rf"^{re.escape(c.course)}( |$)", text, re.M), c.course
    assert "Written by" not in text and "template" not in text
    assert text.rstrip().splitlines()[-2] == "Office of Undergraduate Advising"  # the sign-off


def test_the_grid_spans_the_page_width(ws: Path) -> None:
    data = plan_pdf(_rec(ws), load_catalog(), generated=MADE)
    page = PdfReader(io.BytesIO(data)).pages[0]
    width = float(page.mediabox.width)
    where: dict[str, float] = {}

    def seen(text: str, _cm: object, tm: list[float], *_rest: object) -> None:
        if text.strip() in ("Course", "Counts toward") and text.strip() not in where:
            where[text.strip()] = tm[4]

    page.extract_text(visitor_text=seen)
    # A4 with 15 mm margins: the first column at the left margin, the last past 60%.
    margin = 15 / 25.4 * 72
    assert where["Course"] == pytest.approx(margin, abs=6)
    assert where["Counts toward"] > 0.6 * width


def test_a_request_answered_without_a_plan_prints_its_answer(ws: Path) -> None:
    rec = _rec(ws).model_copy(
        update={"plan": [], "next_term": None, "counter_proposal": None,
                "answer": "Yes: 15-213 counts toward the CS major's systems requirement."}
    )  # fmt: skip
    text = "\n".join(_pages(plan_pdf(rec, load_catalog(), generated=MADE)))
    assert "Answer\nYes: 15-213 counts toward" in text
    assert "Counts toward" not in text.replace("15-213 counts toward", "")  # no grid


def test_the_built_in_font_writes_what_it_can_of_a_name(ws: Path) -> None:
    rec = _rec(ws).model_copy(update={"student_name": "Zoë Nguyễn 王"})
    data = plan_pdf(rec, load_catalog(), generated=MADE, fonts=())  # no DejaVu: Helvetica
    assert _pages(data)[0].startswith(f"Advising plan: Zoë Nguyen ? ({PLANNED})")


def test_the_html_report_names_no_template_as_the_letters_writer(ws: Path) -> None:
    rec = _rec(ws)
    assert rec.letter_source == "template"
    assert "Written by" not in to_html(rec) and "Drafted with" not in to_html(rec)
    drafted = to_html(rec.model_copy(update={"letter_source": "gemini"}))
    assert "Drafted with a language model (Gemini) from the checked plan." in drafted


def test_chromium_stays_an_engine_and_a_browser_needs_it(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["export", PLANNED, "--format", "pdf", *_dirs(ws)]
    assert main([*args, "--pdf-engine", "native", "--chromium", "chromium"]) == 2
    assert capsys.readouterr().err == (
        "error: --chromium 'chromium' names a browser for --pdf-engine chromium, not "
        "--pdf-engine native; drop one of them\n"
    )
    assert main(["export", PLANNED, "--format", "csv", *_dirs(ws), "--pdf-engine", "native"]) == 2
    assert capsys.readouterr().err == (
        "error: --pdf-engine applies to --format pdf only, not --format csv; drop it\n"
    )

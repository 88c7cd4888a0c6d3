"""The plan as PDF, laid out natively with fpdf2: no browser, no system library.

Why fpdf2: it is pure Python (its dependencies, fontTools and Pillow, ship wheels for every
platform), so ``pip install`` is the whole installation on a student's laptop, a Windows
office PC or a clean CI machine. WeasyPrint would print the HTML report faithfully, but it
needs the system's Pango (an ``apt-get``/``brew`` step, and more on Windows); ReportLab
would do as well as fpdf2 at about five times the size. Headless Chromium stays available
(``agents.writing.pdf_chromium``, ``advise export --pdf-engine chromium``) for a printout
of the HTML report itself.

What the document holds: a title (the student and the request), the date it was made, the
outcome and the summary; the plan as a grid across the page's width - one band per term
(its name, courses and credits), one row per course with its title, credits and what it
counts toward; the answer to a question when there is one; and the letter, which ends with
its own sign-off. Every page has a footer "page N of M". The document's metadata has the
same title, the institution as author and the generation time as creation date.

Fonts: DejaVu Sans when the system has it (every character of a name), else the PDF's
built-in Helvetica, which writes Latin-1 only: other letters lose their accents (NFKD) or
become '?'.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from collections.abc import Collection
from pathlib import Path

import structlog
from fpdf import FPDF, FontFace

from agents.artifacts import Recommendation
from agents.catalog import Catalog, credit_sum, format_credits
from agents.errors import ExportError
from agents.writing.export_plan import PlanExport, PlannedCourse, plan_export
from agents.writing.render import outcome_label

log = structlog.get_logger(__name__)

FONT_DIRS = (
    Path("/usr/share/fonts/truetype/dejavu"),  # Debian, Ubuntu
    Path("/usr/share/fonts/dejavu"),  # Fedora, Arch
    Path("/usr/local/share/fonts"),
    Path("/Library/Fonts"),
)
COLUMNS = ("Course", "Title", "Credits", "Counts toward")
WIDTHS = (16, 42, 10, 32)  # percent of the page's width
BAND = (226, 232, 240)  # a term's band: light slate
HEAD = (30, 41, 59)  # the grid's header: dark slate, white text


class _Document(FPDF):
    """An A4 page with the footer 'page N of M'."""

    face = "Helvetica"

    def footer(self) -> None:
        self.set_y(-12)
        self.set_font(self.face, size=8)
        self.set_text_color(90, 90, 90)
        self.cell(0, 8, f"page {self.page_no()} of {{nb}}", align="C")
        self.set_text_color(0, 0, 0)


def plan_pdf(
    rec: Recommendation,
    catalog: Catalog,
    *,
    generated: dt.datetime,
    registered: Collection[tuple[str, str]] = (),
    fonts: Collection[Path] = FONT_DIRS,
) -> bytes:
    """The PDF of ``rec``'s plan; ``generated`` (aware) is when it is made."""
    pdf = _Document(orientation="portrait", unit="mm", format="A4")
    _fonts(pdf, fonts)
    title = f"Advising plan: {rec.student_name} ({rec.request_id})"
    pdf.set_title(_text(pdf, title))
    pdf.set_author(_text(pdf, catalog.institution.name))
    pdf.set_creator("advise export")
    pdf.set_creation_date(generated.astimezone(dt.UTC).replace(microsecond=0))
    pdf.set_margins(15, 15, 15)
    pdf.set_auto_page_break(auto=True, margin=18)
    pdf.add_page()
    pdf.set_font(pdf.face, "B", 16)
    pdf.multi_cell(0, 8, _text(pdf, title), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font(pdf.face, size=9)
    made = f"{catalog.institution.name} - generated {generated:%Y-%m-%d %H:%M %Z}".strip()
    pdf.multi_cell(0, 5, _text(pdf, made), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)
    pdf.set_font(pdf.face, "B", 11)
    verdict = outcome_label(rec.outcome, rec.infeasible_kind)
    pdf.multi_cell(0, 6, _text(pdf, f"Outcome: {verdict}"), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font(pdf.face, size=10)
    pdf.multi_cell(0, 5, _text(pdf, rec.summary), align="L", new_x="LMARGIN", new_y="NEXT")
    plan = _plan(rec, catalog, registered)
    if plan is not None:
        _grid(pdf, plan, catalog.institution.unit_name)
    if rec.answer:
        _section(pdf, "Answer", rec.answer)
    _section(pdf, "Letter to the student", rec.letter)
    data = bytes(pdf.output())
    log.debug("export.pdf.native", request=rec.request_id, pages=pdf.page_no(), font=pdf.face)
    return data


def _plan(
    rec: Recommendation, catalog: Catalog, registered: Collection[tuple[str, str]]
) -> PlanExport | None:
    """The plan to draw; None for a request answered without one (a question)."""
    try:
        return plan_export(rec, catalog, registered)
    except ExportError:
        return None


def _grid(pdf: _Document, plan: PlanExport, unit: str) -> None:
    """The plan as a table across the page: a band per term, a row per course."""
    pdf.ln(4)
    pdf.set_font(pdf.face, "B", 12)
    heading = "Plan"
    if plan.counter_proposal:
        heading = "Counter-proposal (the requested target is not feasible)"
    pdf.multi_cell(0, 7, heading, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font(pdf.face, size=9)
    columns = (*COLUMNS[:2], unit.capitalize() if unit else COLUMNS[2], COLUMNS[3])
    band = FontFace(emphasis="BOLD", fill_color=BAND)
    with pdf.table(
        width=pdf.epw,
        col_widths=WIDTHS,
        text_align=("LEFT", "LEFT", "RIGHT", "LEFT"),
        headings_style=FontFace(emphasis="BOLD", color=(255, 255, 255), fill_color=HEAD),
        line_height=5,
        repeat_headings=1,
    ) as table:
        table.row([_text(pdf, c) for c in columns])
        for term in plan.terms:
            courses = plan.in_term(term.term)
            if not courses:
                continue
            row = table.row(style=band)
            row.cell(_text(pdf, _band(term.label, courses, unit)), colspan=len(COLUMNS))
            for c in courses:
                table.row([_text(pdf, x) for x in _cells(c)])


def _band(label: str, courses: list[PlannedCourse], unit: str) -> str:
    noun = "course" if len(courses) == 1 else "courses"
    units = format_credits(credit_sum(c.units for c in courses))
    return f"{label} - {len(courses)} {noun}, {units} {unit}"


def _cells(c: PlannedCourse) -> tuple[str, str, str, str]:
    title = f"{c.title} (registered)" if c.status == "registered" else c.title
    if c.section:
        title += f"\nsection {c.section}"
        if c.meetings:
            title += ": " + ", ".join(f"{m.days} {m.start}-{m.end}" for m in c.meetings)
    return (c.course, title, format_credits(c.units), "; ".join(c.counts_toward_titles) or "-")


def _section(pdf: _Document, heading: str, body: str) -> None:
    pdf.ln(5)
    pdf.set_font(pdf.face, "B", 12)
    pdf.multi_cell(0, 7, heading, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font(pdf.face, size=10)
    pdf.multi_cell(0, 5, _text(pdf, body.strip()), align="L", new_x="LMARGIN", new_y="NEXT")


def _fonts(pdf: _Document, dirs: Collection[Path]) -> None:
    """DejaVu Sans (regular and bold) from the first of ``dirs`` that has both."""
    for d in dirs:
        regular, bold = d / "DejaVuSans.ttf", d / "DejaVuSans-Bold.ttf"
        if regular.is_file() and bold.is_file():
            pdf.add_font("DejaVu", "", regular)
            pdf.add_font("DejaVu", "B", bold)
            pdf.face = "DejaVu"
            return


def _text(pdf: _Document, text: str) -> str:
    """``text`` as the font can write it: whole with DejaVu; in Latin-1 with Helvetica
    (accents dropped where that makes a Latin-1 letter, else '?')."""
    if pdf.face != "Helvetica":
        return text
    out = []
    for ch in text.replace("\u2013", "-").replace("\u2014", "-").replace("\u2019", "'"):
        if ord(ch) < 256:
            out.append(ch)
            continue
        base = unicodedata.normalize("NFKD", ch)[:1]
        out.append(base if base and ord(base) < 256 else "?")
    return "".join(out)

"""What is written for people from a finished request: the recommendation as JSON, Markdown
and HTML (``render``, with the phrases the renderings share in ``render_parts``), the audit
worksheet (``worksheet``) and the plan's exports - CSV, iCalendar and PDF (``export_csv``,
``export_ics``, ``export_pdf``, over what every export reads: ``export_plan``; the PDF
printed from the HTML report by headless Chromium is ``pdf_chromium``). The Jinja2
templates they fill ship in ``agents/templates`` and load through ``agents.reports``."""

from agents.writing.export_csv import plan_csv
from agents.writing.export_ics import plan_ics
from agents.writing.export_pdf import plan_pdf
from agents.writing.export_plan import PlanExport, PlannedCourse, plan_export
from agents.writing.pdf_chromium import find_chromium, html_pdf
from agents.writing.render import outcome_label, to_html, to_json, to_markdown
from agents.writing.worksheet import worksheet_html, worksheet_markdown, worksheet_view

__all__ = [
    "PlanExport",
    "PlannedCourse",
    "find_chromium",
    "html_pdf",
    "outcome_label",
    "plan_csv",
    "plan_export",
    "plan_ics",
    "plan_pdf",
    "to_html",
    "to_json",
    "to_markdown",
    "worksheet_html",
    "worksheet_markdown",
    "worksheet_view",
]

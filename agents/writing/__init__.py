"""What is written for people from a finished request: the recommendation as JSON, Markdown
and HTML (``render``, with the phrases the renderings share in ``render_parts``), the audit
worksheet (``worksheet``) and the plan's exports - CSV, iCalendar and PDF (``export_csv``,
``export_ics``, ``export_pdf``, over what every export reads: ``export_plan``; the PDF
printed from the HTML report by headless Chromium is ``pdf_chromium``). The Jinja2
templates they fill ship in ``agents/templates`` and load through ``agents.reports``."""

import importlib
from typing import Any

# Loaded when first asked for: importing one renderer (``agents.writing.render``, which
# every finished run needs) runs this package's code first, and the PDF writer alone
# imports fpdf2 and fontTools (about 0.35 s, more where Python compiles its modules each
# run), the iCalendar writer icalendar.
_WHERE = {
    "plan_csv": "agents.writing.export_csv",
    "plan_ics": "agents.writing.export_ics",
    "plan_pdf": "agents.writing.export_pdf",
    "PlanExport": "agents.writing.export_plan",
    "PlannedCourse": "agents.writing.export_plan",
    "plan_export": "agents.writing.export_plan",
    "find_chromium": "agents.writing.pdf_chromium",
    "html_pdf": "agents.writing.pdf_chromium",
    "outcome_label": "agents.writing.render",
    "to_html": "agents.writing.render",
    "to_json": "agents.writing.render",
    "to_markdown": "agents.writing.render",
    "worksheet_html": "agents.writing.worksheet",
    "worksheet_markdown": "agents.writing.worksheet",
    "worksheet_view": "agents.writing.worksheet",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'agents.writing' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


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

"""The plan as CSV: one row per planned course, for spreadsheets and registration tools.

Columns, in order: ``term`` (code), ``term_name``, ``course``, ``title``, ``units``,
``counts_toward`` (the requirements' titles joined with '; ', what a person reads),
``status`` (``registered`` when the student is already registered for the course in that
term, else ``planned``), for the next term's courses ``section``, ``days``, ``start``,
``end`` and ``location`` (empty when unknown or in a later term), and last
``requirement_ids``: the same requirements by id ('IS-BS/is-electives'), for a tool that
joins the CSV with the recommendation's JSON. The ids are a column of their own, last, so
that people read titles and a column read by position keeps its place. A section that meets
more than once a week (a lecture and a lab) lists its meetings in the same order in
``days``, ``start``, ``end`` and ``location``, joined with '; '. Rows follow the plan: terms
in order, courses as planned. The text is RFC 4180 CSV (CRLF line ends), byte-identical for
the same plan.

A text cell that a spreadsheet would read as a formula - one starting with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return, from a catalog title, a location, a program or a
section name - is written with a leading ``'`` (OWASP's advice against CSV injection), so it
shows as the text it is. ``units`` is a number the exporter writes itself (``units_text``),
never text from a file: it is left as it is and stays a number.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Collection

from agents.artifacts import Recommendation
from agents.catalog import Catalog
from agents.writing.export_plan import PlannedCourse, plan_export, units_text

COLUMNS = (
    "term",
    "term_name",
    "course",
    "title",
    "units",
    "counts_toward",
    "status",
    "section",
    "days",
    "start",
    "end",
    "location",
    "requirement_ids",
)
JOIN = "; "


def plan_csv(
    rec: Recommendation, catalog: Catalog, registered: Collection[tuple[str, str]] = ()
) -> str:
    """The CSV text of the plan of ``rec`` (see the module docstring for the columns)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for course in plan_export(rec, catalog, registered).courses:
        cells = zip(COLUMNS, row(course), strict=True)
        writer.writerow([cell if name in NUMBERS else inert(cell) for name, cell in cells])
    return out.getvalue()


NUMBERS = frozenset({"units"})  # written by the exporter from numbers, never text from a file
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def inert(cell: str) -> str:
    """``cell`` as a spreadsheet shows it as text, never runs it as a formula."""
    return f"'{cell}" if cell.startswith(FORMULA_STARTS) else cell


def row(c: PlannedCourse) -> list[str]:
    """One course's cells, in ``COLUMNS`` order."""
    ms = c.meetings
    return [
        c.term,
        c.term_name,
        c.course,
        c.title,
        units_text(c.units),
        JOIN.join(c.counts_toward_titles),
        c.status,
        c.section or "",
        JOIN.join(m.days for m in ms),
        JOIN.join(m.start for m in ms),
        JOIN.join(m.end for m in ms),
        JOIN.join(m.location or "" for m in ms) if any(m.location for m in ms) else "",
        JOIN.join(c.counts_toward),
    ]

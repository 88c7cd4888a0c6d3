"""Anti-requisites: two planned courses that exclude each other, or a planned course
excluded by one already on the record. Each pair is reported once, whichever side names it.
"""

from __future__ import annotations

from agents.catalog import Catalog
from agents.verifier.defects import Add
from agents.verifier.record import RecordView


def check_antirequisites(
    add: Add, catalog: Catalog, record: RecordView, planned: dict[str, str]
) -> None:
    reported: set[frozenset[str]] = set()
    for cc, term in sorted(planned.items()):
        course = catalog.course_by_code.get(cc)
        if course is None:
            continue
        others = set(course.antirequisites) | _named_by(catalog).get(cc, set())
        for other in sorted(others - {cc}):
            pair = frozenset((cc, other))
            if pair in reported:
                continue
            if other in planned:
                reported.add(pair)
                add(
                    "antirequisite",
                    term,
                    cc,
                    f"{cc} ({term}) and {other} ({planned[other]}) exclude each other",
                )
            elif record.passes(other, None):
                reported.add(pair)
                add(
                    "antirequisite",
                    term,
                    cc,
                    f"{cc} ({term}) is excluded by {other}, already on the record",
                )


def _named_by(catalog: Catalog) -> dict[str, set[str]]:
    """Course -> the courses whose anti-requisites name it (once per catalog)."""
    hit = catalog.derived.get("verifier.antireq_named_by")
    if isinstance(hit, dict):
        return hit
    out: dict[str, set[str]] = {}
    for o in catalog.courses:
        for a in o.antirequisites:
            out.setdefault(a, set()).add(o.code)
    catalog.derived["verifier.antireq_named_by"] = out
    return out

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
        others = set(course.antirequisites) | {
            o.code for o in catalog.courses if cc in o.antirequisites
        }
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

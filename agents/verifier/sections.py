"""Sections chosen for the next term: each exists, every planned course has one, no two
clash, and none meets on a day to keep free or outside the wished hours."""

from __future__ import annotations

from agents.catalog import Catalog, Section, Term
from agents.verifier.defects import Add
from agents.verifier.protocols import PlanLike, SectionsLike


def check_sections(
    add: Add,
    catalog: Catalog,
    plan: PlanLike,
    sections: SectionsLike,
    next_term: str | None,
) -> None:
    term = Term.parse(next_term or sections.term).code
    chosen: list[tuple[str, Section]] = []
    for cc, sid in sorted(sections.sections.items()):
        course = catalog.course_by_code.get(cc)
        found = [s for s in course.sections_in(term) if s.id == sid] if course else []
        if not found:
            add("clash", term, cc, f"{cc} has no section {sid!r} in {term}")
            continue
        chosen.append((cc, found[0]))
    planned_here = next((pt.courses for pt in plan.terms if Term.parse(pt.term).code == term), [])
    for cc in planned_here:
        if cc not in sections.sections:
            add("clash", term, cc, f"{cc} is planned in {term} but has no section chosen")
    for i, (a, sa) in enumerate(chosen):
        for b, sb in chosen[i + 1 :]:
            for ma in sa.meetings:
                for mb in sb.meetings:
                    if set(ma.days) & set(mb.days) and ma.start < mb.end and mb.start < ma.end:
                        add(
                            "clash",
                            term,
                            a,
                            f"{a} {sa.id} ({ma.days} {ma.start}-{ma.end}) "
                            f"clashes with {b} {sb.id} ({mb.days} {mb.start}-{mb.end})",
                        )
    for cc, s in chosen:
        for m in s.meetings:
            days = "".join(d for d in m.days if d in sections.free_days)
            if days:
                add(
                    "free_time",
                    term,
                    cc,
                    f"{cc} {s.id} meets on {days} ({m.start}-{m.end}), a day to keep free",
                )
            if sections.not_before and m.start < sections.not_before:
                add(
                    "free_time",
                    term,
                    cc,
                    f"{cc} {s.id} starts at {m.start}, before {sections.not_before}",
                )
            if sections.not_after and m.end > sections.not_after:
                add(
                    "free_time",
                    term,
                    cc,
                    f"{cc} {s.id} ends at {m.end}, after {sections.not_after}",
                )

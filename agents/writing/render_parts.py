"""Plain-text phrases the renderings share: the counter-proposal's introduction, the
approvals and exceptions lines, the facts line of an alternative plan, the programs with
their catalog years and the programs close by (the page's stylesheet is the template
``style.css.j2``)."""

from __future__ import annotations

from typing import Any

from agents.artifacts import AlternativePlan, CloseProgram, Recommendation
from agents.catalog import credits_text, term_label, unit_name


def counter_intro(rec: Recommendation) -> str:
    cp = rec.counter_proposal
    assert cp is not None
    checked = "verified" if not cp.verification else "not verified: " + "; ".join(cp.verification)
    return (
        f"Graduating by {term_label(cp.target_term)} is not possible; this plan for the same "
        f"programs graduates in {term_label(cp.graduation_term)}, the earliest feasible term "
        f"({cp.solver_status}, {checked})."
    )


def decision_lines(rec: Recommendation) -> list[str]:
    """Approvals and denials the plan relies on, one sentence each, by rule and decider."""
    groups: dict[tuple[str, str, str, str, str, str], list[str]] = {}
    for a in rec.approvals:
        key = (a.rule_id, a.decision, a.by, a.date, a.reason, a.source)
        groups.setdefault(key, []).append(term_label(a.term) or a.term)
    out = []
    for (rule_id, decision, by, day, reason, source), terms in groups.items():
        where = {"record": "exception in the record", "advisor": "decided on this run",
                 "no_wait": "--no-wait dry run"}[source]  # fmt: skip
        out.append(
            f"{rule_id} {decision} for {', '.join(terms)} by {by} on {day} ({where}): {reason}"
        )
    return out


def exception_lines(rec: Recommendation) -> list[str]:
    """The student's advisor exceptions and what each did."""
    return [
        f"[{u.status}] {u.exception} - {u.by}, {u.date}: {u.reason}. {u.note}"
        for u in rec.exceptions
    ]


ALTERNATIVE_KIND = {"equally_good": "equally good", "next_best": "next best", "better": "better"}


def alternative_facts(a: AlternativePlan) -> dict[str, Any]:
    """The parts of an alternative the templates show beside its term grid."""
    how = "other courses" if a.distinct_by == "course_set" else "the same courses, other terms"
    consent = len(a.consent_courses)
    facts = f"Graduates {term_label(a.graduation_term)}, {credits_text(a.units_planned)}"
    if consent:
        facts += f", {consent} course{'s' if consent > 1 else ''} on consent"
    return {
        "rank": a.rank,
        "kind": a.kind,
        "kind_words": ALTERNATIVE_KIND[a.kind],
        "label": a.label,
        "how": how,
        "facts": f"{facts} ({a.solver_status}, verified).",
        "differences": list(a.differences),
        "notes": list(a.notes),
    }


def program_labels(rec: Recommendation) -> list[str]:
    """The programs planned for, each with its catalog year when the years are mixed."""
    mixed = len(set(rec.catalog_years.values())) > 1
    return [
        f"{code} ({rec.catalog_years[code]} catalog)"
        if mixed and code in rec.catalog_years
        else code
        for code in rec.programs
    ]


def close_view(rec: Recommendation) -> dict[str, Any] | None:
    """The programs close by, as the report shows them (None when not asked)."""
    report = rec.close_programs
    if report is None:
        return None
    unit = unit_name()

    def row(p: CloseProgram) -> dict[str, Any]:
        return {
            "code": p.code,
            "name": p.name,
            "kind": p.kind,
            "extra": f"{p.extra_units:g}",
            "remaining": f"{p.remaining_units:g}",
            "graduation": term_label(p.graduation_term) or "no plan",
            "outcome": f"would graduate {term_label(p.graduation_term)}"
            if p.graduation_term
            else "no plan fits",
            "why": "; ".join(p.reasons),
            "courses": [
                f"{term_label(c.term)}: {c.course} {c.title} ({credits_text(c.units)}), "
                f"{', '.join(c.fills) or 'elective'}"
                for c in p.courses
            ],
        }

    base = term_label(report.baseline_graduation_term) or "no plan"
    return {
        "intro": f"Against the plan of {', '.join(report.programs)}, which graduates {base}: "
        f"extra is the {unit} adding the program takes beyond it, remaining the {unit} of "
        "the planned courses that count toward it.",
        "close": [row(p) for p in report.close],
        "delayed": [row(p) for p in report.delayed],
        "skipped": [f"{s.code}: {s.reason}" for s in report.skipped],
    }

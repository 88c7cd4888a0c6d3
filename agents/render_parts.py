"""Plain-text phrases the renderings share: the counter-proposal's introduction and the
approvals and exceptions lines (the page's stylesheet is the template ``style.css.j2``)."""

from __future__ import annotations

from agents.artifacts import Recommendation
from agents.catalog import term_label


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

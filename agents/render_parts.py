"""Parts both renderings share: the HTML page's inline stylesheet (no external resources)
and the plain-text phrases for a round's verdict and the counter-proposal."""

from __future__ import annotations

from agents.artifacts import NegotiationRound, Recommendation
from agents.catalog import term_label

CSS = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2430;margin:0;
background:#f4f6f9}
main,header{max-width:1100px;margin:0 auto;padding:16px 24px}
header{background:#14325c;color:#fff;max-width:none;padding:20px max(24px,calc(50% - 526px))}
header h1{margin:0 0 4px;font-size:24px}
.meta{margin:2px 0;opacity:.9}
.chip{display:inline-block;background:#2b4f80;border-radius:10px;padding:0 8px;margin-right:4px}
.badge{display:inline-block;border-radius:12px;padding:2px 12px;font-weight:600;
background:#6b7280;color:#fff}
.badge.approved{background:#1a7f37}.badge.approved_with_risks{background:#b7791f}
.badge.infeasible,.badge.unresolved_after_max_rounds{background:#b42318}
.badge.needs_input{background:#6941c6}.badge.answered{background:#1d4ed8}
section{background:#fff;border-radius:8px;padding:12px 20px;margin:16px 0;
box-shadow:0 1px 2px rgba(0,0,0,.08)}
h2{font-size:18px;margin:4px 0 10px}
#semester-grid,.counter-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(230px,1fr));gap:12px}
.term{border:1px solid #d0d7e2;border-radius:8px;padding:8px 12px;background:#fbfcfe}
.term h3{margin:0;font-size:15px}.term .units{color:#52607a;margin:0 0 6px}
.term.away{background:repeating-linear-gradient(45deg,#f4f6f9,#f4f6f9 8px,#eceff4 8px,
#eceff4 16px)}
.term ul{margin:0;padding-left:18px}.code{font-family:ui-monospace,monospace;font-weight:600}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:4px 8px;
border-bottom:1px solid #e3e8ef}
.timeline{list-style:none;padding:0;margin:0;border-left:3px solid #c5d0e0}
.round{margin:0 0 12px;padding:0 0 0 14px}.round h3{margin:0;font-size:15px}
.violation{color:#b42318}.risk{margin:4px 0}tr.clash td{background:#fde8e7}
.citation{margin:10px 0;border-left:4px solid #14325c;padding:4px 12px;background:#f7f9fc}
.citation blockquote{margin:4px 0;white-space:pre-wrap}
.citation figcaption{font-weight:600}
.letter-text,.answer-text{white-space:pre-wrap;font-family:Georgia,serif}
.empty{color:#6b7280}
"""


def verdict(r: NegotiationRound) -> str:
    """The critique's verdict in words; a round with no feasible plan had nothing to review."""
    if r.approval != "not_needed":
        return r.approval
    if r.resolution == "infeasible":
        return "no policy review: no plan meets the request as asked"
    return "no policy review was needed"


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

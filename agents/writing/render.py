"""Renderers of a Recommendation: JSON (lossless), Markdown (for tickets and email) and a
self-contained HTML page (inline CSS, no scripts, no external resources, a print layout).

Markdown and HTML come from the Jinja2 templates ``report.md.j2`` and ``report.html.j2``
(``agents.reports``: shipped with the package, overridable by an office); this module
prepares their view - labels, sentences, what each course counts toward - so the templates
only decide wording and layout. Every piece of text may come from a student (the request
text, their name, questions quoted back): the HTML template autoescapes it, the Markdown
view escapes '<'. The HTML keeps stable ids and classes for browser tests:
``#semester-grid .term``, ``#negotiation .round``, ``#citations .citation``, ``#letter``,
``#alternatives .alternative`` (``data-rank``, ``data-kind``; ``.label``, ``.difference``,
``.alternative-grid .term``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from agents.artifacts import NextTermSections, Recommendation, ScheduledTerm
from agents.audit import name_requirements, requirement_names
from agents.catalog import credits_text, session_note, term_label, term_word, unit_name
from agents.reports import render, round_sentences
from agents.writing.render_parts import (
    alternative_facts,
    close_view,
    counter_intro,
    decision_lines,
    exception_lines,
    program_labels,
)

OUTCOME_LABEL: dict[str, str] = {
    "approved": "Approved",
    "approved_with_risks": "Approved with risks",
    "unresolved_after_max_rounds": "Unresolved after the last round",
    "infeasible": "Infeasible",
    "needs_input": "Needs input",
    "answered": "Answered",
}


def outcome_label(outcome: str, infeasible_kind: str | None = None) -> str:
    """How reports and the batch index name an outcome: a request whose planner ran out of
    time is "No plan in time", never "Infeasible" (nothing was proved)."""
    if outcome == "infeasible" and infeasible_kind == "timed_out":
        return "No plan in time"
    return OUTCOME_LABEL.get(outcome, outcome)


def _num(x: float) -> str:
    return f"{x:g}"


def _words(value: str) -> str:
    return value.replace("_", " ")


def to_json(rec: Recommendation) -> str:
    """Indented, key-sorted JSON that ``Recommendation.model_validate_json`` reads back."""
    return json.dumps(rec.model_dump(mode="json"), indent=2, sort_keys=True) + "\n"


# --------------------------------------------------------------------------- the view


def _term(t: ScheduledTerm, titles: Mapping[str, str]) -> dict[str, Any]:
    """One term of a plan; what each course counts toward by requirement title (the ids
    stay in the JSON)."""
    return {
        "term": t.term,
        "label": t.label,
        "away": t.away,
        "units": _num(t.units),
        "units_text": credits_text(t.units),
        "courses": [
            {
                "course": c.course,
                "title": c.title + session_note(t.term, c.session),
                "units": _num(c.units),
                "toward": "; ".join(requirement_names(c.satisfies, titles)),
            }
            for c in t.courses
        ],
    }


def _sections(nt: NextTermSections | None) -> dict[str, Any] | None:
    if nt is None or nt.status == "not_needed":
        return None
    notes = [f"Clash: {c}" for c in nt.clashes]
    notes += [f"Time wish not kept: {c}" for c in nt.wish_conflicts]
    notes += [f"No sections: {c}" for c in nt.unscheduled]
    if nt.alternative is not None:
        notes.append(f"Alternative: {', '.join(nt.alternative)}")
    return {
        "label": term_label(nt.term),
        "status": _words(nt.status),
        "rows": [
            {
                "course": s.course,
                "section": s.section,
                "meetings": "; ".join(s.meetings),
                "clash": any(s.course in c for c in nt.clashes),
            }
            for s in nt.sections
        ],
        "notes": notes,
    }


def _where(*items: str | None) -> str:
    shown = [i for i in items if i]
    return f" ({', '.join(shown)})" if shown else ""


def _no_plan(rec: Recommendation) -> str:
    if rec.outcome == "infeasible":
        more = "; see the counter-proposal below" if rec.counter_proposal else ""
        if rec.infeasible_kind == "timed_out":
            return (
                "No plan was found before a time limit ran out; this does not prove that none "
                f"exists{more}."
            )
        return f"No plan meets the request as asked{more}."
    return "No plan was needed." if rec.outcome == "answered" else "No plan has been made yet."


def _said_round(r: dict[str, Any], said: Callable[[str], str]) -> dict[str, Any]:
    return {**r, "proposal": said(r["proposal"]), "violations": [said(v) for v in r["violations"]]}


def view(rec: Recommendation) -> dict[str, Any]:
    """What the report templates are given (documented by the shipped templates)."""
    cp = rec.counter_proposal
    titles = rec.requirement_titles

    def said(text: str) -> str:  # the planner's sentences name requirements by id
        return name_requirements(text, titles)

    return {
        "rec": rec,
        "unit": unit_name(),
        "term_word": term_word(),
        "outcome_label": outcome_label(rec.outcome, rec.infeasible_kind),
        "intent": _words(rec.intent),
        "summary": said(rec.summary),
        "blockers": [said(b) for b in rec.target_blockers],
        "programs": program_labels(rec),
        "close": close_view(rec),
        "graduation": term_label(rec.graduation_term),
        "plan": [_term(t, titles) for t in rec.plan],
        "no_plan": _no_plan(rec),
        "next_term": _sections(rec.next_term),
        "counter": None
        if cp is None
        else {
            "label": term_label(cp.graduation_term),
            "intro": counter_intro(rec),
            "terms": [_term(t, titles) for t in cp.terms],
        },
        "alternatives": [
            {**alternative_facts(a), "terms": [_term(t, titles) for t in a.terms]}
            for a in rec.alternatives
        ],
        "risks": [
            {
                "kind": r.kind,
                "words": _words(r.kind),
                "where": _where(term_label(r.term), r.rule_id),
                "message": said(r.message),
            }
            for r in rec.risks
        ],
        "violations": [
            {
                "rule_id": v.rule_id,
                "severity": v.severity,
                "where": f", {term_label(v.term)}" if v.term else "",
                "message": said(v.message),
            }
            for v in rec.violations
        ],
        "rounds": [_said_round(round_sentences(r), said) for r in rec.negotiation],
        "decisions": decision_lines(rec),
        "exceptions": exception_lines(rec),
    }


def to_markdown(rec: Recommendation) -> str:
    """The recommendation as Markdown: facts first, then plan, risks, history, sources,
    questions and the letter."""
    return render("report.md.j2", **view(rec))


def to_html(rec: Recommendation) -> str:
    """A self-contained HTML page; every text value is escaped."""
    return render("report.html.j2", **view(rec))

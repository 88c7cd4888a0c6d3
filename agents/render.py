"""Renderers of a Recommendation: JSON (lossless), Markdown (for tickets and email) and a
self-contained HTML page (inline CSS, no scripts, no external resources).

Every piece of text in a Recommendation may come from a student (the request text, their
name, questions quoted back) and is escaped before it reaches HTML. The HTML keeps stable
ids and classes for browser tests: ``#semester-grid .term``, ``#negotiation .round``,
``#citations .citation``, ``#letter``.
"""

from __future__ import annotations

import html
import json

from agents.artifacts import (
    CitationRef,
    NegotiationRound,
    NextTermSections,
    Recommendation,
    Risk,
    ScheduledTerm,
)
from agents.catalog import term_label, unit_name
from agents.render_parts import CSS, counter_intro, decision_lines, exception_lines, verdict

OUTCOME_LABEL: dict[str, str] = {
    "approved": "Approved",
    "approved_with_risks": "Approved with risks",
    "unresolved_after_max_rounds": "Unresolved after the last round",
    "infeasible": "Infeasible",
    "needs_input": "Needs input",
    "answered": "Answered",
}


def _num(x: float) -> str:
    return f"{x:g}"


def _words(value: str) -> str:
    return value.replace("_", " ")


# --------------------------------------------------------------------------- JSON


def to_json(rec: Recommendation) -> str:
    """Indented, key-sorted JSON that ``Recommendation.model_validate_json`` reads back."""
    return json.dumps(rec.model_dump(mode="json"), indent=2, sort_keys=True) + "\n"


# --------------------------------------------------------------------------- Markdown


def _md(text: str) -> str:
    # Markdown viewers pass raw HTML through; with no '<' no tag can open.
    return text.replace("<", "&lt;")


def _cell(text: str) -> str:
    return _md(text).replace("|", "\\|").replace("\n", " ")


def _md_term(t: ScheduledTerm) -> list[str]:
    if t.away:
        return [f"### {_md(t.label)}: away", ""]
    lines = [
        f"### {_md(t.label)} ({_num(t.units)} {unit_name()})",
        "",
        f"| Course | Title | {unit_name().capitalize()} | Counts toward |",
        "| --- | --- | --- | --- |",
    ]
    for c in t.courses:
        toward = ", ".join(c.satisfies)
        lines.append(
            f"| {_cell(c.course)} | {_cell(c.title)} | {_num(c.units)} | {_cell(toward)} |"
        )
    return [*lines, ""]


def _md_sections(nt: NextTermSections) -> list[str]:
    lines = [
        f"## Next-term sections: {_md(term_label(nt.term))}",
        "",
        f"Status: {_words(nt.status)}",
    ]
    if nt.sections:
        lines += ["", "| Course | Section | Meetings |", "| --- | --- | --- |"]
        for s in nt.sections:
            meets = "; ".join(s.meetings)
            lines.append(f"| {_cell(s.course)} | {_cell(s.section)} | {_cell(meets)} |")
    lines += [""]
    lines += [f"- Clash: {_md(c)}" for c in nt.clashes]
    lines += [f"- Time wish not kept: {_md(c)}" for c in nt.wish_conflicts]
    lines += [f"- No sections: {_md(c)}" for c in nt.unscheduled]
    if nt.alternative is not None:
        lines.append(f"- Alternative: {_md(', '.join(nt.alternative))}")
    if nt.clashes or nt.unscheduled or nt.alternative is not None:
        lines.append("")
    return lines


def _where(*items: str | None) -> str:
    shown = [i for i in items if i]
    return f" ({', '.join(shown)})" if shown else ""


def _md_risk(r: Risk) -> str:
    return f"- **{_words(r.kind)}**{_md(_where(term_label(r.term), r.rule_id))}: {_md(r.message)}"


def _md_counter(rec: Recommendation) -> list[str]:
    """The counter-proposal and what blocks the target, each under its own heading."""
    lines: list[str] = []
    cp = rec.counter_proposal
    if rec.target_blockers:
        lines += ["## Why the target cannot be met", ""]
        lines += [f"- {_md(b)}" for b in rec.target_blockers]
        lines.append("")
    if cp is not None:
        lines += [f"## Counter-proposal: graduate in {term_label(cp.graduation_term)}", ""]
        lines += [_md(counter_intro(rec)), ""]
        for t in cp.terms:
            lines += _md_term(t)
    return lines


def _md_round(r: NegotiationRound) -> list[str]:
    lines = [
        f"### Round {r.round}: {_words(r.resolution)}",
        "",
        f"- Proposal: {_md(r.proposal)}",
        f"- Verdict: {_md(verdict(r))}",
    ]
    lines += [f"- Violation: {_md(v)}" for v in r.violations]
    lines += [f"- Approval: {_md(a)}" for a in r.approvals]
    lines += [
        f"- Change: {_md(c.field)}: {_md(json.dumps(c.before))} -> {_md(json.dumps(c.after))}"
        f" ({_md(c.reason)})"
        for c in r.revision
    ]
    return [*lines, ""]


def _md_citation(c: CitationRef) -> list[str]:
    rule = f"; rule {c.rule_id}" if c.rule_id else ""
    head = f"> **{_md(c.heading)}** ({_md(c.document)} / {_md(c.section)}{_md(rule)})"
    body = [f"> {_md(line)}" if line else ">" for line in c.quote.splitlines()]
    return [head, ">", *body, ""]


def to_markdown(rec: Recommendation) -> str:
    """The recommendation as Markdown: facts first, then plan, risks, history, sources,
    questions and the letter."""
    lines = [
        f"# Advising recommendation for {_md(rec.student_name)}",
        "",
        f"- **Outcome:** {OUTCOME_LABEL[rec.outcome]}",
        f"- **Student:** {_md(rec.student_name)} ({_md(rec.student_id)})",
        f"- **Request:** {_md(rec.request_id)} ({_words(rec.intent)})",
        f"- **Programs:** {_md(', '.join(rec.programs)) or 'none'}",
        f"- **Graduation:** {_md(term_label(rec.graduation_term)) or 'not planned'}",
        "",
        _md(rec.summary),
        "",
    ]
    if rec.answer:
        lines += ["## Answer", "", _md(rec.answer), ""]
    if rec.plan:
        lines += ["## Plan", ""]
        for t in rec.plan:
            lines += _md_term(t)
    lines += _md_counter(rec)
    if rec.next_term and rec.next_term.status != "not_needed":
        lines += _md_sections(rec.next_term)
    if rec.risks:
        lines += ["## Risks", "", *[_md_risk(r) for r in rec.risks], ""]
    decisions, exceptions = decision_lines(rec), exception_lines(rec)
    if decisions or exceptions:
        lines += ["## Approvals and exceptions", ""]
        lines += [f"- {_md(x)}" for x in [*decisions, *exceptions]]
        lines.append("")
    if rec.violations:
        lines += ["## Unresolved violations", ""]
        lines += [
            f"- **{_md(v.rule_id)}** ({v.severity}"
            f"{_md(', ' + term_label(v.term) if v.term else '')}): {_md(v.message)}"
            for v in rec.violations
        ]
        lines.append("")
    if rec.negotiation:
        lines += ["## Negotiation", ""]
        for r in rec.negotiation:
            lines += _md_round(r)
    if rec.citations:
        lines += ["## Citations", ""]
        for c in rec.citations:
            lines += _md_citation(c)
    if rec.open_questions:
        lines += ["## Open questions", ""]
        lines += [f"- {_md(q.question)}" for q in rec.open_questions]
        lines.append("")
    lines += [f"## Letter ({_words(rec.letter_source)})", "", _md(rec.letter.rstrip("\n")), ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------- HTML


def e(value: object) -> str:
    """Escape for HTML text and attribute values."""
    return html.escape(str(value), quote=True)


def _h_term(t: ScheduledTerm) -> str:
    if t.away:
        return (
            f'<article class="term away" data-term="{e(t.term)}"><h3>{e(t.label)}</h3>'
            '<p class="units">Away: no courses</p></article>'
        )
    items = "".join(
        f'<li><span class="code">{e(c.course)}</span> {e(c.title)} '
        f'<span class="course-units">({e(_num(c.units))})</span></li>'
        for c in t.courses
    )
    return (
        f'<article class="term" data-term="{e(t.term)}"><h3>{e(t.label)}</h3>'
        f'<p class="units">{e(_num(t.units))} {e(unit_name())}</p><ul>{items}</ul></article>'
    )


def _h_sections(nt: NextTermSections | None) -> str:
    if nt is None or nt.status == "not_needed":
        return '<p class="empty">No next-term sections were needed.</p>'
    clash = ' class="clash"'
    rows = "".join(
        f"<tr{clash if any(s.course in c for c in nt.clashes) else ''}>"
        f'<td class="code">{e(s.course)}</td><td>{e(s.section)}</td>'
        f"<td>{e('; '.join(s.meetings))}</td></tr>"
        for s in nt.sections
    )
    out = f"<p>{e(term_label(nt.term))}: <strong>{e(_words(nt.status))}</strong></p>"
    if rows:
        out += f"<table><tr><th>Course</th><th>Section</th><th>Meetings</th></tr>{rows}</table>"
    notes = [f"Clash: {c}" for c in nt.clashes] + [f"No sections: {c}" for c in nt.unscheduled]
    notes += [f"Time wish not kept: {c}" for c in nt.wish_conflicts]
    if nt.alternative is not None:
        notes.append(f"Alternative: {', '.join(nt.alternative)}")
    return out + _h_list(notes, "note")


def _h_list(items: list[str], cls: str) -> str:
    if not items:
        return ""
    return "<ul>" + "".join(f'<li class="{cls}">{e(i)}</li>' for i in items) + "</ul>"


def _h_round(r: NegotiationRound) -> str:
    changes = [
        f"{c.field}: {json.dumps(c.before)} -> {json.dumps(c.after)} ({c.reason})"
        for c in r.revision
    ]
    return (
        f'<li class="round" data-round="{r.round}" data-resolution="{e(r.resolution)}">'
        f"<h3>Round {r.round}: {e(_words(r.resolution))}</h3>"
        f'<p class="proposal">Proposal: {e(r.proposal)}</p>'
        f'<p class="verdict">Verdict: {e(verdict(r))}</p>'
        f"{_h_list(r.violations, 'violation')}{_h_list(changes, 'revision')}"
        f"{_h_list(r.approvals, 'approval')}</li>"
    )


def _h_risk(r: Risk) -> str:
    return (
        f'<li class="risk" data-kind="{e(r.kind)}"><strong>{e(_words(r.kind))}</strong>'
        f"{e(_where(term_label(r.term), r.rule_id))}: {e(r.message)}</li>"
    )


def _h_citation(c: CitationRef) -> str:
    rule = f" · rule {c.rule_id}" if c.rule_id else ""
    attr = f' data-rule="{e(c.rule_id)}"' if c.rule_id else ""
    return (
        f'<figure class="citation"{attr}><figcaption>{e(c.heading)}</figcaption>'
        f"<blockquote>{e(c.quote)}</blockquote>"
        f'<p class="source">{e(c.document)} / {e(c.section)}{e(rule)}</p></figure>'
    )


def _section(sid: str, title: str, body: str, empty: str = "None.") -> str:
    inner = body or f'<p class="empty">{e(empty)}</p>'
    return f'<section id="{sid}"><h2>{e(title)}</h2>{inner}</section>'


# f-string expressions cannot hold a backslash before Python 3.12.
NL = "\n"


def _no_plan(rec: Recommendation) -> str:
    if rec.outcome == "infeasible":
        more = "; see the counter-proposal below" if rec.counter_proposal else ""
        return f"No plan meets the request as asked{more}."
    return "No plan was needed." if rec.outcome == "answered" else "No plan has been made yet."


def _h_counter(rec: Recommendation) -> str:
    cp = rec.counter_proposal
    out = ""
    if rec.target_blockers:
        out += _section(
            "target-blockers",
            "Why the target cannot be met",
            _h_list(rec.target_blockers, "blocker"),
        )
    if cp is not None:
        grid = "".join(_h_term(t) for t in cp.terms)
        out += _section(
            "counter-proposal",
            f"Counter-proposal: graduate in {term_label(cp.graduation_term)}",
            f'<p class="counter-intro">{e(counter_intro(rec))}</p>'
            f'<div class="counter-grid">{grid}</div>',
        )
    return out


def to_html(rec: Recommendation) -> str:
    """A self-contained HTML page; every text value is escaped."""
    chips = "".join(f'<span class="chip">{e(p)}</span>' for p in rec.programs)
    grad = term_label(rec.graduation_term)
    header = (
        f"<header><h1>Advising recommendation for {e(rec.student_name)}</h1>"
        f'<p class="meta">Student {e(rec.student_id)} · request {e(rec.request_id)} · '
        f"{e(_words(rec.intent))}</p>"
        f'<p class="meta">Programs: {chips or "none"}</p>'
        f'<p class="meta"><span id="outcome" class="badge {e(rec.outcome)}">'
        f"{e(OUTCOME_LABEL[rec.outcome])}</span>"
        + (f" Graduation: <strong>{e(grad)}</strong>" if grad else "")
        + f'</p><p id="summary">{e(rec.summary)}</p></header>'
    )
    grid = "".join(_h_term(t) for t in rec.plan)
    violations = [
        f"{v.rule_id} ({v.severity}{', ' + term_label(v.term) if v.term else ''}): {v.message}"
        for v in rec.violations
    ]
    body = [
        _section("answer", "Answer", f'<div class="answer-text">{e(rec.answer)}</div>')
        if rec.answer
        else "",
        _section(
            "plan",
            "Semester plan",
            f'<div id="semester-grid">{grid}</div>' if grid else "",
            _no_plan(rec),
        ),
        _h_counter(rec),
        _section("next-term", "Next-term sections", _h_sections(rec.next_term)),
        _section(
            "negotiation",
            "Negotiation",
            '<ol class="timeline">' + "".join(_h_round(r) for r in rec.negotiation) + "</ol>"
            if rec.negotiation
            else "",
        ),
        _section(
            "risks",
            "Risks",
            "<ul>" + "".join(_h_risk(r) for r in rec.risks) + "</ul>" if rec.risks else "",
        ),
        _section(
            "approvals",
            "Approvals and exceptions",
            _h_list(decision_lines(rec), "approval") + _h_list(exception_lines(rec), "exception"),
        )
        if rec.approvals or rec.exceptions
        else "",
        _section("violations", "Unresolved violations", _h_list(violations, "violation")),
        _section("citations", "Citations", "".join(_h_citation(c) for c in rec.citations)),
        _section(
            "open-questions",
            "Open questions",
            _h_list([q.question for q in rec.open_questions], "question"),
        ),
        _section(
            "letter",
            "Letter to the student",
            f'<div class="letter-text">{e(rec.letter)}</div>'
            f'<p class="source">Written by: {e(_words(rec.letter_source))}</p>',
        ),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Advising recommendation: {e(rec.student_name)} ({e(rec.request_id)})</title>"
        f"<style>{CSS}</style></head><body>\n{header}\n<main>\n{NL.join(body)}\n</main>\n"
        "</body></html>\n"
    )

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


def _md_round(r: NegotiationRound) -> list[str]:
    lines = [
        f"### Round {r.round}: {_words(r.resolution)}",
        "",
        f"- Proposal: {_md(r.proposal)}",
        f"- Verdict: {_md(r.approval)}",
    ]
    lines += [f"- Violation: {_md(v)}" for v in r.violations]
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
    if rec.next_term and rec.next_term.status != "not_needed":
        lines += _md_sections(rec.next_term)
    if rec.risks:
        lines += ["## Risks", "", *[_md_risk(r) for r in rec.risks], ""]
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
#semester-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(230px,1fr));gap:12px}
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
        f'<p class="verdict">Verdict: {e(r.approval)}</p>'
        f"{_h_list(r.violations, 'violation')}{_h_list(changes, 'revision')}</li>"
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
            "No plan was needed.",
        ),
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

"""The letter to the student: a deterministic template, and the grounding check that any
letter (template or model-written) must pass.

``template_letter(draft)`` writes plain text from a Recommendation draft only, so every
course code, term and rule id it names is one the pipeline produced. ``check_letter``
holds any letter to the same standard: it extracts the codes a letter mentions
(``letter_mentions``) and lists those the draft does not contain, which is how a
Gemini-written letter that invents a course or a rule is caught.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from agents.artifacts import NegotiationRound, Recommendation, Risk, ScheduledTerm
from agents.audit import name_requirements
from agents.catalog import (
    Calendar,
    Term,
    active_calendar,
    credits_text,
    session_note,
    term_label,
    unit_word,
)
from agents.catalog.codes import active_codes
from agents.reports import change_text, render

SIGN_OFF = "Office of Undergraduate Advising"

# Course codes: the catalog's in use (``agents.catalog.codes``: "COMPSCI 161", "A&B SCI
# 6B", in any spelling), and besides them the common shapes ("15-112", "CS 101",
# "MATH2410") so that a code the catalog does not have is caught too; the latter needs a
# space or nothing between the letters and digits, and must not follow a hyphen, so that
# rule ids ("RULE-2") and a rule id followed by a number ("LOAD-MAX 54") are not courses.
_COURSE_RE = re.compile(r"\b\d{2}-\d{3}\b|(?<![-\w])[A-Z]{2,5} ?\d{2,4}[A-Z]?\b")
# Rule ids and program codes share one shape (LOAD-MAX, CS-MIN); both are grounded the
# same way, against the draft, so the extractor does not need to tell them apart.
_RULE_RE = re.compile(r"\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+\b")
_NAMED_RULE_RE = re.compile(r" \(([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)\)")


def _sentence(text: str) -> str:
    # Other stages write clauses ("cap every term at it"); a letter reads in sentences.
    t = text.strip()
    if not t:
        return t
    t = t[0].upper() + t[1:]
    return t if t[-1] in ".!?" else t + "."


def _term_line(term: ScheduledTerm, titles: bool) -> str:
    if term.away:
        return f"- {term.label}: away"
    sep = "; " if titles else ", "
    courses = sep.join(
        (f"{c.course} {c.title}" if titles else c.course) + session_note(term.term, c.session)
        for c in term.courses
    )
    return f"- {term.label} ({credits_text(term.units)}): {courses}"


def _plan_lines(plan: list[ScheduledTerm], next_term: str | None = None) -> str:
    # Titles for the term the student registers for next (the one its sections were chosen
    # for, else the first planned); codes keep later terms short.
    first = next((i for i, t in enumerate(plan) if not t.away), -1)
    first = next((i for i, t in enumerate(plan) if t.term == next_term and not t.away), first)
    return "\n".join(_term_line(t, i == first) for i, t in enumerate(plan))


RESOLUTION_SENTENCE: dict[str, str] = {
    "approved": " It passed the policy review.",
    "no_change": " No further change could resolve it.",
    "max_rounds": " That was the last round of review.",
    "infeasible": " No plan fits within those limits.",
    "revised": "",
}
_VIOLATION_RE = re.compile(r"^(?P<rule>[A-Z][A-Z0-9-]*)(?: \([^)]*\))?: (?P<message>.*)$", re.S)


def _findings(violations: list[str], headings: dict[str, str]) -> str:
    """Violations grouped by rule, each named by the heading of the policy that states it
    (a student reads policy names, not rule ids)."""
    by_rule: dict[str, list[str]] = {}
    for v in violations:
        m = _VIOLATION_RE.match(v)
        rule, message = (m["rule"], m["message"]) if m else ("", v)
        by_rule.setdefault(rule, []).append(_sentence(message))
    parts = []
    for rule, messages in by_rule.items():
        head = f'the "{headings[rule]}" policy: ' if rule in headings else "the policies: "
        parts.append(head + " ".join(messages))
    return " ".join(parts)


def _round_text(rnd: NegotiationRound, headings: dict[str, str]) -> str:
    grad = term_label(rnd.graduation_term)
    who = "The first proposal" if rnd.round == 1 else f"The revision in round {rnd.round}"
    text = f"{who} would graduate you in {grad}" if grad else f"{who} found no feasible plan"
    if rnd.violations:
        text += ", but the policy review found problems under " + _findings(
            rnd.violations, headings
        )
    else:
        text += "."
    if rnd.revision:
        text += " So we changed the plan: " + " ".join(change_text(c) for c in rnd.revision)
    return text + RESOLUTION_SENTENCE[rnd.resolution]


def _negotiation_paragraph(draft: Recommendation) -> str | None:
    rounds = draft.negotiation
    # A single approved round changed nothing, and a single infeasible one only repeats the
    # summary, so there is nothing to explain.
    if not rounds or (len(rounds) == 1 and rounds[0].resolution in ("approved", "infeasible")):
        return None
    headings = {c.rule_id: c.heading for c in draft.citations if c.rule_id}
    return "How we got here: " + " ".join(_round_text(r, headings) for r in rounds)


def _risk_line(risk: Risk) -> str:
    where = term_label(risk.term)
    return f"- {where}: {_sentence(risk.message)}" if where else f"- {_sentence(risk.message)}"


def _plan_intro(draft: Recommendation) -> str:
    grad = term_label(draft.graduation_term) or "a term still to be set"
    progs = " and ".join(draft.programs) or "your programs"
    if draft.outcome in ("approved", "approved_with_risks"):
        return f"Your plan has you graduating in {grad}, completing {progs}."
    if draft.outcome == "needs_input":
        return f"In the meantime, a plan for {progs} would have you graduating in {grad}."
    return f"The latest proposal, not yet approved, would have you graduating in {grad}."


def _counter_paragraphs(draft: Recommendation) -> list[str | None]:
    """What blocks the target and the counter-proposal, each said once."""
    out: list[str | None] = []
    if draft.target_blockers:
        out.append(" ".join(_sentence(b) for b in draft.target_blockers))
    cp = draft.counter_proposal
    if cp is not None:
        checked = (
            f"has been checked against every prerequisite, offering and {unit_word()} limit"
            if not cp.verification
            else "still has problems an advisor will review with you"
        )
        out.append(
            f"Our counter-proposal: graduate in {term_label(cp.graduation_term)} instead. "
            f"This plan {checked}; term by term, with titles for your next term:\n"
            f"{_plan_lines(cp.terms)}"
        )
    return out


def _said(risk: Risk, draft: Recommendation) -> bool:
    """A risk the summary or the counter-proposal already states (an infeasible request's
    binding reason and its earliest feasible term), so the letter does not repeat it."""
    if draft.outcome != "infeasible":
        return False
    message = risk.message.strip().rstrip(".").lower()
    if message and message in draft.summary.lower():
        return True
    return "earliest feasible graduation is" in message and (
        draft.counter_proposal is not None or "earliest feasible" in draft.summary.lower()
    )


def _decision_lines(draft: Recommendation) -> list[str]:
    """Approvals granted or denied, and the advisor exceptions applied to the plan."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for a in draft.approvals:
        groups.setdefault((a.decision, a.by, a.date), []).append(term_label(a.term) or a.term)
    out = [
        f"- The approval your plan needed for {', '.join(terms)} was "
        f"{'granted' if decision == 'approved' else 'denied'} by {by} on {day}."
        for (decision, by, day), terms in groups.items()
    ]
    out += [
        f"- {u.note[0].upper()}{u.note[1:]} ({u.by}, {u.date})."
        for u in draft.exceptions
        if u.status == "used" and u.kind != "approve"
    ]
    return out


def _policy_words(text: str, headings: dict[str, str], programs: list[str]) -> str:
    """``text`` as a student reads it: a rule named with its id in parentheses keeps the
    name only ('Maximum load (LOAD-MAX)' -> 'Maximum load'), and a cited rule id alone
    becomes its policy's heading ('the "Course Load" policy'). Program codes stay."""
    text = _NAMED_RULE_RE.sub(lambda m: "" if m[1] not in programs else m[0], text)
    return _RULE_RE.sub(
        lambda m: f'the "{headings[m[0]]}" policy' if m[0] in headings else m[0], text
    )


def _alternatives_sentence(draft: Recommendation) -> str | None:
    """One sentence saying that the report shows other plans, and how good they are."""
    n = len(draft.alternatives)
    if not n:
        return None
    kinds = {"equally_good": "equally good", "next_best": "next best", "better": "better"}
    counts: dict[str, int] = {}
    for a in draft.alternatives:
        counts[kinds[a.kind]] = counts.get(kinds[a.kind], 0) + 1
    how = ", ".join(f"{c} {k}" for k, c in counts.items())
    plans = "another plan" if n == 1 else f"{n} other plans"
    return (
        f"Your report also shows {plans} that meet{'s' if n == 1 else ''} every requirement "
        f"({how}), each with what it changes, in case you would rather take different courses."
    )


def _close_sentence(draft: Recommendation) -> str | None:
    """One sentence naming the programs the student could add without graduating later."""
    report = draft.close_programs
    if report is None:
        return None
    if not report.close:
        return (
            "You asked which programs you are close to: none of the ones you may add fits "
            "without graduating later; your report says what each would take."
        )
    names = [
        f"the {p.name} ({credits_text(p.remaining_units)} still to plan)" for p in report.close
    ]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return (
        f"You asked which programs you are close to: you could add {listed} without "
        "graduating later; your report lists the courses each still needs."
    )


def letter_view(draft: Recommendation) -> dict[str, Any]:
    """What ``letter.txt.j2`` is given: the parts of the letter that come from the draft,
    as sentences (the template holds the fixed wording and decides the order)."""
    first = draft.student_name.split()[0] if draft.student_name.split() else "student"
    approvals = [r for r in draft.risks if r.kind == "approval_needed"]
    others = [r for r in draft.risks if r.kind != "approval_needed" and not _said(r, draft)]
    headings = {c.rule_id: c.heading for c in draft.citations if c.rule_id}
    return {
        "first_name": first,
        "outcome": draft.outcome,
        # No plan within the planner's limits: not a finding that none exists.
        "timed_out": draft.outcome == "infeasible" and draft.infeasible_kind == "timed_out",
        "progress_check": draft.intent == "check_progress" and draft.outcome == "answered",
        "summary": _policy_words(draft.summary, headings, draft.programs),
        "answer": _policy_words(draft.answer, headings, draft.programs) if draft.answer else None,
        "plan": (
            f"{_plan_intro(draft)} Term by term, with titles for your next term:\n"
            f"{_plan_lines(draft.plan, draft.next_term.term if draft.next_term else None)}"
            if draft.plan
            else None
        ),
        "alternatives": _alternatives_sentence(draft),
        "close": _close_sentence(draft),
        "counter": [p for p in _counter_paragraphs(draft) if p],
        "negotiation": _policy_words(_negotiation_paragraph(draft) or "", headings, draft.programs)
        or None,
        "approvals_to_seek": [_risk_line(r) for r in approvals],
        "decisions": _decision_lines(draft),
        "keep_in_mind": [_risk_line(r) for r in others],
        "unresolved": [
            f"- {headings.get(v.rule_id, 'Policy')}: {_sentence(v.message)}"
            for v in draft.violations
        ],
        "questions": [f"- {q.question}" for q in draft.open_questions],
        "sign_off": SIGN_OFF,
    }


def template_letter(draft: Recommendation) -> str:
    """A plain-text letter built from the draft alone (template ``letter.txt.j2``);
    deterministic. No rule id reaches the student: policies are named by their heading."""
    text = render("letter.txt.j2", **letter_view(draft))
    # Requirements by title: the draft's sentences may name them by id.
    text = name_requirements(text, draft.requirement_titles)
    # Paragraphs are separated by one blank line, whatever the template's spacing.
    paragraphs = [p.strip("\n") for p in re.split(r"\n\s*\n", text) if p.strip()]
    return "\n\n".join(paragraphs) + "\n"


# --------------------------------------------------------------------------- grounding


def letter_mentions(letter: str) -> dict[str, set[str]]:
    """Course codes, terms (as codes, from codes or labels such as 'Fall 2027') and rule
    ids (or program codes, which share their shape) that ``letter`` mentions."""
    code_re, label_re = _term_patterns(active_calendar())
    terms = {f"{kind}{year}" for kind, year in code_re.findall(letter)}
    for name, year in label_re.findall(letter):
        terms.add(Term.parse(f"{name} {year}").code)
    return {
        "courses": _courses_in(letter),
        "terms": terms,
        "rules": set(_RULE_RE.findall(letter)),
    }


def _courses_in(text: str) -> set[str]:
    """Course codes ``text`` names: the catalog's in use (as the catalog writes them) and
    other codes of the common shapes."""
    codes = active_codes()
    found = codes.find_all(text) if codes is not None else []
    out = {code for _, _, code in found}
    for m in _COURSE_RE.finditer(text):
        if not any(s < m.end() and m.start() < e for s, e, _ in found):
            out.add(m.group())
    return out


def _term_patterns(cal: Calendar) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Term codes ('F2027') and labels ('Fall 2027', 'winter quarter 2028') of ``cal``."""
    return _compile_term_patterns(tuple((k.code, k.name, *k.aliases) for k in cal.terms))


@lru_cache(maxsize=16)
def _compile_term_patterns(
    kinds: tuple[tuple[str, ...], ...],
) -> tuple[re.Pattern[str], re.Pattern[str]]:
    codes = "|".join(re.escape(k[0]) for k in sorted(kinds, key=lambda k: -len(k[0])))
    words = sorted({w for k in kinds for w in k[1:]}, key=lambda w: (-len(w), w))
    names = "|".join(r"[\s-]+".join(map(re.escape, w.split())) for w in words)
    return (
        re.compile(rf"\b({codes})(\d{{4}})\b"),
        re.compile(rf"\b({names})\s+(\d{{4}})\b", re.IGNORECASE),
    )


def _texts(value: Any) -> Iterable[str]:
    """Every string in a dumped model, skipping citation quotes."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            if k != "quote":
                yield from _texts(v)
    elif isinstance(value, list):
        for v in value:
            yield from _texts(v)
    elif value is not None:
        yield str(value)


def grounded_mentions(draft: Recommendation) -> dict[str, set[str]]:
    """What a letter may mention: everything the draft says except the letter itself and
    citation quotes (catalog prose that lists many courses the plan never chose)."""
    data = draft.model_dump(mode="json", exclude={"letter"})
    return letter_mentions("\n".join(_texts(data)))


def check_letter(letter: str, draft: Recommendation) -> list[str]:
    """Mentions in ``letter`` not grounded in ``draft``, one readable line each (sorted);
    empty when the letter only names what the draft contains."""
    found = letter_mentions(letter)
    allowed = grounded_mentions(draft)
    noun = {"courses": "course", "terms": "term", "rules": "rule or program"}
    problems: list[str] = []
    for kind in ("courses", "terms", "rules"):
        for item in sorted(found[kind] - allowed[kind]):
            problems.append(f"{noun[kind]} {item!r} is not in the recommendation")
    return problems

"""The intake's goals: the graduation target, the student's own load caps, the load
(courses, units or both) wanted next term, and the optional terms (summer, a January
interim) the student will take courses in.

Split from ``agents.intake`` to keep each module readable in one sitting; the intake stage
uses ``read_goals`` and shares the ``Collector`` of notes and open questions.

Optional terms: the request's ``optional_terms`` and ``optional_kinds`` win over what the
text says (as one wish: either field given means the text's are only noted). Each term must
be one the calendar reads, of a kind it does not mark regular, after the current term; a
regular term is ignored with a note (it is planned anyway), an unreadable or past one is
an open question. Each kind must be an optional kind of the calendar (a code, name or
alias); any other is ignored with a note. Nothing is guessed.
"""

from __future__ import annotations

from agents.artifacts import Goals, OpenQuestion, PlanRequest
from agents.catalog import Term, active_calendar
from agents.errors import TermError
from agents.llm import IntakeExtraction, is_relative_target, resolve_target_phrase

__all__ = ["Collector", "read_goals", "term_or_ask"]


class Collector:
    """Notes and open questions gathered while reading one request."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.questions: list[OpenQuestion] = []

    def ask(self, field: str, question: str, source: str = "") -> None:
        if not any(q.field == field and q.question == question for q in self.questions):
            self.questions.append(OpenQuestion(field=field, question=question, source_text=source))


def term_or_ask(code: str, field: str, c: Collector) -> Term | None:
    """The term ``code`` names, or None with an open question on ``field``."""
    try:
        return Term.parse(code)
    except TermError as exc:
        c.ask(field, f"{exc}", code)
        return None


def read_goals(request: PlanRequest, ext: IntakeExtraction, current: Term, c: Collector) -> Goals:
    """The goals: the request's fields first, the text's where they are empty."""
    target, reason = request.target_graduation, "the request's target_graduation field"
    if target and ext.target_graduation and ext.target_graduation != target:
        c.notes.append(
            f"the request's target {target} wins over the text's "
            f"{ext.target_graduation} ({ext.target_phrase!r})"
        )
    if target is None and ext.target_graduation:
        target = ext.target_graduation
        reason = f"{ext.target_phrase!r} in the request text"
        if is_relative_target(ext.target_phrase):
            got = resolve_target_phrase(
                ext.target_phrase,
                start_term=request.student.start_term,
                current_term=current.code,
            )
            reason = f"{reason}: {got[1]}" if got else reason
    if target is not None:
        t = term_or_ask(target, "target_graduation", c)
        if t is not None and t <= current:
            c.ask(
                "target_graduation",
                f"The target {t.label()} ({t.code}) is not after the "
                f"current term {current.code}; which later term is meant?",
                target,
            )
            t = None
        target = t.code if t else None
    units = request.max_units_per_term or ext.max_units_per_term
    courses = request.max_courses_per_term or ext.max_courses_per_term
    wanted = request.next_term_courses or ext.next_term_courses
    load = request.next_term_units or ext.next_term_units
    terms, kinds = _optional(request, ext, current, c)
    return Goals(
        target_graduation=target,
        target_reason=reason if target else "",
        max_units_per_term=units if units and units > 0 else None,
        max_courses_per_term=courses if courses and courses > 0 else None,
        next_term_courses=wanted if wanted and wanted > 0 else None,
        next_term_units=load if load and load > 0 else None,
        optional_terms=terms,
        optional_kinds=kinds,
        close_programs=request.close_programs or ext.close_programs,
    )


def _optional(
    request: PlanRequest, ext: IntakeExtraction, current: Term, c: Collector
) -> tuple[list[str], list[str]]:
    """(optional terms, optional kinds) the plan may use, each checked against the calendar."""
    given = bool(request.optional_terms or request.optional_kinds)
    text = ext.optional_terms + ext.optional_kinds
    if given and text and set(text) != {*request.optional_terms, *request.optional_kinds}:
        c.notes.append(
            f"the request's optional terms ({', '.join(request.optional_terms) or 'none'}; "
            f"kinds {', '.join(request.optional_kinds) or 'none'}) win over the text's "
            f"({', '.join(text)})"
        )
    raw_terms = request.optional_terms if given else ext.optional_terms
    raw_kinds = request.optional_kinds if given else ext.optional_kinds
    cal = active_calendar()
    terms: list[str] = []
    for code in raw_terms:
        t = term_or_ask(code, "optional_terms", c)
        if t is None:
            continue
        if t.regular:
            c.notes.append(
                f"{t.label()} ({t.code}) is a regular term, planned anyway; not an optional term"
            )
        elif t <= current:
            c.ask(
                "optional_terms",
                f"{t.label()} ({t.code}) is not after the current term {current.code}; which "
                "later optional term will the student take courses in?",
                code,
            )
        elif t.code not in terms:
            terms.append(t.code)
    terms.sort(key=lambda x: Term.parse(x).index)
    kinds: list[str] = []
    optional = ", ".join(f"{k.code} ({k.name})" for k in cal.terms if not k.regular)
    for word in raw_kinds:
        kind = cal.kind_code(word)
        if kind is None or cal.kind_by_code[kind].regular:
            what = "not a kind of term" if kind is None else "a regular kind of term"
            c.notes.append(
                f"ignored the optional kind {word!r}: {what} in the {cal.system} calendar "
                f"(optional kinds: {optional or 'none'})"
            )
        elif kind not in kinds:
            kinds.append(kind)
    return terms, [k.code for k in cal.terms if k.code in kinds]

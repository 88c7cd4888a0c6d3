"""Sessions of a term read with the catalog: which sessions a course runs in, a session's
cap, and the checks of an offering that names a session (``agents.catalog.sessions``)."""

from __future__ import annotations

from agents.catalog.courses import Course
from agents.catalog.model import Catalog
from agents.catalog.sessions import SEP, TermSession, split_offering
from agents.catalog.terms import Calendar, Term
from agents.errors import TermError


def offering_problem(calendar: Calendar, word: str) -> str | None:
    """Why an offering word names a session its kind does not have; None when it is
    fine (or names no session, or names no kind: the caller reports that)."""
    kind_word, session = split_offering(word)
    code = calendar.kind_code(kind_word)
    if session is None or code is None:
        return None
    kind = calendar.kind_by_code[code]
    if any(s.code == session for s in kind.sessions):
        return None
    if not kind.sessions:
        return (
            f"{word!r} names session {session!r} of {kind.name}, which has no sessions; "
            f"write {kind_word!r} alone, or declare sessions under the calendar's "
            f"{kind.code} kind in institution.yaml"
        )
    known = ", ".join(f"{kind_word}{SEP}{s.code}" for s in kind.sessions)
    return (
        f"{word!r} names session {session!r} of {kind.name}, which has sessions "
        f"{', '.join(s.code for s in kind.sessions)}; write one of {known}, or {kind_word!r} "
        "for every session"
    )


def session_of(term: Term, code: str) -> TermSession | None:
    return next((s for s in term.kind_info.sessions if s.code == code), None)


def offered_sessions(course: Course, term: Term) -> list[str]:
    """Codes of the sessions of ``term`` that ``course``'s offering names (every session
    when it names the kind alone); empty when the term has no sessions or the offering
    does not name its kind."""
    sessions = term.kind_info.sessions
    named: set[str] = set()
    for word in course.offered.terms:
        kind_word, session = split_offering(word)
        if term.calendar.kind_code(kind_word) != term.kind:
            continue
        if session is None:
            return [s.code for s in sessions]
        named.add(session)
    return [s.code for s in sessions if s.code in named]


def session_note(term: str, session: str | None) -> str:
    """' (Session I)' to follow a course planned in session 'I' of ``term`` (a term code,
    read with the calendar in use); '' without a session."""
    if session is None:
        return ""
    try:
        found = session_of(Term.parse(term), session)
    except TermError:
        found = None
    return f" ({found.name if found is not None else 'session ' + session})"


def session_label(term: Term, code: str | None) -> str:
    """'Summer 2027, Session I'; the term's label alone without a session."""
    s = session_of(term, code) if code else None
    return f"{term.label()}, {s.name}" if s is not None else term.label()


def session_caps(catalog: Catalog, term: Term) -> dict[str, float]:
    """Each session of ``term`` -> the most units any student may take in it: the lowest
    of its ``max_units`` and the limits of the ``max_units_per_session`` rules that cover
    the term and hold for every student (no condition but term kinds); sessions without a
    cap are left out. The rows of a rule's limit table (on probation, for a GPA) are the
    critique's to check."""
    plain = [
        r.limit
        for r in catalog.policies
        if r.kind == "max_units_per_session"
        and r.limit is not None
        and r.applies_when.model_copy(update={"term_kinds": []}).is_empty
        and (not r.applies_when.term_kinds or term.kind in r.applies_when.term_kinds)
    ]
    out: dict[str, float] = {}
    for s in term.kind_info.sessions:
        caps = [c for c in (s.max_units, *plain) if c is not None]
        if caps:
            out[s.code] = min(caps)
    return out

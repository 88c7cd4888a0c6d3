"""Why a plan cannot fit its courses into the sessions of its terms: the courses that run
only in one session (summer session I), with their credits, against what that session's
cap (``agents.catalog.session_caps``) holds over every term they may be placed in.

A check a person can do by hand, run with the other analyses before the solver
(``agents.planner.reasons.analysis_reasons``)."""

from __future__ import annotations

from agents.catalog import credit_sum, credits_text, offered_sessions, session_caps
from agents.planner.prep import Prep


def session_reasons(prep: Prep, end_word: str) -> list[str]:
    """One sentence per session whose only-courses need more credits than its caps hold
    in the terms they may go in."""
    only: dict[tuple[str, str], list[str]] = {}  # (kind, session) -> courses
    for code in sorted(prep.must):
        places = prep.allowed.get(code, [])
        runs = {tuple(offered_sessions(prep.course(code), prep.terms[i])) for i in places}
        if len(runs) == 1 and len(first := next(iter(runs))) == 1 and places:
            only.setdefault((prep.terms[places[0]].kind, first[0]), []).append(code)
    out: list[str] = []
    for (_, session), codes in sorted(only.items()):
        places = sorted({i for c in codes for i in prep.allowed[c]})
        caps = [session_caps(prep.catalog, prep.terms[i]).get(session) for i in places]
        if any(cap is None for cap in caps):
            continue
        need = credit_sum(prep.course(c).units for c in codes)
        room = credit_sum(cap for cap in caps if cap is not None)
        if need <= room + 1e-9:
            continue
        term = prep.terms[places[0]]
        name = term.kind_info.name
        where = ", ".join(prep.terms[i].code for i in places)
        out.append(
            f"{' and '.join(codes)} ({credits_text(need)}) run only in session {session} of "
            f"{name}, capped at {credits_text(min(c for c in caps if c is not None))} a term; "
            f"the {name} terms they can be taken in by {end_word} ({where}) hold "
            f"{credits_text(room)}"
        )
    return out

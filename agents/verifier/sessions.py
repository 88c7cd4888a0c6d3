"""Checks of a plan's sessions within terms (``agents.catalog.sessions``).

A planned term whose kind has sessions says which session each course is taken in
(``sessions``, course -> session code; a plan that does not carry it names none). The
verifier reports a session the kind does not have, a course planned in a session its
offering does not name, a course that runs only in some sessions but is planned with none,
and a session whose units exceed its cap (the session's ``max_units`` and the
``max_units_per_session`` rules that hold for every student). The term's own cap, across
its sessions, is checked with the other loads.
"""

from __future__ import annotations

from agents.catalog import Catalog, Term, count_text, credit_sum, offered_sessions, session_caps
from agents.verifier.defects import Add
from agents.verifier.protocols import PlanLike


def check_sessions(add: Add, catalog: Catalog, plan: PlanLike) -> None:
    """Report every session problem of ``plan`` (see the module docstring)."""
    for pt in plan.terms:
        term = Term.parse(pt.term)
        chosen: dict[str, str] = getattr(pt, "sessions", None) or {}
        kinds = term.kind_info.sessions
        loads: dict[str, float] = {}
        for cc in pt.courses:
            course = catalog.course_by_code.get(cc)
            session = chosen.get(cc)
            if course is None:
                continue
            if not kinds:
                if session is not None:
                    add("offering", term.code, cc, f"{cc} in {term.code} is planned in "
                        f"session {session!r}, but {term.kind_info.name} terms have no "
                        "sessions")  # fmt: skip
                continue
            runs = offered_sessions(course, term)
            if session is None:
                if runs and len(runs) < len(kinds):
                    add("offering", term.code, cc, f"{cc} in {term.code} names no session; it "
                        f"runs only in session {', '.join(runs)} of {term.label()}")  # fmt: skip
                continue
            if session not in {s.code for s in kinds}:
                add("offering", term.code, cc, f"{cc} in {term.code} is planned in session "
                    f"{session!r}, which {term.kind_info.name} terms do not have (sessions: "
                    f"{', '.join(s.code for s in kinds)})")  # fmt: skip
                continue
            if runs and session not in runs:
                add("offering", term.code, cc, f"{cc} is not offered in session {session} of "
                    f"{term.label()} (offered in session {', '.join(runs)})")  # fmt: skip
            loads[session] = credit_sum((loads.get(session, 0.0), course.units))
        for code, cap in session_caps(catalog, term).items():
            if loads.get(code, 0.0) > cap + 1e-9:
                amount = count_text(loads[code], catalog.institution.unit_name)
                add("units_max", term.code, None, f"{amount} in session {code} of "
                    f"{term.code} exceed the session's cap of {cap:g}")  # fmt: skip

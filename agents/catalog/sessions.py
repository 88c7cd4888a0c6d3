"""Sessions within a term: summer session I, session II, a 10-week session.

A kind of term may declare sessions (``TermKind.sessions``): each with a code, a name, the
weeks of the term it runs (``first_week`` to ``last_week``) and an optional cap on the
units a student takes in it (``max_units``). A course's offering names a session after
its kind with a colon: ``summer:I`` (``U:II``, ``Summer:10W``); a kind named without a
session offers the course in every session of that kind. The term's own caps (the load
rules of policies.yaml) stay the caps across its sessions; each session's ``max_units``
and the ``max_units_per_session`` policy rules cap each session.

Prerequisites read a term as one term: a course of session I is not complete before
session II of the same term (the planner and the verifier both read it so).

This module holds the model and what the calendar needs (``terms`` imports it); what reads
offerings, terms and policies is in ``agents.catalog.session_offerings``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pydantic import Field

from agents.catalog.base import CatalogModel

SESSION_CODE_PATTERN = r"^[A-Z0-9]{1,4}$"
SEP = ":"


class TermSession(CatalogModel):
    """One session of a kind of term (summer session I)."""

    code: str = Field(
        pattern=SESSION_CODE_PATTERN,
        description="Code, 1-4 capitals or digits, written after the kind in offerings "
        "('summer:I'), e.g. 'I', 'II', '10W'.",
    )
    name: str = Field(min_length=1, description="Readable name, e.g. 'Session I'.")
    first_week: int = Field(ge=1, description="Week of the term the session starts in (1 = first).")
    last_week: int = Field(ge=1, description="Week of the term the session ends in.")
    max_units: float | None = Field(
        default=None,
        gt=0,
        description="Most units a student may take in this session (the term's own cap "
        "still applies across its sessions). None: only the term's cap.",
    )


class _KindLike(Protocol):
    code: str
    name: str
    sessions: list[TermSession]

    @property
    def typical_dates(self) -> object: ...


def sessions_problem(kinds: Sequence[_KindLike]) -> str | None:
    """The first problem of the kinds' sessions: a repeated code, weeks out of order or
    past the kind's typical length."""
    for k in kinds:
        codes = [s.code for s in k.sessions]
        dup = sorted({c for c in codes if codes.count(c) > 1})
        if dup:
            return f"term kind {k.code}: session codes must be unique; repeated: {', '.join(dup)}"
        weeks = getattr(k.typical_dates, "weeks", None)
        for s in k.sessions:
            if s.last_week < s.first_week:
                return (
                    f"term kind {k.code}, session {s.code}: last_week {s.last_week} is before "
                    f"first_week {s.first_week}; weeks count from the term's first week"
                )
            if weeks is not None and s.last_week > weeks:
                return (
                    f"term kind {k.code}, session {s.code}: last_week {s.last_week} is past "
                    f"the term's {weeks} weeks (typical_dates.weeks); shorten the session "
                    "or lengthen the term"
                )
    return None


def split_offering(word: str) -> tuple[str, str | None]:
    """'summer:I' -> ('summer', 'I'); 'fall' -> ('fall', None)."""
    kind, sep, session = word.partition(SEP)
    return (kind.strip(), session.strip().upper() or None) if sep else (word, None)

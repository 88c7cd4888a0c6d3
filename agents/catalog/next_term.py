"""Main terms: what "next term" and "next semester" mean.

A calendar may run short terms between its main ones (a January interim, a May term, a
summer session). Even when such a term is *regular* (load rules apply and plans use it),
"next term", "next semester", a request's ``next_term_courses`` and a next-term plan mean
the next *main* term - the one with a standard full load - unless the student names the
short term ("next J-term", "what can I take in January?": ``named_short_term``).

Which kinds are main (``main_kinds``): a kind's own ``main`` field when the calendar sets
it; otherwise every regular kind, except one whose standard load under the catalog's load
rules (``max_units_per_term`` and ``max_courses_per_term``, the lowest limit that applies
to it; a course count in the catalog's typical course size) is under half the largest
regular kind's, or whose typical dates run under half as many weeks as the longest
regular kind's. Optional kinds are never main.

Inside ``use_main_kinds`` (which ``use_catalog`` binds) ``next_main`` reads the catalog's
main kinds; outside it, those its calendar alone says (its ``main`` fields and typical
dates).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

from agents.catalog.terms import Calendar, Term

SHORT_SHARE = 0.5  # a load or length under this share of the main ones' makes a short term

_BOUND: ContextVar[tuple[Calendar, frozenset[str]] | None] = ContextVar("main_kinds", default=None)


def calendar_main_kinds(
    calendar: Calendar, loads: Mapping[str, float] | None = None
) -> frozenset[str]:
    """The main kinds of ``calendar``: its ``main`` fields, else the regular kinds that are
    not short by ``loads`` (each regular kind's standard load in credits, where known;
    ``agents.catalog.main_terms``) or by their typical dates (module docstring)."""
    loads = loads or {}
    regular = [k for k in calendar.terms if k.regular]
    weeks = {k.code: k.typical_dates.weeks for k in regular if k.typical_dates is not None}
    top_load = max((loads[k.code] for k in regular if k.code in loads), default=0.0)
    top_weeks = max(weeks.values(), default=0)
    out: set[str] = set()
    for k in calendar.terms:
        if k.main is not None:
            if k.main:
                out.add(k.code)
            continue
        if not k.regular:
            continue
        short_load = k.code in loads and loads[k.code] < SHORT_SHARE * top_load
        short_weeks = k.code in weeks and weeks[k.code] < SHORT_SHARE * top_weeks
        if not (short_load or short_weeks):
            out.add(k.code)
    return frozenset(out or (k.code for k in regular))


@contextmanager
def use_main_kinds(calendar: Calendar, kinds: frozenset[str]) -> Iterator[frozenset[str]]:
    """``next_main`` reads ``kinds`` for ``calendar``'s terms inside the block
    (``agents.catalog.use_catalog`` binds the catalog's)."""
    token = _BOUND.set((calendar, kinds))
    try:
        yield kinds
    finally:
        _BOUND.reset(token)


def next_main(term: Term, kinds: frozenset[str] | None = None) -> Term:
    """The next main term after ``term``: of ``kinds``, else of the bound catalog's main
    kinds (for ``term``'s calendar), else of the calendar's own."""
    if kinds is None:
        bound = _BOUND.get()
        if bound is not None and bound[0] is term.calendar:
            kinds = bound[1]
        else:
            kinds = calendar_main_kinds(term.calendar)
    t = term.shift(1)
    while t.kind not in kinds:
        t = t.shift(1)
    return t


_MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August",
                "September", "October", "November", "December")  # fmt: skip


def named_short_term(text: str, term: Term, kinds: frozenset[str] | None = None) -> Term | None:
    """The short term between ``term`` and the next main one that ``text`` names - by its
    kind's name or an alias (any case), or a month only that kind runs in (capitalized;
    never "May", a word too common to be a term's name) - if any: a next-term request that
    names it is for that term."""
    end = next_main(term, kinds)
    cal = term.calendar
    t = term.shift(1)
    while t.index < end.index:
        kind = cal.kind_by_code[t.kind]
        words = [kind.name, *kind.aliases]
        months = [_MONTH_NAMES[m - 1] for m in kind.months if cal.kind_for_month(m) == kind.code]
        if any(_said(w, text, re.I) for w in words) or any(
            _said(m, text, 0) for m in months if m != "May"
        ):
            return t
        t = t.shift(1)
    return None


def _said(word: str, text: str, flags: int) -> bool:
    parts = [re.escape(p) for p in re.split(r"[\s-]+", word.strip()) if p]
    rx = r"(?<![\w-])" + r"[\s-]+".join(parts) + r"(?![\w-])"
    return bool(parts) and re.search(rx, text, flags) is not None

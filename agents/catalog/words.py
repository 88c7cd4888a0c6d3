"""The catalog's own words for its credits and terms, in the singular and the plural.

A catalog names its credits (``institution.unit_name``: "units", "credits", "courses",
"quarter units"; ``credits.unit_name``/``credits_text``) and its terms (``calendar.
term_word``: "semester", "quarter", "trimester", "term"; ``term_word``/``terms_text``).
Every sentence a person reads says those words, with the number they go with: "1 course",
"2 courses", "1 credit", "3 quarters" - never "1 courses" or "Semester plan" on a quarter
catalog. Machine-read names (JSON keys, CSV columns, ids such as ``total-units``) keep
their own spelling.
"""

from __future__ import annotations

from agents.catalog.terms import Calendar, active_calendar

TERM_WORDS = ("semester", "quarter", "trimester")
"""Systems that are also the word for one of their terms; any other system's terms are
called 'term' unless the calendar says ``term_word``."""


def singular(noun: str) -> str:
    """'credits' -> 'credit', 'quarter units' -> 'quarter unit', 'units of credit' -> 'unit
    of credit', 'courses' -> 'course'; a noun not ending in 's' comes back unchanged."""
    words = noun.split(" ")
    if words[-1].endswith("s"):
        words[-1] = words[-1][:-1]
    elif words[0].endswith("s"):
        words[0] = words[0][:-1]
    return " ".join(words)


def _number(n: float) -> str:
    return f"{n:g}"


def count_text(n: float, noun: str) -> str:
    """'1 course', '2 courses', '0 courses': ``noun`` is the plural; one takes its
    singular."""
    return f"{_number(n)} {singular(noun) if n == 1 else noun}"


def calendar_term_word(calendar: Calendar) -> str:
    """What ``calendar`` calls one of its terms: its ``term_word``, else its system when
    that names a term (semester, quarter, trimester), else 'term'."""
    if calendar.term_word:
        return calendar.term_word
    system = calendar.system.strip().casefold()
    return system if system in TERM_WORDS else "term"


def term_word(plural: bool = False) -> str:
    """What the calendar in use calls a term ('semester'; 'quarters' with ``plural``)."""
    word = calendar_term_word(active_calendar())
    return word + "s" if plural else word


def terms_text(n: int) -> str:
    """'1 quarter', '6 semesters', '3 terms' in the calendar in use."""
    return f"{n} {term_word(plural=n != 1)}"

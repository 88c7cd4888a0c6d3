"""Terms in a plan request's text, for the offline text parser: the graduation target
(a named term, or a count of years or terms) and the terms the student will be away.

Split from ``textparse`` to keep each module readable in one sitting; ``textparse`` uses
these and re-exports the public two. A term is "away" when "off", "abroad" or "away"
follows it, or when an away cue ("abroad", "on leave") comes after the last target cue
("graduate", "by") before it; a bare year can only be a graduation target. A relative
target needs the student's start term; without it the phrase is unresolved, never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from agents.catalog import Calendar, Term, active_calendar, first_regular, next_main
from agents.llm.boundary import IntakeExtraction
from agents.llm.textparse_programs import Span, overlaps, sentence_of

__all__ = [
    "AWAY_CUE",
    "GRAD_CUE",
    "is_relative_target",
    "read_terms",
    "resolve_target_phrase",
    "term_hits",
    "word_rx",
]


_NUM_WORDS = {
    "a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
_NUM = r"([0-9]+(?:\.[0-9]+)?|a|one|two|three|four|five|six|seven|eight|nine|ten)"
_YEARS_RE = re.compile(
    rf"\b(?:(?:in|within|under|over|after)\s+(?:just\s+|only\s+)?)?{_NUM}(\s+and\s+a\s+half)?"
    rf"(\s+more)?[\s-]+years?(\s+from\s+now)?",
    re.I,
)
_EARLY_RE = re.compile(
    rf"\b{_NUM}\s+(semesters?|terms?|quarters?|trimesters?|years?)\s+(early|earlier)\b", re.I
)
_ON_TIME_RE = re.compile(r"\b(?:graduat\w*|finish\w*|done)\s+(?:\w+\s+){0,3}?on\s+time\b", re.I)
GRAD_CUE = re.compile(
    r"\b(graduat\w*|finish\w*|done|complet\w*|degree|wrap\w* up|be out|commencement)\b", re.I
)
_TARGET_CUE = re.compile(
    r"\b(graduat\w*|finish\w*|done|complet\w*|wrap\w* up|be out|commencement|by)\b", re.I
)
AWAY_CUE = re.compile(
    r"\b(abroad|away|leave of absence|on leave|exchange|internship|co-?op|not (?:be )?enroll\w*)"
    r"\b",
    re.I,
)
_PERIOD = r"(?:semester|term|quarter|trimester|session)"


@dataclass(frozen=True)
class _CalendarText:
    """The patterns that find terms of one calendar in text: its kind names and aliases
    ("fall", "winter quarter", "J-term"), its kind codes ("T12027") and months."""

    away_alone: re.Pattern[str]
    term_res: list[tuple[str, re.Pattern[str]]]


def _calendar_text(cal: Calendar) -> _CalendarText:
    key = tuple((k.code, k.name, *k.aliases) for k in cal.terms)
    return _compile(key)


@lru_cache(maxsize=16)
def _compile(kinds: tuple[tuple[str, ...], ...]) -> _CalendarText:
    words = sorted({w for k in kinds for w in k[1:]}, key=lambda w: (-len(w), w))
    season = "(" + "|".join(word_rx(w) for w in words) + ")"
    codes = "|".join(re.escape(k[0]) for k in sorted(kinds, key=lambda k: -len(k[0])))
    away = re.compile(
        r"\b(?:stud(?:y|ying)\s+(?:abroad|away)|abroad|leave of absence|on leave)"
        rf"(?:\s+(?:in|during|for)\s+(?:the\s+)?{season})?(?![\w-])",
        re.I,
    )
    return _CalendarText(
        away_alone=away,
        term_res=[
            (
                "season_year",
                re.compile(rf"\b{season}(?:\s+(?:of\s+)?|\s*')([0-9]{{4}}|[0-9]{{2}})\b", re.I),
            ),
            ("year_season", re.compile(rf"\b([0-9]{{4}})\s+{season}(?![\w-])", re.I)),
            ("code", re.compile(rf"\b({codes})(20[0-9]{{2}})\b")),
            ("month", re.compile(_MONTH_RE, re.I)),
            (
                "next",
                re.compile(
                    rf"\b(?:next|(?:this |the )?coming)\s+(?:{season}|{_PERIOD})(?![\w-])", re.I
                ),
            ),
            ("year", re.compile(r"\b(20[0-9]{2})\b")),
        ],
    )


def word_rx(word: str) -> str:
    """A kind's name as a pattern: any case, '-' or space between its parts."""
    return r"[\s-]+".join(re.escape(p) for p in re.split(r"[\s-]+", word.strip()))


_MONTHS = {
    m: i
    for i, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1
    )
}
_MONTH_RE = r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?:of\s+)?([0-9]{4})\b"


# --------------------------------------------------------------------------- helpers


def _per_year() -> int:
    """Regular terms in an academic year of the calendar in use (2 for semesters)."""
    return active_calendar().regular_per_year


def _on_time_terms(start_term: str) -> int:
    """Regular terms in a four-year degree."""
    return 4 * Term.parse(start_term).calendar.regular_per_year


def _number(word: str) -> float:
    return float(word) if word[0].isdigit() else float(_NUM_WORDS[word.lower()])


def _nth_regular(first: Term, n: int) -> Term:
    t = first_regular(first)
    for _ in range(n - 1):
        t = t.next_regular()
    return t


# --------------------------------------------------------------------------- targets


def is_relative_target(phrase: str) -> bool:
    """Whether ``phrase`` counts years or terms rather than naming a term."""
    return any(rx.search(phrase) for rx in (_EARLY_RE, _ON_TIME_RE, _YEARS_RE))


def resolve_target_phrase(
    phrase: str, *, start_term: str | None, current_term: str | None = None
) -> tuple[str, str] | None:
    """A relative target as (term code, how it was read); None when it cannot be resolved.

    Years count the calendar's regular terms from the start term (with semesters "3.5 years"
    = 7 terms, "a semester early"
    = 7); "N more years" and "N years from now" count from the term after the current one.
    """
    m = _EARLY_RE.search(phrase)
    if m:
        if not start_term:
            return None
        n, unit = _number(m.group(1)), m.group(2).lower()
        full = _on_time_terms(start_term)
        terms = full - round(n * (_per_year() if unit.startswith("year") else 1))
        if terms < 1:
            return None
        t = _nth_regular(Term.parse(start_term), terms)
        return t.code, f"{terms} regular terms from {start_term} instead of {full}"
    if _ON_TIME_RE.search(phrase):
        if not start_term:
            return None
        full = _on_time_terms(start_term)
        return _nth_regular(Term.parse(start_term), full).code, (
            f"{full} regular terms from {start_term}"
        )
    m = _YEARS_RE.search(phrase)
    if m is None:
        return None
    years = _number(m.group(1)) + (0.5 if m.group(2) else 0)
    terms = round(years * _per_year())
    if terms < 1:
        return None
    if m.group(3) or m.group(4):
        if not current_term:
            return None
        first = Term.parse(current_term).next_regular()
        return _nth_regular(first, terms).code, f"{terms} more regular terms from {first.code}"
    if not start_term:
        return None
    t = _nth_regular(Term.parse(start_term), terms)
    return t.code, f"{years:g} years = {terms} regular terms from {start_term}"


def _term_code(kind: str, m: re.Match[str], current: Term) -> str | None:
    if kind == "season_year":
        y = m.group(2)
        return Term.parse(f"{m.group(1)} {'20' + y if len(y) == 2 else y}").code
    if kind == "year_season":
        return Term.parse(f"{m.group(2)} {m.group(1)}").code
    if kind == "code":
        return m.group(0)
    cal = current.calendar
    if kind == "month":
        code = cal.kind_for_month(_MONTHS[m.group(1).lower()])
        return cal.term(code, int(m.group(2))).code if code else None
    if kind == "next":
        wanted = cal.kind_code(m.group(1)) if m.group(1) else None
        if wanted is None:
            return next_main(current).code  # "next term": the next main one, not an interim
        optional = not cal.kind_by_code[wanted].regular
        t = current.next_regular(include_summer=optional)
        while t.kind != wanted:
            t = t.next_regular(include_summer=optional)
        return t.code
    return None  # a bare year: only a graduation target can use it


def term_hits(text: str, current: Term) -> list[tuple[Span, str | None]]:
    hits: list[tuple[Span, str | None]] = []
    for kind, rx in _calendar_text(current.calendar).term_res:
        for m in rx.finditer(text):
            if not overlaps(m.span(), [s for s, _ in hits]):
                hits.append((m.span(), _term_code(kind, m, current)))
    return sorted(hits)


def _term_role(text: str, sent: Span, lead_start: int, span: Span) -> str:
    tail = text[span[1] : sent[1]]
    if re.match(r"\s*(?:off|abroad|away)\b", tail, re.I):
        return "away"
    away = [m.end() for m in AWAY_CUE.finditer(text, lead_start, span[0])]
    target = [m.end() for m in _TARGET_CUE.finditer(text, sent[0], span[0])]
    if away and (not target or max(away) > max(target)):
        return "away"
    return "target" if target else "other"


def read_terms(
    text: str,
    sents: list[Span],
    current: Term,
    start_term: str | None,
    out: IntakeExtraction,
    skip: list[Span] | None = None,
) -> None:
    """Graduation target and terms away into ``out``; terms at ``skip`` (read already, as
    optional terms to take courses in) are neither."""
    prev_end, away_sents = 0, set()
    for span, code in term_hits(text, current):
        if skip and overlaps(span, skip):
            continue
        sent = sentence_of(sents, span[0])
        role = _term_role(text, sent, max(prev_end, sent[0]), span)
        phrase, prev_end = text[span[0] : span[1]], span[1]
        if role == "away" and code is not None:
            away_sents.add(sent)
            if code not in out.terms_away:
                out.terms_away.append(code)
                out.notes.append(f"read {phrase!r} as a term away: {code}")
        elif role == "target" and not out.target_phrase:
            if code is None and not phrase.isdigit():
                out.unresolved.append(phrase)
                out.notes.append(f"could not tell which term {phrase!r} means")
                continue
            if code is None:
                cal = current.calendar
                end = cal.kind_by_code[cal.last_regular_of_year]
                code = cal.term(end.code, int(phrase)).code
                out.notes.append(
                    f"read {phrase!r} as {code} (graduation years end in the "
                    f"{end.name.lower()} term)"
                )
            else:
                out.notes.append(f"read {phrase!r} as graduation by {code}")
            out.target_graduation, out.target_phrase = code, phrase
    for m in _calendar_text(current.calendar).away_alone.finditer(text):
        if sentence_of(sents, m.start()) not in away_sents and m.group(0) not in out.unresolved:
            out.unresolved.append(m.group(0))
            out.notes.append(f"could not tell which term {m.group(0)!r} means")
    if not out.target_phrase:
        _read_relative_target(text, sents, current, start_term, out)


def _read_relative_target(
    text: str, sents: list[Span], current: Term, start_term: str | None, out: IntakeExtraction
) -> None:
    m: re.Match[str] | None  # the "graduate early" search below may find nothing
    for rx in (_EARLY_RE, _ON_TIME_RE, _YEARS_RE):
        for m in rx.finditer(text):
            sent = sentence_of(sents, m.start())
            # "two years" alone may be how long ago something was; a goal says graduate.
            if rx is _YEARS_RE and not (
                "-" in m.group(0) or GRAD_CUE.search(text, sent[0], sent[1])
            ):
                continue
            phrase = m.group(0).strip()
            out.target_phrase = phrase
            got = resolve_target_phrase(phrase, start_term=start_term, current_term=current.code)
            if got is None:
                out.unresolved.append(phrase)
                out.notes.append(f"{phrase!r} needs the student's start term to name a term")
            else:
                out.target_graduation = got[0]
                out.notes.append(f"read {phrase!r} as graduation by {got[0]} ({got[1]})")
            return
    m = re.search(r"\bgraduat\w*\s+early\b", text, re.I)
    if m:
        out.unresolved.append(m.group(0))
        out.notes.append(f"{m.group(0)!r} does not say how early; name a term")

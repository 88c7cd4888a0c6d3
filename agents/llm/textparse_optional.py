"""Optional terms in a plan request's text, for the offline text parser: the summers or
January interims (kinds the calendar does not mark regular) the student says they will take
courses in.

A mention counts when its clause (the sentence up to commas, semicolons, "but") says the
student is willing ("I can", "I'll", "fine", "happy to", "don't mind") to study ("take",
"classes", "courses", "credits") and does not refuse ("can't", "no", "rather not"), ask
("can I", "how many") or speak of time away ("abroad", "on leave"). A term with a year
("Summer 2027", "next summer", "U2027") is that term; a kind without one ("summer classes
are fine", "a J-term course") is every term of the kind. A word for an optional term the
calendar does not have, or has as a regular term, is ignored with a note, never guessed.
Read before the target and terms away, so "I can take courses in Summer 2027" is never read
as a graduation target.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from agents.catalog import Calendar, Term
from agents.llm.boundary import IntakeExtraction
from agents.llm.textparse_programs import Span, overlaps, sentence_of
from agents.llm.textparse_terms import AWAY_CUE, term_hits, word_rx

__all__ = ["read_optional_terms"]

_WILLING = re.compile(
    r"\b(?:can|could|will|would|i'?ll|i'?d|i'?m (?:able|happy|willing|glad|fine|ok|okay|open)|"
    r"able to|happy to|willing to|glad to|plan(?:ning)? to|want to|like to|fine|ok|okay|"
    r"alright|possible|an option|open to|don'?t mind|do not mind|no problem|available|"
    r"good with|up for|works?)\b",
    re.I,
)
_STUDY = re.compile(
    r"\b(?:take|taking|enroll\w*|register\w*|class(?:es)?|courses?|credits?|units?|"
    r"stud(?:y|ying)|attend\w*|school|session)\b",
    re.I,
)
_REFUSE = re.compile(
    r"\b(?:can'?t|cannot|can not|won'?t|will not|wouldn'?t|would not|no|not|never|"
    r"rather not|avoid\w*|without|unable|don'?t want|do not want|don'?t plan)\b",
    re.I,
)
_NOT_REFUSAL = re.compile(r"\b(?:don'?t mind|do not mind|no problem|not only)\b", re.I)
_QUESTION = re.compile(
    r"\b(?:(?:can|could|may|will|would|should|do|am) i|how (?:many|much|long)|is it|"
    r"are there)\b",
    re.I,
)
_CLAUSE = re.compile(r"[,;:]|\b(?:but|though|although|however|while)\b", re.I)
_TARGET_BEFORE = re.compile(
    r"\b(?:by|graduat\w*|finish\w*|done|complet\w*)(?:\s+(?:in|by|at))?\s+(?:the\s+)?$", re.I
)
# Words schools use for optional terms, to tell the student when this calendar has none.
_OPTIONAL_WORDS = re.compile(
    r"\b(summer|j[\s-]?term|interim|intersession|winter session|may[\s-]?term|maymester)"
    r"(?:s\b|(?![\w-]))",
    re.I,
)


@dataclass(frozen=True)
class _KindText:
    """The calendar's optional kinds as one pattern (group name -> kind code)."""

    kinds: re.Pattern[str] | None
    groups: dict[str, str]


def _kind_text(cal: Calendar) -> _KindText:
    key = tuple((k.code, k.name, *k.aliases) for k in cal.terms if not k.regular)
    return _compile(key)


@lru_cache(maxsize=16)
def _compile(kinds: tuple[tuple[str, ...], ...]) -> _KindText:
    if not kinds:
        return _KindText(None, {})
    groups = {f"k{i}": k[0] for i, k in enumerate(kinds)}
    parts = [
        f"(?P<k{i}>" + "|".join(word_rx(w) for w in sorted(k[1:], key=len, reverse=True)) + ")"
        for i, k in enumerate(kinds)
    ]
    rx = re.compile(r"\b(?:" + "|".join(parts) + r")(?:s\b|(?![\w-]))", re.I)
    return _KindText(rx, groups)


def _clause(text: str, sent: Span, span: Span) -> str:
    """The clause of ``sent`` around ``span``: between the nearest boundaries either side."""
    start = max((m.end() for m in _CLAUSE.finditer(text, sent[0], span[0])), default=sent[0])
    after = _CLAUSE.search(text, span[1], sent[1])
    return text[start : after.start() if after else sent[1]]


def _stance(text: str, sent: Span, span: Span) -> str | None:
    """'willing', 'refused', or None when the clause says neither (or asks)."""
    clause = _clause(text, sent, span)
    lead = text[sent[0] : span[0]]
    if _TARGET_BEFORE.search(lead) or _QUESTION.search(clause) or AWAY_CUE.search(clause):
        return None
    if not _STUDY.search(clause):
        return None
    if _REFUSE.search(_NOT_REFUSAL.sub(" ", clause)):
        return "refused"
    return "willing" if _WILLING.search(clause) else None


def read_optional_terms(
    text: str, sents: list[Span], current: Term, out: IntakeExtraction
) -> list[Span]:
    """The optional terms and kinds ``text`` says the student will take courses in, into
    ``out``; returns the spans read, which are then no graduation target or term away."""
    cal = current.calendar
    taken: list[Span] = []
    for span, code in term_hits(text, current):
        if code is None or cal.parse(code).regular:
            continue
        stance = _stance(text, sentence_of(sents, span[0]), span)
        phrase = text[span[0] : span[1]]
        if stance == "willing" and code not in out.optional_terms:
            out.optional_terms.append(code)
            out.notes.append(f"read {phrase!r} as an optional term to take courses in: {code}")
        elif stance == "refused":
            out.notes.append(f"read {phrase!r} as no courses in {code}")
        if stance is not None:
            taken.append(span)
    kt = _kind_text(cal)
    for m in kt.kinds.finditer(text) if kt.kinds else ():
        if overlaps(m.span(), [s for s, _ in term_hits(text, current)]):
            continue
        kind = kt.groups[next(g for g, v in m.groupdict().items() if v)]
        name = cal.kind_by_code[kind].name
        stance = _stance(text, sentence_of(sents, m.start()), m.span())
        if stance == "willing" and kind not in out.optional_kinds:
            out.optional_kinds.append(kind)
            out.notes.append(
                f"read {m.group(0)!r} as willing to take courses in any {name} term ({kind})"
            )
        elif stance == "refused":
            out.notes.append(f"read {m.group(0)!r} as no courses in {name} terms")
        if stance is not None:
            taken.append(m.span())
    _foreign_words(text, sents, cal, taken, out)
    return taken


def _foreign_words(
    text: str, sents: list[Span], cal: Calendar, taken: list[Span], out: IntakeExtraction
) -> None:
    """Words for optional terms this calendar lacks or has as regular ones: a note each."""
    for m in _OPTIONAL_WORDS.finditer(text):
        if overlaps(m.span(), taken) or _stance(text, sentence_of(sents, m.start()), m.span()) != (
            "willing"
        ):
            continue
        word = m.group(1)
        kind = cal.kind_code(word)
        if kind is None:
            out.notes.append(
                f"the {cal.system} calendar has no term called {word!r}; no optional term read "
                f"from {m.group(0)!r}"
            )
        elif cal.kind_by_code[kind].regular:
            out.notes.append(
                f"{cal.kind_by_code[kind].name} is a regular term of the {cal.system} calendar: "
                "it is planned like any other"
            )

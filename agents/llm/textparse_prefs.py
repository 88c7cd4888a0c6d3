"""Preference readers for the offline text parser: load caps, interests, free days and times.

Split from ``textparse`` to keep each module readable in one sitting; only ``textparse``
uses these. Each reader returns what it found with the words it found it in, so the parser
can say how every finding was read.
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

Weekday = Literal["M", "T", "W", "R", "F", "S", "U"]
Span = tuple[int, int]

_WORD_NUMS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
_NUM = r"[0-9]+(?:\.[0-9]+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
_N = rf"({_NUM})"
_WHAT = r"(units?|credits?|credit hours|hours|courses?|classes|class)"
_CAP = (
    r"(?:no more than|not more than|at most|a maximum of|maximum of|max(?:imum)?(?: of)?|"
    r"up to|limit(?:ed)?(?: myself| it)? (?:of|to)|cap(?:ped)? (?:of|at)|capped at)"
)
_CAP_RES = [
    re.compile(rf"\b{_CAP}\s+{_N}\s+{_WHAT}(?![\w-])", re.I),
    re.compile(rf"\b{_N}\s+{_WHAT}\s+(?:max(?:imum)?|at most|or (?:fewer|less))\b", re.I),
]
# A load wanted in the next term (not a cap): a number of courses, units, or both - "5
# courses next semester", "next term I'd like to take five classes", "six courses (24
# units) next quarter", "24 units next quarter".
_NEXT = r"(?:next|the next|this coming|the coming)\s+(?:semester|term|trimester|quarter)"
_AMOUNT = r"(?:(?:quarter|semester)\s+)?(?:units?|credits?|credit hours|course units)"
_COUNT = r"(?:courses|classes)"
_JOIN = (
    r"\s*[(,]?\s*(?:and|for|with|totall?ing|making|or|i\.e\.|so)?\s*"
    r"(?:a total of|about|around|roughly)?\s*"
)
_LOADS = [  # (courses, then units) in each
    rf"(?P<n>{_NUM})\s+{_COUNT}(?:{_JOIN}(?P<u>{_NUM})\s+{_AMOUNT}\)?)?",
    rf"(?P<u>{_NUM})\s+{_AMOUNT}{_JOIN}(?P<n>{_NUM})\s+{_COUNT}\)?",
]
_TAKE = r"(?:take|taking|carry|carrying|do|doing|enroll(?:ing)? in|register(?:ing)? for)\s+"
_WANTED_RES = [
    *(re.compile(rf"\b{load}\s*,?\s+(?:in\s+|during\s+)?{_NEXT}\b", re.I) for load in _LOADS),
    re.compile(rf"\b(?P<u>{_NUM})\s+{_AMOUNT}\s*,?\s+(?:in\s+|during\s+)?{_NEXT}\b", re.I),
    *(re.compile(rf"\b{_NEXT}\b[^.;!?\n]{{0,40}}?\b{load}", re.I) for load in _LOADS),
    re.compile(rf"\b{_NEXT}\b[^.;!?\n]{{0,40}}?\b{_TAKE}(?P<u>{_NUM})\s+{_AMOUNT}\b", re.I),
]
_CAP_BEFORE = re.compile(rf"{_CAP}\s*$", re.I)

_INTEREST_RE = re.compile(
    r"\b(?:interested in|interest in|interests are|interests include|passionate about|"
    r"curious about|fascinated by|excited about|learn (?:more )?about|focus(?:ing)? on|"
    r"i (?:really |also )?(?:like|love|enjoy))\s+(?P<x>[^.;!?\n]+)",
    re.I,
)
_INTEREST_STOP = re.compile(
    r",\s*(?:and\s+)?(?:but|so|i|i'd|i'm|no|please|can|could|would)\b|\s+(?:but|so|because|"
    r"while|please|though)\b|\s+and\s+(?:i|i'd|i'm|would|want|also|no|still|can|graduate)\b|"
    r"\s+(?:in|by|before|during)\s+(?:spring|summer|fall|autumn|[0-9]{4})\b",
    re.I,
)
_INTEREST_SPLIT = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|as well as|plus)\s+", re.I)
_NOT_TOPIC = re.compile(
    r"^(?:to|adding|add|taking|graduating|studying|doing|getting|finishing|a minor|the minor|"
    r"a major|the major|switching|changing|dropping|declaring|registering)\b",
    re.I,
)
_TOPIC_TRIM = re.compile(
    r"^(?:(?:the|a|an|some|more|courses? (?:in|on|about)|classes (?:in|on|about)|"
    r"topics? (?:in|like|such as)|things like|stuff like|anything (?:in|about))\s+)+|"
    r"\s+(?:courses?|classes|topics|electives|stuff|too|as well|especially)$",
    re.I,
)

_DAY_NAMES: dict[str, Weekday] = {
    "monday": "M", "tuesday": "T", "wednesday": "W", "thursday": "R",
    "friday": "F", "saturday": "S", "sunday": "U",
}  # fmt: skip
_DAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
_DAYS = rf"(?P<days>{_DAY}(?:\s*(?:,|/|or|and|&)\s*(?:or\s+|and\s+)?{_DAY})*)"
_CLASS = r"(?:class(?:es)?|courses?|lectures?|sections?)"
_DAY_RES = [
    re.compile(rf"\bno\s+{_DAYS}\s+{_CLASS}", re.I),
    re.compile(rf"\bno\s+{_CLASS}\s+on\s+{_DAYS}", re.I),
    re.compile(rf"\b{_DAYS}\s+(?:off|free|open|clear)\b", re.I),
    re.compile(rf"\bfree\s+{_DAYS}", re.I),
    re.compile(rf"\b(?:nothing|not|avoid\w*)\s+(?:on\s+)?{_DAYS}", re.I),
    re.compile(
        rf"\b(?:don'?t|do not|can'?t)\s+(?:want\s+|to\s+|have\s+)*{_CLASS}\s+on\s+{_DAYS}", re.I
    ),
    re.compile(rf"\bi\s+work\s+(?:on\s+)?{_DAYS}", re.I),
]
_TIME = r"(?P<t>noon|(?P<h>[0-9]{1,2})(?::(?P<m>[0-5][0-9]))?\s*(?P<ap>[ap]\.?\s?m\b\.?)?)"
_NEG = (
    r"(?:nothing|no\s+(?:class(?:es)?|courses?|lectures?)|not|avoid\w*|"
    r"don'?t want (?:anything|classes))"
)
_BEFORE_RES = [
    re.compile(rf"\b{_NEG}\s+(?:\w+\s+){{0,3}}?(?:before|earlier than|until)\s+{_TIME}", re.I),
    re.compile(rf"\b(?:start(?:ing)?|begin(?:ning)?)\s+(?:after|no earlier than)\s+{_TIME}", re.I),
]
_AFTER_RES = [
    re.compile(rf"\b{_NEG}\s+(?:\w+\s+){{0,3}}?(?:after|later than|past)\s+{_TIME}", re.I),
    re.compile(rf"\b(?:done|finish(?:ed)?|out|end(?:ing)?|free)\s+by\s+{_TIME}", re.I),
]
_PERIODS: list[tuple[str, str, re.Pattern[str]]] = [
    ("before", "10:00", re.compile(r"\bno\s+early(?:\s+morning)?\s+class(?:es)?\b", re.I)),
    ("before", "12:00", re.compile(
        r"\b(?:mornings?\s+(?:free|off|open)|free\s+mornings?|no\s+morning\s+class(?:es)?|"
        r"no\s+classes\s+in\s+the\s+morning|nothing\s+in\s+the\s+mornings?|"
        r"not a morning person)\b", re.I)),
    ("after", "12:00", re.compile(
        r"\b(?:afternoons?\s+(?:free|off|open)|free\s+afternoons?|no\s+afternoon\s+class(?:es)?|"
        r"nothing\s+in\s+the\s+afternoons?)\b", re.I)),
    ("after", "17:00", re.compile(
        r"\b(?:evenings?\s+(?:free|off|open)|free\s+evenings?|no\s+(?:evening|night)\s+"
        r"class(?:es)?|nothing\s+in\s+the\s+evenings?)\b", re.I)),
]  # fmt: skip


def _num(word: str) -> float:
    return float(word) if word[0].isdigit() else float(_WORD_NUMS[word.lower()])


def load_caps(text: str) -> list[tuple[str, float, str]]:
    """Caps the student set: ('units' | 'courses', number, the words), in text order."""
    found: list[tuple[int, str, float, str]] = []
    spans: list[Span] = []
    for rx in _CAP_RES:
        for m in rx.finditer(text):
            if any(m.start() < e and s < m.end() for s, e in spans):
                continue
            spans.append(m.span())
            groups = [g for g in m.groups() if g]
            n = _num(groups[0])
            what = "courses" if groups[1].lower().startswith(("course", "class")) else "units"
            found.append((m.start(), what, n, m.group(0)))
    return [(w, n, p) for _, w, n, p in sorted(found)]


class LoadWish(NamedTuple):
    """A load the student wants in the next term: a number of courses, units, or both."""

    courses: int | None
    units: float | None
    phrase: str


def load_wanted(text: str) -> LoadWish | None:
    """The load the student wants next term and the words ('5 courses next semester', 'six
    courses (24 units) next quarter', '24 units next quarter'); None when the text gives no
    such load or gives it as a cap ('at most 5 courses next term' is one, read by
    ``load_caps``)."""
    for rx in _WANTED_RES:
        for m in rx.finditer(text):
            found = {g: m.group(g) for g in ("n", "u") if g in rx.groupindex and m.group(g)}
            if _CAP_BEFORE.search(text[: min(m.start(g) for g in found)]):
                continue
            courses = int(_num(found["n"])) if "n" in found else None
            units = _num(found["u"]) if "u" in found else None
            if (courses is None or courses > 0) and (units is None or units > 0):
                return LoadWish(courses, units, m.group(0))
    return None


def interests_in(text: str, taken: list[Span], notes: list[str]) -> list[str]:
    """Topics after 'interested in' and the like; programs being added are not topics."""
    out: list[str] = []
    for m in _INTEREST_RE.finditer(text):
        start, x = m.start("x"), m.group("x")
        stop = _INTEREST_STOP.search(x)
        if stop:
            x = x[: stop.start()]
        if any(start < e and s < start + len(x) for s, e in taken) or _NOT_TOPIC.match(x):
            continue
        got = []
        for part in _INTEREST_SPLIT.split(x):
            topic = _TOPIC_TRIM.sub("", part.strip(" ,'\"")).strip().lower()
            if topic and not _NOT_TOPIC.match(topic) and topic not in out:
                out.append(topic)
                got.append(topic)
        if got:
            notes.append(f"read {m.group(0)[: m.start('x') - m.start()] + x!r} as interests: "
                         f"{', '.join(got)}")  # fmt: skip
    return out


def _clock(m: re.Match[str]) -> tuple[str, bool] | None:
    """HH:MM from a matched time, and whether a bare hour was read as afternoon."""
    if m.group("t").lower() == "noon":
        return "12:00", False
    h, minute = int(m.group("h")), int(m.group("m") or 0)
    ap = (m.group("ap") or "").lower().replace(".", "").replace(" ", "")
    guessed = False
    if ap == "pm" and h < 12:
        h += 12
    elif ap == "am" and h == 12:
        h = 0
    elif not ap and 1 <= h <= 7:
        # Classes run from morning to evening: "after 4" can only mean 4 pm.
        h, guessed = h + 12, True
    if h > 23:
        return None
    return f"{h:02d}:{minute:02d}", guessed


def time_preferences(
    text: str,
) -> tuple[list[Weekday], str | None, str | None, list[str]]:
    """Free days (in week order), no-class-before, no-class-after, and notes."""
    days: set[Weekday] = set()
    notes: list[str] = []
    for rx in _DAY_RES:
        for m in rx.finditer(text):
            got = sorted(
                {
                    _DAY_NAMES[d.lower().rstrip("s")]
                    for d in re.findall(_DAY, m.group("days"), re.I)
                },
                key="MTWRFSU".index,
            )
            new = [d for d in got if d not in days]
            if new:
                days.update(new)
                notes.append(f"read {m.group(0)!r} as free day(s): {', '.join(new)}")
    bounds: dict[str, list[str]] = {"before": [], "after": []}
    for side, res in (("before", _BEFORE_RES), ("after", _AFTER_RES)):
        for rx in res:
            for m in rx.finditer(text):
                clock = _clock(m)
                if clock is None:
                    continue
                bounds[side].append(clock[0])
                pm = " (a bare hour read as afternoon)" if clock[1] else ""
                notes.append(f"read {m.group(0).rstrip('.')!r} as no class {side} {clock[0]}{pm}")
    for side, value, rx in _PERIODS:
        for m in rx.finditer(text):
            bounds[side].append(value)
            notes.append(f"read {m.group(0)!r} as no class {side} {value}")
    before = max(bounds["before"]) if bounds["before"] else None
    after = min(bounds["after"]) if bounds["after"] else None
    return sorted(days, key="MTWRFSU".index), before, after, notes

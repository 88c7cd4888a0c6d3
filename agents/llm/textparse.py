"""The offline reader of a plan request's free text: rules, not a model.

``parse_request_text`` finds the intent, programs (by code, name or alias), a graduation
target, load caps, terms away, course codes, interests and free days or times. Every
finding is checked against the catalog and explained in a note ("read 'CS minor' as
CS-MIN (Computer Science minor)"); what cannot be resolved is returned as an ``unresolved``
phrase, never guessed. A relative target ("in 3.5 years") needs the student's start term;
without it the phrase is unresolved. Pure and deterministic: the same text and catalog
always give the same extraction.
"""

from __future__ import annotations

import re

from agents.catalog import Catalog, Term
from agents.llm.boundary import IntakeExtraction
from agents.llm.textparse_prefs import interests_in, load_caps, time_preferences
from agents.llm.textparse_programs import (
    Mention,
    Span,
    last_cue,
    overlaps,
    program_mentions,
    sentence_of,
    sentences,
    unnamed_programs,
)

__all__ = [
    "is_relative_target",
    "parse_request_text",
    "resolve_target_phrase",
    "unresolved_field",
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
_EARLY_RE = re.compile(rf"\b{_NUM}\s+(semesters?|terms?|years?)\s+(early|earlier)\b", re.I)
_ON_TIME_RE = re.compile(r"\b(?:graduat\w*|finish\w*|done)\s+(?:\w+\s+){0,3}?on\s+time\b", re.I)
_GRAD_CUE = re.compile(
    r"\b(graduat\w*|finish\w*|done|complet\w*|degree|wrap\w* up|be out|commencement)\b", re.I
)
_TARGET_CUE = re.compile(
    r"\b(graduat\w*|finish\w*|done|complet\w*|wrap\w* up|be out|commencement|by)\b", re.I
)
_AWAY_CUE = re.compile(
    r"\b(abroad|away|leave of absence|on leave|exchange|internship|co-?op|not (?:be )?enroll\w*)"
    r"\b",
    re.I,
)
_AWAY_ALONE = re.compile(
    r"\b(?:stud(?:y|ying)\s+(?:abroad|away)|abroad|leave of absence|on leave)"
    r"(?:\s+(?:in|during|for)\s+(?:the\s+)?(?:spring|summer|fall|autumn))?(?![\w-])",
    re.I,
)
_SEASON = r"(spring|summer|fall|autumn)"
_MONTHS = {
    "jan": "S", "feb": "S", "mar": "S", "apr": "S", "may": "S", "jun": "U", "jul": "U",
    "aug": "U", "sep": "F", "oct": "F", "nov": "F", "dec": "F",
}  # fmt: skip
_NEXT = r"(spring|summer|fall|autumn|semester|term)"
_MONTH_RE = r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?:of\s+)?([0-9]{4})\b"
_TERM_RES: list[tuple[str, re.Pattern[str]]] = [
    (
        "season_year",
        re.compile(rf"\b{_SEASON}(?:\s+(?:of\s+)?|\s*')([0-9]{{4}}|[0-9]{{2}})\b", re.I),
    ),
    ("year_season", re.compile(rf"\b([0-9]{{4}})\s+{_SEASON}\b", re.I)),
    ("code", re.compile(r"\b([SUF])(20[0-9]{2})\b")),
    ("month", re.compile(_MONTH_RE, re.I)),
    ("next", re.compile(rf"\b(?:next|(?:this |the )?coming)\s+{_NEXT}\b", re.I)),
    ("year", re.compile(r"\b(20[0-9]{2})\b")),
]
_COURSE_RE = re.compile(r"(?<![\w-])([0-9]{2}-[0-9]{3})(?![\w-])")
# Later entries win ties: "rather not take" is an avoid cue that ends with "take".
_COURSE_CUES: list[tuple[str, re.Pattern[str]]] = [
    ("include", re.compile(
        r"\b(take|taking|include|want|need|register|enroll|retake|repeat|fit in|with)\b", re.I)),
    ("already", re.compile(r"\b(already|took|taken|completed|passed|failed)\b", re.I)),
    ("avoid", re.compile(
        r"\b(avoid\w*|skip\w*|without|instead of|no|(?:rather not|don'?t|do not|not|never)"
        r"(?:\s+want\s+to)?(?:\s+(?:take|taking|have|do))?)\b", re.I)),
]  # fmt: skip

_INTENTS: list[tuple[str, re.Pattern[str]]] = [
    ("check_progress", re.compile(
        r"\b(on track|what do i (?:still )?have left|what'?s left|what i have left|"
        r"what (?:else )?do i (?:still )?need|still need|how (?:far|close) am i|my progress|"
        r"remaining requirements|requirements (?:left|remaining)|degree audit|"
        r"have i (?:met|completed|finished)|how many more)\b", re.I)),
    ("plan_next_term", re.compile(
        r"\b(next (?:semester|term)|(?:spring|fall) schedule|register|registration|"
        r"what should i take|upcoming (?:semester|term)|coming (?:semester|term))\b", re.I)),
    ("plan_degree", re.compile(
        r"\b(plan (?:out )?(?:my|the) (?:degree|remaining|rest|courses|semesters|terms|years)|"
        r"(?:four|4)[- ]year plan|graduat\w*|finish\w*|degree plan|roadmap)\b", re.I)),
]  # fmt: skip
_POLICY = re.compile(
    r"\b(polic(?:y|ies)|allowed|permitted|is it possible|how many (?:units|credits|courses|"
    r"classes)|maximum|minimum|overload\w*|pass/fail|pass-fail|pass fail|retak\w*|"
    r"residency|rules?|limit|probation|gpa|(?:can|may) i take (?:more than |over |up to )?"
    r"\w+ (?:units|credits|courses|classes))\b",
    re.I,
)
_ADD_INTENT = re.compile(
    r"\b(?:add\w*|declar\w*|pick\w* up|double major\w*|want\s+(?:to\s+(?:do|get|add|pursue)\s+)?"
    r"(?=an?\s|another\s))\b[^.?!;]{0,40}?\b(?:minor|major|program)\b",
    re.I,
)
_SWITCH_INTENT = re.compile(
    r"\b(switch\w*|chang\w*)\s+(?:my\s+)?(?:major|minor|program|from|to|into)\b", re.I
)


# --------------------------------------------------------------------------- helpers


def _number(word: str) -> float:
    return float(word) if word[0].isdigit() else float(_NUM_WORDS[word.lower()])


def _nth_regular(first: Term, n: int) -> Term:
    t = first if first.season != "summer" else first.next_regular()
    for _ in range(n - 1):
        t = t.next_regular()
    return t


# --------------------------------------------------------------------------- targets


def is_relative_target(phrase: str) -> bool:
    """Whether ``phrase`` counts years or terms rather than naming a term."""
    return any(rx.search(phrase) for rx in (_EARLY_RE, _ON_TIME_RE, _YEARS_RE))


def resolve_target_phrase(
    phrase: str, *, start_term: str | None, current_term: str = "F2026"
) -> tuple[str, str] | None:
    """A relative target as (term code, how it was read); None when it cannot be resolved.

    Years count regular terms from the start term ("3.5 years" = 7 terms, "a semester early"
    = 7); "N more years" and "N years from now" count from the term after the current one.
    """
    m = _EARLY_RE.search(phrase)
    if m:
        if not start_term:
            return None
        n, unit = _number(m.group(1)), m.group(2).lower()
        terms = 8 - round(n * (2 if unit.startswith("year") else 1))
        if terms < 1:
            return None
        t = _nth_regular(Term.parse(start_term), terms)
        return t.code, f"{terms} regular terms from {start_term} instead of 8"
    if _ON_TIME_RE.search(phrase):
        if not start_term:
            return None
        return _nth_regular(Term.parse(start_term), 8).code, f"8 regular terms from {start_term}"
    m = _YEARS_RE.search(phrase)
    if m is None:
        return None
    years = _number(m.group(1)) + (0.5 if m.group(2) else 0)
    terms = round(years * 2)
    if terms < 1:
        return None
    if m.group(3) or m.group(4):
        first = Term.parse(current_term).next_regular()
        return _nth_regular(first, terms).code, f"{terms} more regular terms from {first.code}"
    if not start_term:
        return None
    t = _nth_regular(Term.parse(start_term), terms)
    return t.code, f"{years:g} years = {terms} regular terms from {start_term}"


def unresolved_field(phrase: str, text: str) -> str:
    """Which request field an unresolved phrase belongs to, judged from it and its context."""
    if _COURSE_RE.fullmatch(phrase.strip()):
        return "include_courses"
    if is_relative_target(phrase) or _GRAD_CUE.search(phrase):
        return "target_graduation"
    if _AWAY_CUE.search(phrase):
        return "terms_away"
    i = text.lower().find(phrase.lower())
    around = text[max(0, i - 30) : i + len(phrase) + 20] if i >= 0 else phrase
    if re.search(r"\b(minor|major|program|degree|concentration)\b", around, re.I):
        return "programs"
    return "text"


def _term_code(kind: str, m: re.Match[str], current: Term) -> str | None:
    if kind == "season_year":
        y = m.group(2)
        return Term.parse(f"{m.group(1)} {'20' + y if len(y) == 2 else y}").code
    if kind == "year_season":
        return Term.parse(f"{m.group(2)} {m.group(1)}").code
    if kind == "code":
        return m.group(0)
    if kind == "month":
        return f"{_MONTHS[m.group(1).lower()]}{m.group(2)}"
    if kind == "next":
        word = m.group(1).lower().replace("autumn", "fall")
        summer = word == "summer"
        t = current.next_regular(include_summer=summer)
        while word in ("spring", "summer", "fall") and t.season != word:
            t = t.next_regular(include_summer=summer)
        return t.code
    return None  # a bare year: only a graduation target can use it


def _term_hits(text: str, current: Term) -> list[tuple[Span, str | None]]:
    hits: list[tuple[Span, str | None]] = []
    for kind, rx in _TERM_RES:
        for m in rx.finditer(text):
            if not overlaps(m.span(), [s for s, _ in hits]):
                hits.append((m.span(), _term_code(kind, m, current)))
    return sorted(hits)


def _term_role(text: str, sent: Span, lead_start: int, span: Span) -> str:
    tail = text[span[1] : sent[1]]
    if re.match(r"\s*(?:off|abroad|away)\b", tail, re.I):
        return "away"
    away = [m.end() for m in _AWAY_CUE.finditer(text, lead_start, span[0])]
    target = [m.end() for m in _TARGET_CUE.finditer(text, sent[0], span[0])]
    if away and (not target or max(away) > max(target)):
        return "away"
    return "target" if target else "other"


def _read_terms(
    text: str, sents: list[Span], current: Term, start_term: str | None, out: IntakeExtraction
) -> None:
    prev_end, away_sents = 0, set()
    for span, code in _term_hits(text, current):
        sent = sentence_of(sents, span[0])
        role = _term_role(text, sent, max(prev_end, sent[0]), span)
        phrase, prev_end = text[span[0] : span[1]], span[1]
        if role == "away" and code is not None:
            away_sents.add(sent)
            if code not in out.terms_away:
                out.terms_away.append(code)
                out.notes.append(f"read {phrase!r} as a term away: {code}")
        elif role == "target" and not out.target_phrase:
            if code is None:
                code = f"S{phrase}"
                out.notes.append(f"read {phrase!r} as {code} (graduation years end in spring)")
            else:
                out.notes.append(f"read {phrase!r} as graduation by {code}")
            out.target_graduation, out.target_phrase = code, phrase
    for m in _AWAY_ALONE.finditer(text):
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
                "-" in m.group(0) or _GRAD_CUE.search(text, sent[0], sent[1])
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


# --------------------------------------------------------------------------- intent


def _intent(text: str, mentions: list[Mention], target: bool) -> tuple[str | None, str]:
    adds = [m for m in mentions if m.role == "add"]
    drops = [m for m in mentions if m.role == "drop"]
    switch, add = _SWITCH_INTENT.search(text), _ADD_INTENT.search(text)
    if (adds and drops) or (adds and switch):
        return "switch_program", switch.group(0) if switch else _said(text, adds[0])
    if adds or add:
        return "add_program", add.group(0) if add else _said(text, adds[0])
    if switch or drops:
        return "switch_program", switch.group(0) if switch else _said(text, drops[0])
    policy = _policysentences(text)
    if policy:
        return "policy_question", policy
    for intent, rx in _INTENTS:
        for m in rx.finditer(text):
            away = _AWAY_CUE.search(text, m.end(), min(len(text), m.end() + 12))
            if not (intent == "plan_next_term" and away):
                return intent, m.group(0)
    return (None, "") if not target else ("plan_degree", "a graduation target")


def _said(text: str, mention: Mention) -> str:
    return text[mention.span[0] : mention.span[1]]


def _policysentences(text: str) -> str:
    """The sentences that ask about a rule ('?' and a rule word, or the word 'policy')."""
    found = []
    for s, e in sentences(text):
        sent = text[s:e].strip()
        if _POLICY.search(sent) and ("?" in sent or re.search(r"\bpolic", sent, re.I)):
            found.append(sent)
    return " ".join(found)


# --------------------------------------------------------------------------- courses


def _read_courses(text: str, sents: list[Span], catalog: Catalog, out: IntakeExtraction) -> None:
    prev: tuple[Span, int, str] | None = None
    for m in _COURSE_RE.finditer(text):
        code, sent = m.group(1), sentence_of(sents, m.start())
        same = prev is not None and prev[0] == sent
        lead = text[prev[1] if prev and same else sent[0] : m.start()]
        role = last_cue(lead, _COURSE_CUES) or (prev[2] if prev and same else "mentioned")
        prev = (sent, m.end(), role)
        course = catalog.course_by_code.get(code)
        if course is None:
            if code not in out.unresolved:
                out.unresolved.append(code)
                out.notes.append(f"{code!r} is not a course in the catalog")
        elif role == "already":
            out.notes.append(f"{code} ({course.title}) is mentioned as already taken")
        elif role == "avoid" and code not in out.avoid_courses:
            out.avoid_courses.append(code)
            out.notes.append(f"read {code} ({course.title}) as a course to avoid")
        elif role == "include" and code not in out.include_courses:
            out.include_courses.append(code)
            out.notes.append(f"read {code} ({course.title}) as a course wanted")
        elif role == "mentioned":
            out.notes.append(f"{code} ({course.title}) is mentioned without a wish; not planned")


# --------------------------------------------------------------------------- entry point


def parse_request_text(
    text: str, catalog: Catalog, *, current_term: str = "F2026", start_term: str | None = None
) -> IntakeExtraction:
    """Read ``text`` against ``catalog``; see the module docstring for what is understood."""
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    out = IntakeExtraction()
    sents = sentences(text)
    current = Term.parse(current_term)

    mentions, prog_notes, prog_unresolved = program_mentions(text, catalog, sents)
    for m in mentions:
        target = out.add_programs if m.role == "add" else out.drop_programs
        if m.role in ("add", "drop") and m.code not in target:
            target.append(m.code)  # type: ignore[arg-type]
    out.notes.extend(prog_notes)
    out.unresolved.extend(prog_unresolved)
    taken = [m.span for m in mentions]
    for phrase in unnamed_programs(text, taken):
        out.unresolved.append(phrase)
        out.notes.append(f"could not match {phrase!r} to a program in the catalog")

    _read_terms(text, sents, current, start_term, out)
    _read_courses(text, sents, catalog, out)
    for what, n, phrase in load_caps(text):
        if what == "units" and out.max_units_per_term is None:
            out.max_units_per_term = n
            out.notes.append(f"read {phrase!r} as a cap of {n:g} units per term")
        elif what == "courses" and out.max_courses_per_term is None:
            out.max_courses_per_term = int(n)
            out.notes.append(f"read {phrase!r} as a cap of {int(n)} courses per term")
    adds = [m.span for m in mentions if m.role == "add"]
    out.interests.extend(interests_in(text, adds, out.notes))
    days, before, after, time_notes = time_preferences(text)
    out.free_days.extend(days)
    out.not_before, out.not_after = before, after
    out.notes.extend(time_notes)

    intent, why = _intent(text, mentions, bool(out.target_phrase))
    if intent is not None:
        out.intent = intent  # type: ignore[assignment]
        out.notes.insert(0, f"read the intent as {intent} from {why!r}")
        if intent == "policy_question":
            out.question = _policysentences(text) or text.strip()
    return out

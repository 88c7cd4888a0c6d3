"""The offline reader of a plan request's free text: rules, not a model.

``parse_request_text`` finds the intent, programs (by code, name or alias), a graduation
target, load caps, a load wanted next term (courses, units or both), terms away, optional
terms to take courses in (summer, interim), course codes, interests and free days or times.
Every finding is checked against the catalog and explained in a note ("read 'CS minor' as
CS-MIN (Computer Science minor)"); what cannot be resolved is returned as an ``unresolved``
phrase, never guessed. A relative target ("in 3.5 years") needs the student's start term;
without it the phrase is unresolved. Given the student's declared programs, naming one of
them ("finish economics", "I'm double majoring in math and statistics") is never a wish to
add it. Pure and deterministic: the same text and catalog always give the same extraction.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agents.catalog import Catalog, Term, unit_name
from agents.catalog.courses import code_subject
from agents.catalog.lookup import find_course
from agents.errors import TermError
from agents.llm.boundary import CoursePin, IntakeExtraction
from agents.llm.textparse_optional import read_optional_terms
from agents.llm.textparse_prefs import interests_in, load_caps, load_wanted, time_preferences
from agents.llm.textparse_programs import (
    Mention,
    Span,
    last_cue,
    program_mentions,
    sentence_of,
    sentences,
    unnamed_programs,
)
from agents.llm.textparse_terms import (
    AWAY_CUE,
    GRAD_CUE,
    is_relative_target,
    read_terms,
    resolve_target_phrase,
)

__all__ = [
    "is_relative_target",
    "parse_request_text",
    "resolve_target_phrase",
    "unresolved_field",
]


# Course codes are the catalog's own (``Catalog.code_index``: 'COMPSCI 161', 'A&B SCI 6B',
# in any case and spacing); besides them, codes of the common shapes ('15-112', 'CSCI 120')
# that the catalog does not have are reported - a letter code only when its subject is the
# catalog's (see _catalog_code).
_COURSE_RE = re.compile(r"(?<![\w-])([0-9]{2}-[0-9]{3}|[A-Z]{2,5}[ -]?[0-9]{2,4}[A-Z]?)(?![\w-])")
# A wish to take again a course the sentence first says was taken ("I failed 15-122 and
# want to retake it", "got a C- in CSCI 120; I'd like to take it again").
_RETAKE = re.compile(r"\b(retak\w*|re-take\w*|repeat\w*|again)\b", re.I)
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
_CLOSE = re.compile(
    r"\b(?:which|what)\s+(?:other\s+)?(?:minors?|programs?|concentrations?)\s+(?:am\s+i|i'?m|"
    r"could\s+i|can\s+i|might\s+i|should\s+i)\b[^.?!]{0,40}?\b(?:close|near\w*|finish\w*|"
    r"add\w*|complete\w*)\b|\b(?:close\s+to|near(?:ly)?)\s+(?:finishing\s+|completing\s+)?"
    r"(?:an?\s+|any\s+)(?:minor|concentration)s?\b",
    re.I,
)
_SWITCH_INTENT = re.compile(
    r"\b(switch\w*|chang\w*)\s+(?:my\s+)?(?:major|minor|program|from|to|into)\b", re.I
)


def unresolved_field(phrase: str, text: str) -> str:
    """Which request field an unresolved phrase belongs to, judged from it and its context."""
    if _COURSE_RE.fullmatch(phrase.strip()):
        return "include_courses"
    if is_relative_target(phrase) or GRAD_CUE.search(phrase):
        return "target_graduation"
    if AWAY_CUE.search(phrase):
        return "terms_away"
    i = text.lower().find(phrase.lower())
    around = text[max(0, i - 30) : i + len(phrase) + 20] if i >= 0 else phrase
    if re.search(r"\b(minor|major|program|degree|concentration)\b", around, re.I):
        return "programs"
    return "text"


# --------------------------------------------------------------------------- intent


def _intent(text: str, mentions: list[Mention], target: bool) -> tuple[str | None, str]:
    adds = [m for m in mentions if m.role == "add"]
    drops = [m for m in mentions if m.role == "drop"]
    switch, add = _SWITCH_INTENT.search(text), _ADD_INTENT.search(text)
    if add is not None and not adds and _only_declared_after(text, add.start(), mentions):
        add = None  # "declared a double major in X and Y", both already the student's
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
            away = AWAY_CUE.search(text, m.end(), min(len(text), m.end() + 12))
            if not (intent == "plan_next_term" and away):
                return intent, m.group(0)
    return (None, "") if not target else ("plan_degree", "a graduation target")


def _only_declared_after(text: str, pos: int, mentions: list[Mention]) -> bool:
    """Whether the programs named from ``pos`` to the end of its sentence are all ones the
    student has (and there is at least one)."""
    end = next((e for s, e in sentences(text) if s <= pos < e), len(text))
    after = [m for m in mentions if pos <= m.span[0] < end]
    return bool(after) and all(m.role == "current" for m in after)


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


def course_spans(text: str, catalog: Catalog) -> list[tuple[int, int, str]]:
    """Course codes in ``text`` as ``(start, end, code)``, left to right: the catalog's codes
    (its spelling), and codes of the common shapes it does not have, as written."""
    found = catalog.code_index.find_all(text)
    taken = [(s, e) for s, e, _ in found]
    for m in _COURSE_RE.finditer(text):
        if not any(s < m.end() and m.start() < e for s, e in taken):
            found.append((m.start(), m.end(), m.group(1)))
    return sorted(found)


def _read_courses(text: str, sents: list[Span], catalog: Catalog, out: IntakeExtraction) -> None:
    prev: tuple[Span, int, str] | None = None
    found = course_spans(text, catalog)
    for i, (start, end, said) in enumerate(found):
        code, sent = _catalog_code(said, catalog), sentence_of(sents, start)
        if code is None:
            continue
        same = prev is not None and prev[0] == sent
        lead = text[prev[1] if prev and same else sent[0] : start]
        role = last_cue(lead, _COURSE_CUES) or (prev[2] if prev and same else "mentioned")
        prev = (sent, end, role)
        nxt = found[i + 1][0] if i + 1 < len(found) else len(text)
        if role in ("already", "mentioned") and _retake_after(text[end : min(nxt, sent[1])]):
            role = "include"
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
            pin = _pinned_term(text[end : sent[1]], catalog)
            if pin is not None:
                out.pins.append(CoursePin(course=code, term=pin.code))
                out.notes.append(f"read {code} as wanted in {pin.label()}")
        elif role == "mentioned":
            out.notes.append(f"{code} ({course.title}) is mentioned without a wish; not planned")


def _retake_after(after: str) -> bool:
    """Whether the words after a course ask to take it again, and not to avoid doing so
    ("... and want to retake it", not "... and don't want to repeat it")."""
    m = _RETAKE.search(after)
    return m is not None and last_cue(after[: m.start()], _COURSE_CUES) != "avoid"


def _catalog_code(found: str, catalog: Catalog) -> str | None:
    """The catalog's code for a code found in the text ('CSCI120' -> 'CSCI 120',
    ``find_course``); an unknown code of the sample's form is kept as written (reported as
    unresolved), an unknown letter code only when its subject is the catalog's ('MATH
    999'), else it is no course ('SAT 1450')."""
    hit = find_course(catalog, found)
    if hit is not None or found[:1].isdigit():
        return hit or found
    return found if any(c.subject_code == code_subject(found) for c in catalog.courses) else None


_PIN_TERM = re.compile(r"^\s*(?:in|during|for)\s+(?:the\s+)?([a-z]+\s+[0-9]{4})\b", re.I)


def _pinned_term(after: str, catalog: Catalog) -> Term | None:
    """The term right after a wanted course ('15-445 in Fall 2027'), read by the calendar."""
    m = _PIN_TERM.match(after)
    if m is None:
        return None
    try:
        return catalog.calendar.parse(m.group(1))
    except TermError:
        return None


# --------------------------------------------------------------------------- entry point


def catalog_first_term(catalog: Catalog) -> Term:
    """The term that opens the catalog's year ('2026-2027' -> fall 2026 with semesters)."""
    m = re.match(r"\s*([0-9]{4})", catalog.catalog_year)
    cal = catalog.calendar
    year = int(m.group(1)) if m else 2000
    return cal.term(cal.academic_year_starts, year)


def parse_request_text(
    text: str,
    catalog: Catalog,
    *,
    current_term: str | None = None,
    start_term: str | None = None,
    declared: Sequence[str] | None = None,
) -> IntakeExtraction:
    """Read ``text`` against ``catalog``; see the module docstring for what is understood.
    Relative terms ("next winter") count from ``current_term``; without it, from the first
    term of the catalog's year (the intake reads the text again with the student's term and
    ``declared`` programs)."""
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    out = IntakeExtraction()
    sents = sentences(text)
    cal = catalog.calendar
    current = cal.parse(current_term) if current_term else catalog_first_term(catalog)

    mentions, prog_notes, prog_unresolved = program_mentions(text, catalog, sents, declared)
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

    optional = read_optional_terms(text, sents, current, out)
    read_terms(text, sents, current, start_term, out, skip=optional)
    _read_courses(text, sents, catalog, out)
    for what, n, phrase in load_caps(text):
        if what == "units" and out.max_units_per_term is None:
            out.max_units_per_term = n
            out.notes.append(f"read {phrase!r} as a cap of {n:g} {unit_name()} per term")
        elif what == "courses" and out.max_courses_per_term is None:
            out.max_courses_per_term = int(n)
            out.notes.append(f"read {phrase!r} as a cap of {int(n)} courses per term")
    wish = load_wanted(text)
    if wish is not None:
        out.next_term_courses, out.next_term_units = wish.courses, wish.units
        load = [f"{wish.courses} courses"] if wish.courses is not None else []
        if wish.units is not None:
            load.append(f"{wish.units:g} {unit_name()}")
        said = f"{load[0]} ({load[1]})" if len(load) == 2 else load[0]
        out.notes.append(f"read {wish.phrase!r} as {said} wanted next term")
    adds = [m.span for m in mentions if m.role == "add"]
    out.interests.extend(interests_in(text, adds, out.notes))
    days, before, after, time_notes = time_preferences(text)
    out.free_days.extend(days)
    out.not_before, out.not_after = before, after
    out.notes.extend(time_notes)

    close = _CLOSE.search(text)
    if close is not None:
        out.close_programs = 3
        out.notes.append(f"read {close.group(0)!r} as asking which programs are close by")
    intent, why = _intent(text, mentions, bool(out.target_phrase))
    if intent is not None:
        out.intent = intent  # type: ignore[assignment]
        out.notes.insert(0, f"read the intent as {intent} from {why!r}")
        if intent == "policy_question":
            out.question = _policysentences(text) or text.strip()
    return out

"""Program mentions for the offline text parser: which programs the text names, and whether
the student wants to add them, drop them, or already has them.

Split from ``textparse`` to keep each module readable in one sitting; only ``textparse``
and ``textparse_terms`` (for its sentence helpers) use it. Phrases come from the catalog
(codes, names, aliases, names without their degree words, code prefixes); the longest
phrase wins, and the words around a phrase ('minor in', 'major') choose between programs
that share a name. What cannot be pinned to exactly one program is reported, never guessed.
Given the student's declared programs, a declared program is never one to add ("finish
economics", "double majoring in math and statistics" name programs the student has), and a
phrase is read as an unknown program only when it could be a name: words such as 'to',
'who' or 'planning' ("a first-year planning to major in ...") never are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agents.catalog import Catalog, Program

Span = tuple[int, int]

_SENT_RE = re.compile(r"(?<!\b[A-Za-z])[.!?;]+(?=\s|$)|\n+")

# Short codes that are also English words match only in capitals ("IS", not "is").
_COMMON_WORDS = {"is", "it", "us", "as", "at", "an", "am", "be", "bus", "art", "law", "pre"}
_KIND_AFTER = re.compile(r"\s*(minor|major|b\.?s\b\.?|b\.?a\b\.?|degree)(?![\w-])", re.I)
_KIND_BEFORE = re.compile(
    r"\b(minor(?:ing)?|major(?:ing)?|degree)\s+(?:in|of)\s+(?:the\s+)?$", re.I
)
_DET = r"(?:\s+(?:my|the|a|an|our))?"
_STANDING = r"(?:junior|senior|sophomore|first-year|freshman|second-year|third-year|fourth-year)"
_SELF = (
    rf"\b(?:i'?m|i am|am)\s+(?:(?:a|an|the|currently|still|also|in|majoring in|minoring in)\s+)*"
    rf"(?:{_STANDING}\s+(?:in\s+)?)?$|\b(?:my|our)\s+(?:current\s+|declared\s+)?$|"
    r"\b(?:already|currently)\s+(?:have\s+|has\s+|in\s+)?(?:a\s+|an\s+|the\s+)?$|"
    r"\bdeclared\s+(?:a\s+|an\s+)?$"
)
_ROLE_CUES: list[tuple[str, re.Pattern[str]]] = [
    ("current", re.compile(_SELF, re.I)),
    ("drop", re.compile(
        rf"\b(?:drop\w*|give up|giving up|quit\w*|leav(?:e|ing)|remov\w*|out of|instead of)"
        rf"{_DET}\b",
        re.I)),
    ("add", re.compile(
        rf"\b(?:add\w*|declar(?:e|ing)|pick(?:ing)? up|tak(?:e|ing) on|pursu\w*|get(?:ting)?|"
        rf"doing|earn\w*|double|start\w*|join\w*|with|also|to|into){_DET}\b", re.I)),
]  # fmt: skip
# What joins programs named in one breath ("in mathematics and statistics", "X, Y or Z"): a
# program after it shares the relation of the one before.
_LIST_JOIN = re.compile(r"^\s*(?:,|,?\s*(?:and|or|&|plus))\s+(?:(?:the|a|an|my)\s+)?$", re.I)
_SWITCH = re.compile(r"\b(switch\w*|chang\w*|mov(?:e|ing)|transfer\w*)\b", re.I)
_UNNAMED = [
    re.compile(
        r"\b(?:minor(?:ing)?|major(?:ing)?|double major|degree|concentration)\s+(?:in|of)\s+"
        r"(?:the\s+)?(?P<x>[A-Za-z][\w&'-]*(?:\s+[A-Za-z][\w&'-]*){0,4}?)(?=\s*(?:[.,;!?()]|$)|"
        r"\s+(?:and|but|so|while|because|by|before|in|to|with|too|also|please|as|or|if|since|"
        r"this|next|during|for|at|from|without)\b)",
        re.I,
    ),
    re.compile(
        r"\b(?:a|an|the|my)\s+(?P<x>(?:[A-Za-z][\w&'-]*\s+){0,3}?[A-Za-z][\w&'-]*)\s+"
        r"(?:minor|major)\b",
        re.I,
    ),
]
_FILLER = re.compile(
    r"^(?:(?:new|second|another|additional|possible|different|double|same|current|first|own|"
    r"intended|full|separate|whole|junior|senior|sophomore|freshman|(?:first|second|third|"
    r"fourth)-year)\s*)+",
    re.I,
)
# Words that are no part of a program's name: "a first-year planning to major in X" and "a
# sophomore who will major in X" use 'major' as a verb, and what precedes it names no program.
_NOT_A_NAME = re.compile(
    r"(?<![\w'-])(?:to|who|whom|that|which|will|would|shall|should|can|could|may|might|must|"
    r"i|i'?m|me|we|you|he|she|they|am|is|are|was|were|be|been|being|do|does|did|not|"
    r"plan\w*|intend\w*|hop(?:e|es|ing)|going|want\w*|wish\w*|decid\w*|thinking|"
    r"considering|likely|probably|eventually|student)(?![\w'-])",
    re.I,
)


@dataclass(frozen=True)
class Mention:
    span: Span
    code: str | None
    role: str


def sentences(text: str) -> list[Span]:
    out, start = [], 0
    for m in _SENT_RE.finditer(text):
        if m.end() > start:
            out.append((start, m.end()))
        start = m.end()
    if start < len(text):
        out.append((start, len(text)))
    return out


def sentence_of(spans: list[Span], pos: int) -> Span:
    return next((s for s in spans if s[0] <= pos < s[1]), (0, 0))


def overlaps(a: Span, spans: list[Span]) -> bool:
    return any(a[0] < e and s < a[1] for s, e in spans)


def last_cue(text: str, cues: list[tuple[str, re.Pattern[str]]]) -> str | None:
    """The cue that ends last in ``text`` (the one nearest to what follows)."""
    found = [
        (len(text[: m.end()].rstrip()), i, name)
        for i, (name, rx) in enumerate(cues)
        for m in rx.finditer(text)
    ]
    return max(found)[2] if found else None


# --------------------------------------------------------------------------- programs


def _base_name(name: str) -> str:
    n = re.sub(r"\(.*?\)", " ", name.lower())
    n = re.sub(r"\bbachelor of (?:science|arts)(?: in)?\b", " ", n)
    n = re.sub(r"(?<![\w.])b\.?\s?[sa]\.?(?![\w])", " ", n)
    n = re.sub(r"\b(?:major|minor|program|degree|concentration)(?:\s+(?:in|of))?\b", " ", n)
    return re.sub(r"\s+", " ", n).strip(" ,.-")


def _phrase_table(catalog: Catalog) -> list[tuple[re.Pattern[str], tuple[str, ...]]]:
    """The catalog's program phrases as patterns, built once per catalog."""
    table = catalog.derived.get("llm.program_phrases")
    if table is None:
        table = catalog.derived["llm.program_phrases"] = _build_phrase_table(catalog)
    return table  # type: ignore[no-any-return]


def _build_phrase_table(catalog: Catalog) -> list[tuple[re.Pattern[str], tuple[str, ...]]]:
    table: dict[str, set[str]] = {}
    for p in catalog.programs:
        prefix = p.code.split("-")[0]
        for phrase in (p.code, p.name, *p.aliases, _base_name(p.name), prefix):
            if phrase.strip():
                table.setdefault(phrase.strip(), set()).add(p.code)
    merged: dict[tuple[str, bool], set[str]] = {}
    for phrase, codes in table.items():
        exact = len(phrase) <= 1 or any(w in _COMMON_WORDS for w in phrase.lower().split())
        key = (phrase if exact else phrase.lower(), exact)
        merged.setdefault(key, set()).update(codes)
    out = []
    for (phrase, exact), codes in sorted(merged.items(), key=lambda kv: (-len(kv[0][0]), kv[0])):
        body = r"\s+".join(re.escape(w) for w in phrase.split())
        rx = re.compile(rf"(?<![\w-]){body}(?![\w-])", 0 if exact else re.I)
        out.append((rx, tuple(sorted(codes))))
    return out


def _describe(p: Program) -> str:
    return f"{p.code} ({p.name})"


def _resolve_mention(
    text: str, span: Span, codes: tuple[str, ...], catalog: Catalog
) -> tuple[Span, str | None, str]:
    """The program a matched phrase names (widened to its kind word) and a remark on the
    reading; or None and why not."""
    kind = None
    after = _KIND_AFTER.match(text, span[1])
    before = _KIND_BEFORE.search(text[max(0, span[0] - 30) : span[0]])
    if after:
        kind, span = after.group(1).lower(), (span[0], after.end())
    elif before:
        kind, span = before.group(1).lower(), (span[0] - len(before.group(0)), span[1])
    progs = [catalog.program_by_code[c] for c in codes]
    phrase = text[span[0] : span[1]]
    if kind is not None:
        want = "minor" if kind.startswith("minor") else "major"
        fitting = [p for p in progs if p.kind == want]
        if not fitting:
            return span, None, f"the catalog has no {want} called {phrase!r}"
        progs = fitting
    if len(progs) == 1:
        return span, progs[0].code, ""
    majors = [p for p in progs if p.kind == "major"]
    if kind is None and len(majors) == 1:
        return span, majors[0].code, " (the major: no 'minor' was said)"
    return span, None, f"{phrase!r} could mean {', '.join(p.code for p in progs)}"


_COURSE_CODE_RE = re.compile(r"\b\d{2}-\d{3}\b|(?<![-\w])[A-Z]{2,5} ?\d{2,4}[A-Z]?\b")


def program_mentions(
    text: str, catalog: Catalog, sents: list[Span], declared: Sequence[str] | None = None
) -> tuple[list[Mention], list[str], list[str]]:
    """Programs the text names, each with the student's relation to it, plus notes and the
    phrases that name no single program. With ``declared`` (the record's programs), a
    declared program is never one to add, and one named as the student's own that the
    record does not list is noted (the record decides)."""
    found: list[tuple[Span, tuple[str, ...]]] = []
    # "MATH 220" names a course, not the mathematics program: course codes (the catalog's,
    # in any spelling, and the common shapes) are never read as program names.
    courses = [(s, e) for s, e, _ in catalog.code_index.find_all(text)]
    courses += [m.span() for m in _COURSE_CODE_RE.finditer(text)]
    for rx, codes in _phrase_table(catalog):
        for m in rx.finditer(text):
            if not overlaps(m.span(), [s for s, _ in found] + courses):
                found.append((m.span(), codes))
    mentions, notes, unresolved = [], [], []
    prev_end, prev = 0, ((-1, -1), "mentioned")
    for span, codes in sorted(found):
        span, code, remark = _resolve_mention(text, span, codes, catalog)
        sent = sentence_of(sents, span[0])
        lead = text[max(prev_end, sent[0]) : span[0]]
        role = last_cue(lead, _ROLE_CUES) or "mentioned"
        if role == "mentioned" and prev[0] == sent and _LIST_JOIN.match(lead):
            role = prev[1]
        if role == "add" and re.search(r"\bfrom\s+$", lead, re.I):
            role = "drop"
        if role in ("add", "drop") and re.search(r"\b(to|into)\s+$", lead, re.I):
            role = "add" if _SWITCH.search(text, sent[0], span[0]) else "mentioned"
        if role == "mentioned" and re.search(r"\bfrom\s+$", lead, re.I):
            role = "drop" if _SWITCH.search(text, sent[0], span[0]) else "mentioned"
        named_minor = re.search(r"\bminor", text[span[0] : span[1]], re.I)
        if role == "mentioned" and code and named_minor:
            role = "add"  # a minor named without a verb is one the student is asking about
        prev_end, prev = span[1], (sent, role)
        if code is None:
            unresolved.append(text[span[0] : span[1]])
            notes.append(remark)
            mentions.append(Mention(span, None, "unresolved"))
            continue
        if role == "add" and declared is not None and code in declared:
            role = "current"  # finishing a program the student has is not adding it
        mentions.append(Mention(span, code, role))
        how = {"add": "to add", "drop": "to drop", "current": "as a program the student has"}
        said = text[span[0] : span[1]]
        if role in how:
            prog = catalog.program_by_code[code]
            notes.append(f"read {said!r} as {_describe(prog)} {how[role]}{remark}")
        if role == "current" and declared is not None and code not in declared:
            notes.append(
                f"{said!r} is named as the student's own program, but the record lists "
                f"{', '.join(declared) or 'none'}; the record decides"
            )
    return mentions, notes, unresolved


def unnamed_programs(text: str, taken: list[Span]) -> list[str]:
    out: list[str] = []
    for rx in _UNNAMED:
        for m in rx.finditer(text):
            x = _FILLER.sub("", m.group("x")).strip()
            start = m.end("x") - len(x)
            if _NOT_A_NAME.search(x):
                continue
            if x and not overlaps((start, m.end("x")), taken) and x not in out:
                out.append(x)
                taken.append((start, m.end("x")))
    return out

"""Course codes as the institution writes them: the rule every code field follows, the one
normalisation every lookup uses, and finding a catalog's codes in text.

- **The rule.** A course code is any non-empty text without control characters that does
  not start or end with white space (``COURSE_CODE_PATTERN``): ``15-112``, ``CS 101``,
  ``COMPSCI 161``, ``A&B SCI 6B``, ``CHEM H2A``, ``PHYS 7LC``. A catalog may narrow it with
  its own ``course_code_pattern`` (a Python regular expression a whole code must match),
  checked when the catalog is built or validated (``code_problems``).
- **The key.** ``code_key`` compares codes ignoring case and the separators ``SEPARATORS``
  (white space, ``-``, ``_``, ``.``, ``/``): ``cs101``, ``CS-101`` and ``cs 101`` are
  ``CS 101``; ``15150`` is ``15-150``; ``comp sci 161`` is ``COMPSCI 161``. Two codes of
  one catalog with the same key are a problem (a lookup could not tell them apart).
- **The index.** ``CodeIndex`` holds a catalog's codes by key: ``find`` for a code typed
  by a person, ``match_at`` and ``find_all`` for codes inside an expression or free text
  (the longest code that starts at a word), ``closest`` for the codes to suggest.

Nothing here knows a catalog model: the catalog, the prerequisite parser and the text
readers all build on it (``Catalog.code_index`` is the catalog's index).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import combinations

COURSE_CODE_PATTERN = r"^[^\s\x00-\x1f\x7f-\x9f](?:[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f])?$"
"""A course code: non-empty, no control characters, no white space at either end."""

SEPARATORS = "-_./"
"""Characters (besides white space) that a code key ignores."""

SUGGESTIONS = 5
"""How many close course codes an unknown code is answered with."""

_MAX_GAP = 3  # separators allowed between two characters of a code found in text
_DELIMITERS = frozenset("()[]{},;:!?\"'")  # never part of a code found in text
_LOOKALIKE = {"O": "0", "o": "0", "l": "1", "I": "1"}


def code_key(text: str) -> str:
    """``text`` compared as a course code: case folded, white space and ``SEPARATORS``
    removed ('CS-101', 'cs 101' and 'CS101' are all 'cs101')."""
    return "".join(ch for ch in text.casefold() if not (ch.isspace() or ch in SEPARATORS))


def code_problem(code: str) -> str | None:
    """Why ``code`` is not a course code under the general rule (None when it is)."""
    if not code.strip():
        return "is empty - write the course's code"
    if any(ord(ch) < 32 or 127 <= ord(ch) <= 159 for ch in code):
        return "contains a control character (a tab or line break) - write the code on one line"
    if code != code.strip():
        return f"starts or ends with a space - write {code.strip()!r}"
    return None


def declared_pattern_problem(pattern: str) -> str | None:
    """Why a catalog's ``course_code_pattern`` cannot be used (None when it can)."""
    try:
        re.compile(pattern)
    except re.error as exc:
        return (
            f"{pattern!r} is not a regular expression ({exc}) - see 'Course codes' in "
            "docs/catalog-guide.md"
        )
    return None


def same_code(code: str) -> str:
    """'the same code as 'CS 101' once ... are ignored': why two codes collide."""
    return f"the same code as {code!r} once case, spaces and '-', '_', '.', '/' are ignored"


def code_problems(codes: list[str], pattern: str | None) -> list[str]:
    """Problems of a catalog's course codes, by JSON path: a code the declared ``pattern``
    does not match, and two codes with the same key (naming both)."""
    problems: list[str] = []
    rx = re.compile(pattern) if pattern and declared_pattern_problem(pattern) is None else None
    seen: dict[str, str] = {}
    for i, code in enumerate(codes):
        at = f"$.courses[{i}] ({code}).code"
        if rx is not None and rx.fullmatch(code) is None:
            problems.append(
                f"{at}: {code!r} does not match the catalog's course_code_pattern "
                f"{pattern!r} - correct the code, or widen course_code_pattern"
            )
        first = seen.setdefault(code_key(code), code)
        if first != code:
            problems.append(
                f"{at}: {code!r} is {same_code(first)}; lookups could not tell them apart "
                "- give one of the two courses another code"
            )
    return problems


class CodeIndex:
    """A catalog's course codes by key (the first code of a key when two share one - a
    problem ``code_problems`` reports), and its declared pattern when it has one."""

    def __init__(self, codes: Iterable[str], pattern: str | None = None) -> None:
        self.codes = list(codes)
        self.pattern = pattern
        usable = pattern is not None and declared_pattern_problem(pattern) is None
        self._rx = re.compile(pattern) if pattern is not None and usable else None
        self._by_key: dict[str, str] = {}
        for code in self.codes:
            self._by_key.setdefault(code_key(code), code)
        self._longest = max((len(k) for k in self._by_key), default=0)

    def find(self, text: str) -> str | None:
        """The catalog's code that ``text`` names (ignoring case and separators), or None."""
        return self._by_key.get(code_key(text))

    def fits_pattern(self, text: str) -> bool:
        """Whether ``text`` matches the declared pattern (always, when none is declared)."""
        return self._rx is None or self._rx.fullmatch(text) is not None

    def match_at(self, text: str, pos: int, *, free_text: bool = False) -> tuple[str, int] | None:
        """The longest catalog code written at ``pos`` of ``text`` - at a word start, ending
        at a word end, any case, with separators anywhere or nowhere ('cs 101', 'CS101') -
        as ``(code, end)``; None when none is. In ``free_text`` a code without a digit
        counts only as the catalog writes it (so that a word is not read as a course)."""
        if not self._longest or pos >= len(text) or not _starts_word(text, pos):
            return None
        key, ends, gap, i = "", [], 0, pos
        while i < len(text) and len(key) < self._longest:
            ch = text[i]
            if ch in SEPARATORS or (ch.isspace() and ch not in "\r\n"):
                gap += 1
                if not key or gap > _MAX_GAP:
                    break
            elif ch.isspace() or ch in _DELIMITERS:
                break
            else:
                key += ch.casefold()
                gap = 0
                ends.append((key, i + 1))
            i += 1
        for prefix, end in reversed(ends):
            code = self._by_key.get(prefix)
            if code is None or not _ends_word(text, end):
                continue
            if free_text and not any(ch.isdigit() for ch in code) and text[pos:end] != code:
                continue
            return code, end
        return None

    def find_all(self, text: str) -> list[tuple[int, int, str]]:
        """Every catalog code in free ``text``, left to right, as ``(start, end, code)``;
        the longest at each place, never two overlapping."""
        found: list[tuple[int, int, str]] = []
        pos = 0
        while pos < len(text):
            hit = self.match_at(text, pos, free_text=True)
            if hit is None:
                pos += 1
                continue
            found.append((pos, hit[1], hit[0]))
            pos = hit[1]
        return found

    def lookalike(self, text: str) -> str | None:
        """The catalog code ``text`` reads as when letters that look like digits (O, o, l,
        I) are read as the digits; None when no such reading is one."""
        spots = [i for i, ch in enumerate(text) if ch in _LOOKALIKE][:6]
        for n in range(1, len(spots) + 1):
            for chosen in combinations(spots, n):
                chars = list(text)
                for i in chosen:
                    chars[i] = _LOOKALIKE[chars[i]]
                hit = self.find("".join(chars))
                if hit is not None:
                    return hit
        return None

    def unknown(self, code: str) -> str:
        """'unknown course ...' for a code a record or request names that the catalog
        does not have: when the catalog declares its code syntax and the code does not
        match it, what its codes look like; the codes meant when some are close."""
        out = f"unknown course {code!r}"
        if not self.fits_pattern(code):
            out += (
                ": it is not written as this catalog writes course codes (course_code_pattern "
                f"{self.pattern!r}, e.g. {', '.join(self.codes[:2])})"
            )
        meant = self.suggest(code)
        return out + (f"; did you mean {', '.join(meant)}?" if meant else "")

    def suggest(self, text: str) -> list[str]:
        """Up to ``SUGGESTIONS`` codes meant by ``text``: the one it reads as with look-alike
        letters for digits ('15-11O' -> '15-110') first, then ``closest``."""
        meant = [c for c in [self.lookalike(text.strip())] if c is not None]
        meant += [c for c in self.closest(text) if c not in meant]
        return meant[:SUGGESTIONS]

    def closest(self, text: str) -> list[str]:
        """Up to ``SUGGESTIONS`` codes like ``text`` (difflib ratio 0.6 or more, compared
        in lower case with single spaces): first codes that start with it ('15-11' ->
        '15-110', '15-112'), then by similarity; ties in code order."""
        wanted = " ".join(text.split()).casefold()
        matcher = difflib.SequenceMatcher(b=wanted)
        ranked = []
        for code in self.codes:
            key = " ".join(code.split()).casefold()
            matcher.set_seq1(key)
            ratio = matcher.ratio()
            if ratio >= 0.6:
                ranked.append((not key.startswith(wanted), -ratio, key, code))
        return [code for *_, code in sorted(ranked)[:SUGGESTIONS]]


def _starts_word(text: str, pos: int) -> bool:
    ch = text[pos]
    if ch.isspace() or ch in SEPARATORS or ch in _DELIMITERS:
        return False
    return pos == 0 or not (text[pos - 1].isalnum() or text[pos - 1] in "&-")


def _ends_word(text: str, end: int) -> bool:
    return end >= len(text) or not (text[end].isalnum() or text[end] == "&")


_ACTIVE: ContextVar[CodeIndex | None] = ContextVar("course_codes", default=None)


def active_codes() -> CodeIndex | None:
    """The course codes of the catalog in use (``use_codes``), or None outside one."""
    return _ACTIVE.get()


@contextmanager
def use_codes(index: CodeIndex | None) -> Iterator[CodeIndex | None]:
    """Read course codes in text as ``index``'s inside the block (``agents.catalog.
    use_catalog`` binds the catalog's; the prerequisite parser and the letter check read
    them)."""
    token = _ACTIVE.set(index)
    try:
        yield index
    finally:
        _ACTIVE.reset(token)

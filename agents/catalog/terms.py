"""Academic terms: codes such as ``F2026`` (fall), ``S2027`` (spring) and ``U2027`` (summer).

Terms are ordered by year and then spring < summer < fall. ``Term.parse`` accepts the code
and readable forms ("Fall 2026", "fall 2026", "2026 fall").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from agents.errors import TermError

Season = Literal["spring", "summer", "fall"]

_SEASON_CODE: dict[str, Season] = {"S": "spring", "U": "summer", "F": "fall"}
_CODE_OF: dict[Season, str] = {v: k for k, v in _SEASON_CODE.items()}
_ORDER: dict[Season, int] = {"spring": 0, "summer": 1, "fall": 2}
_CODE_RE = re.compile(r"^([SUF])(\d{4})$")
_WORDS_RE = re.compile(
    r"^(spring|summer|fall|autumn)\s+(\d{4})$|^(\d{4})\s+(spring|summer|fall|autumn)$"
)

TERM_CODE_PATTERN = r"^[SUF][0-9]{4}$"


@dataclass(frozen=True, order=False)
class Term:
    """One academic term."""

    season: Season
    year: int

    @classmethod
    def parse(cls, text: str) -> Term:
        """A term from a code ('F2026') or words ('Fall 2026'); terms are immutable, so a
        text read once is answered from a cache afterwards."""
        return _parse(text)

    @classmethod
    def _read(cls, text: str) -> Term:
        raw = text.strip()
        m = _CODE_RE.match(raw.upper())
        if m:
            return cls(_SEASON_CODE[m.group(1)], int(m.group(2)))
        w = _WORDS_RE.match(raw.lower())
        if w:
            season = w.group(1) or w.group(4)
            year = w.group(2) or w.group(3)
            season = "fall" if season == "autumn" else season
            return cls(season, int(year))  # type: ignore[arg-type]
        raise TermError(
            f"not a term: {text!r}; write a code such as 'F2026', 'S2027' or 'U2027', "
            "or words such as 'Fall 2026'"
        )

    @property
    def kind(self) -> str:
        """The term kind's code ('F', 'S', 'U')."""
        return _CODE_OF[self.season]

    @property
    def regular(self) -> bool:
        """Whether this is a regular term (load rules and full-time status apply)."""
        return self.season != "summer"

    @property
    def code(self) -> str:
        return f"{_CODE_OF[self.season]}{self.year}"

    @property
    def index(self) -> int:
        """A sortable integer: consecutive seasons give consecutive numbers."""
        return self.year * 3 + _ORDER[self.season]

    @classmethod
    def from_index(cls, index: int) -> Term:
        year, o = divmod(index, 3)
        season = next(s for s, v in _ORDER.items() if v == o)
        return cls(season, year)

    def next_regular(self, include_summer: bool = False) -> Term:
        """The next term a student normally enrolls in (summers skipped unless asked)."""
        t = Term.from_index(self.index + 1)
        if t.season == "summer" and not include_summer:
            t = Term.from_index(t.index + 1)
        return t

    def label(self) -> str:
        return f"{self.season.capitalize()} {self.year}"

    def __str__(self) -> str:
        return self.code

    def __lt__(self, other: Term) -> bool:
        return self.index < other.index

    def __le__(self, other: Term) -> bool:
        return self.index <= other.index

    def __gt__(self, other: Term) -> bool:
        return self.index > other.index

    def __ge__(self, other: Term) -> bool:
        return self.index >= other.index


def regular_terms(first: Term, last: Term) -> list[Term]:
    """Fall and spring terms from ``first`` to ``last`` inclusive."""
    out: list[Term] = []
    t = first if first.season != "summer" else first.next_regular()
    while t <= last:
        out.append(t)
        t = t.next_regular()
    return out


def term_label(code: str | None) -> str:
    """'S2027' -> 'Spring 2027'; '' for None; text that is not a term comes back unchanged."""
    if not code:
        return ""
    try:
        return Term.parse(code).label()
    except TermError:
        return code


def term_code(text: str) -> str:
    """Normalize any accepted spelling of a term to its code."""
    return Term.parse(text).code


@lru_cache(maxsize=4096)
def _parse(text: str) -> Term:
    return Term._read(text)

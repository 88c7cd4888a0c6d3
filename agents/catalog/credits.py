"""Credits: what the catalog calls them and exact arithmetic on them.

Course units are decimals with at most two places (0.25, 0.5, 1, 3, 4.5, 9). They are held
as Python floats, the nearest binary value to the decimal written; arithmetic on them goes
through ``decimal.Decimal``: ``credit`` reads a float back as the decimal it stands for
(the shortest one that gives the float, to two places), ``credit_sum`` and ``credit_sub``
add and subtract those decimals exactly and give back the float nearest to the result. Two
results are then equal exactly when the decimals are (ten 0.1-credit courses make 1.0, not
0.9999999999999999), and comparing them needs no tolerance. Integer models (the planner's
CP-SAT model) count whole hundredths: ``hundredths`` and ``from_hundredths`` convert at
that boundary.

``unit_name()`` is the name of the credits of the catalog in use (``institution.unit_name``:
"units", "credits", "courses", "quarter units"), bound with the calendar by ``use_catalog``;
``credits_text`` says an amount in it ("1 credit", "4 credits"), ``unit_word`` one of them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from typing import Protocol, TypeVar

from agents.catalog.codes import CodeIndex, use_codes
from agents.catalog.next_term import calendar_main_kinds, use_main_kinds
from agents.catalog.terms import Calendar, use_calendar
from agents.catalog.words import singular


class _Named(Protocol):
    @property
    def unit_name(self) -> str: ...


class CatalogLike(Protocol):
    """What ``use_catalog`` reads of a catalog (``agents.catalog.Catalog``)."""

    @property
    def calendar(self) -> Calendar: ...

    @property
    def institution(self) -> _Named: ...


_C = TypeVar("_C", bound=CatalogLike)

HUNDREDTHS = 100
"""Credits are exact to this fraction of a unit (two decimal places)."""

GRADE_PLACE = Decimal("0.0001")
"""Grade points are exact to this fraction of a point (four places: 3.67, 3.333)."""

_UNIT_NAME: ContextVar[str] = ContextVar("unit_name", default="units")


CENT = Decimal("0.01")
"""The place credits are exact to, as a ``Decimal`` exponent."""


def credit(value: float) -> Decimal:
    """``value`` as the decimal it stands for, to two places: 0.1 -> Decimal('0.10'), never
    0.1000000000000000055511151231257827 (ties to even, as ``round`` does)."""
    return Decimal(repr(float(value))).quantize(CENT, rounding=ROUND_HALF_EVEN)


def hundredths(value: float) -> int:
    """``value`` in whole hundredths (0.25 -> 25), for integer models; rounded to two
    places."""
    return int(credit(value).scaleb(2))


def from_hundredths(count: int) -> float:
    """A count of hundredths as credits (the float nearest to ``count / 100``)."""
    return float(Decimal(count).scaleb(-2))


def credit_sum(values: Iterable[float]) -> float:
    """The exact sum of credit values, as the float nearest to it."""
    return float(sum((credit(v) for v in values), Decimal(0)))


def credit_sub(a: float, b: float) -> float:
    """The exact difference ``a - b`` of two credit values."""
    return float(credit(a) - credit(b))


def credit_step(values: Iterable[float]) -> int:
    """The step of a credit system, in hundredths: the largest credit that divides every
    one of ``values`` (a catalog's course units). 9-, 12- and 10-unit courses step by 1
    unit (100), 1-, 0.5- and 0.25-credit ones by 0.25 (25); multiplying every value by a
    factor multiplies the step by it, so counts of steps do not change. 100 for no values."""
    return math.gcd(*(abs(hundredths(v)) for v in values)) or HUNDREDTHS


def typical_credits(values: Iterable[float]) -> float:
    """The size of the typical course among courses of ``values`` credits: the one the
    median credit is taught in (a median weighted by credits, so a dozen quarter-credit
    activities do not make 1-credit courses atypical). Always one of ``values``, so it
    scales with them; 0 for none."""
    sizes = sorted(hundredths(v) for v in values)
    total, seen = sum(sizes), 0
    for size in sizes:
        seen += size
        if 2 * seen >= total:
            return from_hundredths(size)
    return 0.0


def grade_average(graded: Iterable[tuple[float, float]]) -> float | None:
    """The average of grade points weighted by credits - a GPA - from (points, credits)
    pairs: exact (grade points to four places, credits to two, in decimals) and rounded half
    up to two places, 3.435 -> 3.44. Credits of any size give the same GPA (a float average
    read 3.4349999 with 1-unit courses and 3.4350001 with 9-unit ones). None when no credits
    count."""
    points = credits = Decimal(0)
    for grade, size in graded:
        amount = credit(size)
        points += Decimal(repr(float(grade))).quantize(GRADE_PLACE) * amount
        credits += amount
    if not credits:
        return None
    return float((points / credits).quantize(CENT, rounding=ROUND_HALF_UP))


def is_credit_value(value: float) -> bool:
    """Whether ``value`` has at most two decimal places."""
    return abs(value * HUNDREDTHS - round(value * HUNDREDTHS)) < 1e-6


def format_credits(value: float) -> str:
    """'9', '0.25', '1.5' - no trailing zeros, never '0.30000000000000004'."""
    exact = credit(value)
    return "0" if exact.is_zero() else f"{exact.normalize():f}"


def unit_name() -> str:
    """What the catalog in use calls its credits ('units', 'credits')."""
    return _UNIT_NAME.get()


def unit_word() -> str:
    """One of the catalog's credits ('unit', 'credit', 'course'), for '54-unit limit'."""
    return singular(unit_name())


def credits_noun(value: float) -> str:
    """The catalog's name for ``value`` credits: 'credit' for 1, 'credits' otherwise."""
    return unit_word() if hundredths(value) == HUNDREDTHS else unit_name()


def credits_text(value: float) -> str:
    """'4 credits', '0.5 credits', '1 credit', '1 unit of credit' in the catalog's words."""
    return f"{format_credits(value)} {credits_noun(value)}"


@contextmanager
def use_catalog(catalog: _C) -> Iterator[_C]:
    """Read terms in ``catalog``'s calendar and name credits as it does inside the block;
    "next term" is its next main term (``agents.catalog.next_term``); course codes in text
    are its codes (``agents.catalog.codes``)."""
    token = _UNIT_NAME.set(catalog.institution.unit_name)
    kinds = getattr(catalog, "main_kinds", None)  # a Catalog's, by its load rules
    if not isinstance(kinds, frozenset):
        kinds = calendar_main_kinds(catalog.calendar)
    codes = getattr(catalog, "code_index", None)
    try:
        with (
            use_calendar(catalog.calendar),
            use_main_kinds(catalog.calendar, kinds),
            use_codes(codes if isinstance(codes, CodeIndex) else None),
        ):
            yield catalog
    finally:
        _UNIT_NAME.reset(token)

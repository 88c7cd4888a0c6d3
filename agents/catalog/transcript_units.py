"""Transcript credits in the catalog's unit: PESC ``CourseCreditUnits`` converted.

A transcript says what its credits are (``Semester`` hours, ``Quarter`` units,
``Units``, ``ClockHours`` ...). The catalog says what its own are
(``institution.credit_unit``, and ``unit_name``) and how many of its credits one credit
of another unit is worth (``institution.credit_conversion``: ``{"Semester": 1.5}`` on a
quarter catalog). Unit codes are compared ignoring case, spaces and punctuation, and a
trailing 's' ('Units', 'unit').

- no unit given, or the catalog's own: the credits as they are;
- a unit with a factor: the credits times the factor, to two decimals, with a note;
- any other unit when the catalog declares its own or some factor: a problem, and the
  course is kept out - a credit of unknown size is never guessed;
- any unit when the catalog declares neither: the credits are read as the catalog's, and
  the import report says so (``UnitReading.ignored``), as before units were declared.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from agents.catalog.credits import format_credits
from agents.catalog.model import Catalog
from agents.catalog.transcript import Cell


@dataclass(frozen=True)
class UnitReading:
    """Transcript credits in the catalog's unit, or why they cannot be."""

    value: Decimal | None  # None: the unit is unknown (``problem`` says why)
    note: str | None = None  # a conversion made
    problem: str | None = None
    ignored: str | None = None  # the unit was not checked: the catalog declares none


def unit_key(text: str) -> str:
    key = re.sub(r"[^a-z]", "", text.casefold())
    return key[:-1] if key.endswith("s") and len(key) > 1 else key


def convert(value: Decimal, unit: Cell | None, catalog: Catalog, label: str) -> UnitReading:
    """``value`` credits in ``unit`` (None: not given) as the catalog's credits."""
    if unit is None:
        return UnitReading(value)
    inst = catalog.institution
    own = {unit_key(inst.unit_name)} | ({unit_key(inst.credit_unit)} if inst.credit_unit else set())
    key = unit_key(unit.value)
    if key in own:
        return UnitReading(value)
    factors = {unit_key(k): (k, v) for k, v in inst.credit_conversion.items()}
    if key in factors:
        name, factor = factors[key]
        converted = (value * Decimal(str(factor))).quantize(Decimal("0.01"), ROUND_HALF_UP)
        note = (
            f"{label}: {format_credits(float(value))} {unit.value} credits at {unit.where} "
            f"are {format_credits(float(converted))} {inst.unit_name} (credit_conversion "
            f"{name!r}: {format_credits(factor)})"
        )
        return UnitReading(converted, note=note)
    if inst.credit_unit is None and not inst.credit_conversion:
        ignored = (
            f"{unit.where} {unit.value!r} (first at line {unit.line}): not checked - the "
            f"catalog declares no credit_unit or credit_conversion, so transcript credits are "
            f"read as {inst.unit_name}"
        )
        return UnitReading(value, ignored=ignored)
    known = sorted({inst.credit_unit or inst.unit_name, *inst.credit_conversion})
    problem = (
        f"credit unit {unit.value!r} is not the catalog's ({', '.join(map(repr, known))} "
        f"are known); add it to the catalog's institution.credit_conversion with how many "
        f"{inst.unit_name} one is worth; {label} is left out"
    )
    return UnitReading(None, problem=problem)

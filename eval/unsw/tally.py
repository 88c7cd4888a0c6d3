"""Counting what the conversion kept, approximated or left out, by kind of fact.

Every rule of the converter that meets a fact records it here under a *row* (one kind of
fact and what became of it); ``eval.unsw.report`` renders the rows as the conversion table.
A row's sentence says what the format could not state; its examples are the first few
items in source order, so the report is the same on every run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Outcome = Literal["exact", "approximate", "not converted"]
OUTCOMES: tuple[Outcome, ...] = ("exact", "approximate", "not converted")
EXAMPLES = 4


@dataclass
class Row:
    """One kind of fact and what became of it."""

    section: str
    outcome: Outcome
    label: str
    why: str
    count: int = 0
    examples: list[str] = field(default_factory=list)


@dataclass
class Tally:
    """The rows of one conversion, in the order they were first met."""

    rows: dict[tuple[str, str], Row] = field(default_factory=dict)

    def add(
        self, section: str, outcome: Outcome, label: str, why: str, item: str, n: int = 1
    ) -> None:
        """Count ``n`` facts of ``item`` under (``section``, ``label``)."""
        key = (section, label)
        row = self.rows.get(key)
        if row is None:
            row = self.rows[key] = Row(section, outcome, label, why)
        row.count += n
        if item and len(row.examples) < EXAMPLES and item not in row.examples:
            row.examples.append(item)

    def count(self, section: str, label: str) -> int:
        row = self.rows.get((section, label))
        return row.count if row else 0

    def section(self, section: str) -> list[Row]:
        return [r for r in self.rows.values() if r.section == section]

    def totals(self, section: str) -> dict[Outcome, int]:
        out: dict[Outcome, int] = dict.fromkeys(OUTCOMES, 0)
        for r in self.section(section):
            out[r.outcome] += r.count
        return out

    @property
    def sections(self) -> list[str]:
        seen: list[str] = []
        for r in self.rows.values():
            if r.section not in seen:
                seen.append(r.section)
        return seen

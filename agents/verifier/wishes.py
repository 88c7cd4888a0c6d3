"""The student's wishes in the constraints: courses to avoid, courses fixed in a term."""

from __future__ import annotations

from agents.catalog import Term
from agents.verifier.defects import Add
from agents.verifier.protocols import ConstraintsLike


def check_wishes(add: Add, c: ConstraintsLike, planned: dict[str, str]) -> None:
    for cc in c.avoid:
        if cc in planned:
            add("requirement", planned[cc], cc, f"{cc} is planned although it is to be avoided")
    for cc, term in c.fixed.items():
        code = Term.parse(term).code
        if planned.get(cc) != code:
            add(
                "requirement",
                code,
                cc,
                f"{cc} is fixed in {code} but planned in {planned.get(cc, 'no term')}",
            )

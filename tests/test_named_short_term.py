"""A next-term request that names the short term is for it (#27 item 1): "what can I take
in January?" or "during the J-term" from a fall student plans the interim, while "next
semester" stays the next main term; a month only the short term runs in names it, and
"may" the verb never names a May term."""

from __future__ import annotations

import pytest

from agents.catalog import Term, named_short_term, use_calendar
from tests.test_main_terms import REGULAR_J

MAIN = frozenset({"S", "F"})
# The interim runs in January only: the month names it.
CALENDAR = REGULAR_J.model_copy(
    update={"terms": [REGULAR_J.terms[0].model_copy(update={"months": [1]}), *REGULAR_J.terms[1:]]}
)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("What can I take in January? I'd like PHIL 120.", "J2027"),
        ("I'd like to take PHIL 120 during the J-term.", "J2027"),
        ("Plan my interim courses.", "J2027"),
        ("Please plan my next semester.", None),
        ("I may take five courses next term.", None),
        ("Next spring I want PHIL 120.", None),
    ],
)
def test_a_named_short_term_is_the_next_term(text: str, want: str | None) -> None:
    with use_calendar(CALENDAR):
        fall = Term.parse("F2026")
        got = named_short_term(text, fall, MAIN)
        assert (got.code if got else None) == want


def test_a_short_term_after_the_next_main_one_is_not_it() -> None:
    with use_calendar(CALENDAR):
        spring = Term.parse("S2027")  # the next January comes after the fall
        assert named_short_term("What can I take in January?", spring, MAIN) is None

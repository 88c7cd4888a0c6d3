"""Credits: exact sums in hundredths, the unit name of the catalog in use, two decimal
places at most in a course's units."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from agents.catalog import (
    Course,
    credit_sub,
    credit_sum,
    credits_text,
    format_credits,
    load_catalog,
    unit_name,
    use_catalog,
)

quarters = st.integers(1, 400).map(lambda n: n / 4)  # 0.25 .. 100 in 0.25 steps
hundredths = st.integers(1, 2000).map(lambda n: n / 100)  # 0.01 .. 20


@given(st.lists(quarters, max_size=60))
def test_sums_of_quarter_credits_are_exact(values: list[float]) -> None:
    exact = sum((Fraction(v).limit_denominator(100) for v in values), Fraction(0))
    assert Fraction(credit_sum(values)) == exact


@given(st.lists(hundredths, max_size=60), st.lists(hundredths, max_size=60))
def test_equal_decimal_sums_are_equal_floats(a: list[float], b: list[float]) -> None:
    exact_a = sum(round(v * 100) for v in a)
    exact_b = sum(round(v * 100) for v in b)
    assert (credit_sum(a) == credit_sum(b)) == (exact_a == exact_b)
    assert (credit_sum(a) >= credit_sum(b)) == (exact_a >= exact_b)
    assert credit_sub(credit_sum(a), credit_sum(b)) == (exact_a - exact_b) / 100


def test_the_float_drift_of_a_plain_sum_does_not_happen() -> None:
    assert sum([0.1] * 10) != 1.0  # the drift exact sums avoid
    assert credit_sum([0.1] * 10) == 1.0
    assert credit_sum([0.1, 0.2]) == 0.3
    assert credit_sub(36, 35.75) == 0.25
    assert format_credits(credit_sum([0.1, 0.2])) == "0.3"
    assert [format_credits(x) for x in (9, 9.0, 0.25, 1.5, 0)] == ["9", "9", "0.25", "1.5", "0"]


def test_units_with_more_than_two_places_are_refused() -> None:
    base = {
        "code": "MUS 101",
        "title": "Ensemble",
        "department": "Music",
        "level": 100,
        "offered": {"terms": ["fall"]},
    }
    assert Course.model_validate({**base, "units": 0.25}).units == 0.25
    with pytest.raises(ValidationError, match="more than two decimal places"):
        Course.model_validate({**base, "units": 0.333})


def test_the_unit_name_is_the_catalog_in_use() -> None:
    catalog = load_catalog()
    renamed = catalog.model_copy(
        update={"institution": catalog.institution.model_copy(update={"unit_name": "credits"})}
    )
    assert unit_name() == "units"
    with use_catalog(renamed):
        assert unit_name() == "credits"
        assert [credits_text(x) for x in (1, 1.0, 0.5, 4)] == [
            "1 credit",
            "1 credit",
            "0.5 credits",
            "4 credits",
        ]
    assert unit_name() == "units"

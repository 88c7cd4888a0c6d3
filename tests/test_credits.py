"""Credits: exact sums in decimals (and hundredths for integer models), the unit name of
the catalog in use, two decimal places at most in a course's units."""

from __future__ import annotations

from decimal import Decimal
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
from agents.catalog.credits import credit, from_hundredths, grade_average
from agents.catalog.credits import hundredths as to_hundredths

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


def test_credits_are_the_decimals_written() -> None:
    assert credit(0.1) == Decimal("0.10") and str(credit(0.1)) == "0.10"
    assert credit(35.75) - credit(36) == Decimal("-0.25")
    assert [to_hundredths(x) for x in (0.25, 4.5, 9, 0.1 + 0.2)] == [25, 450, 900, 30]
    assert [from_hundredths(n) for n in (25, 450, 900, 30)] == [0.25, 4.5, 9.0, 0.3]
    # The decimal written is what is rounded, not the float below it: 0.125 and 0.135 are
    # ties, to even (0.135 is the float 0.13500000000000000888, 1.015 is 1.0149999999999999).
    assert [to_hundredths(x) for x in (0.125, 0.135, 1.015)] == [12, 14, 102]
    assert format_credits(100) == "100" and format_credits(-0.001) == "0"


@given(st.lists(st.tuples(st.integers(0, 40_000), st.integers(1, 2000)), max_size=12))
def test_a_grade_average_is_the_exact_one_rounded_half_up(pairs: list[tuple[int, int]]) -> None:
    graded = [(p / 10_000, c / 100) for p, c in pairs]  # points to four places, credits two
    credits = sum(c for _, c in pairs)
    average = grade_average(graded)
    if not credits:
        assert average is None
        return
    exact = Fraction(sum(p * c for p, c in pairs), credits * 10_000)
    assert average == float(int(exact * 100 + Fraction(1, 2))) / 100


def test_a_gpa_on_the_half_rounds_up_whatever_the_unit_size() -> None:
    for size in (1, 3, 9, 0.25):  # (3.67 + 3.2) / 2 = 3.435 exactly
        assert grade_average([(3.67, size), (3.2, size)]) == 3.44


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

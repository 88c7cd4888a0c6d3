"""Short terms are not the next semester (#27 item 1): in a calendar whose January interim
is regular, "next term", "next semester" and a request's next term mean the next *main*
term - unless the student names the short term. Which kinds are main: the calendar's
``main`` fields, else the load rules (a kind whose standard load is under half the main
ones'), else the kinds' typical dates."""

from __future__ import annotations

import pytest

from agents.catalog import (
    Catalog,
    PolicyRule,
    Term,
    TermKind,
    load_catalog,
    load_student,
    next_main,
    use_calendar,
    use_catalog,
)
from agents.catalog.main_terms import kind_loads, main_kinds
from agents.catalog.next_term import calendar_main_kinds
from agents.catalog.term_dates import TypicalDates
from agents.intake import profile_of
from agents.llm.textparse import parse_request_text
from tests.calendar_helpers import FOUR_ONE_FOUR, QUARTER

# A 4-1-4 college whose January interim is regular (load rules apply, plans use it).
REGULAR_J = FOUR_ONE_FOUR.model_copy(
    update={
        "terms": [
            TermKind(code="J", name="January Interim", aliases=["J-term", "interim"]),
            *FOUR_ONE_FOUR.terms[1:],
        ]
    }
)
ONE_COURSE_IN_J = {
    "id": "INTERIM-ONE",
    "title": "One course in the interim",
    "kind": "max_courses_per_term",
    "applies_when": {"term_kinds": ["J"]},
    "limit": 1,
    "citation": {"document": "academic-policies", "section": "course-load"},
}


def interim_catalog(cap: dict[str, object] | None = ONE_COURSE_IN_J) -> Catalog:
    base = load_catalog()
    rules = [*base.policies, *([PolicyRule.model_validate(cap)] if cap else [])]
    return base.model_copy(update={"calendar": REGULAR_J, "policies": rules})


def test_an_interim_capped_at_one_course_is_not_a_main_term() -> None:
    cat = interim_catalog()
    assert kind_loads(cat)["J"] < kind_loads(cat)["F"] / 2
    assert main_kinds(cat) == cat.main_kinds == frozenset({"S", "F"})
    # Without the cap nothing says the interim is short: every regular kind is main.
    assert interim_catalog(None).main_kinds == frozenset({"J", "S", "F"})


def test_a_limit_for_some_students_does_not_make_a_term_short() -> None:
    # The sample's "no units while suspended" (0) and first-year caps apply to every kind.
    assert load_catalog().main_kinds == frozenset({"S", "F"})
    probation = {
        **ONE_COURSE_IN_J,
        "applies_when": {"term_kinds": ["J"], "status_in": ["probation"]},
    }
    assert interim_catalog(probation).main_kinds == frozenset({"J", "S", "F"})


def test_the_calendar_can_say_which_kinds_are_main() -> None:
    said = REGULAR_J.model_copy(
        update={
            "terms": [REGULAR_J.terms[0].model_copy(update={"main": False}), *REGULAR_J.terms[1:]]
        }
    )
    assert calendar_main_kinds(said) == frozenset({"S", "F"})
    # ... and an explicit main wins over the load rules.
    cat = interim_catalog().model_copy(
        update={
            "calendar": REGULAR_J.model_copy(
                update={
                    "terms": [
                        REGULAR_J.terms[0].model_copy(update={"main": True}),
                        *REGULAR_J.terms[1:],
                    ]
                }
            )
        }
    )
    assert cat.main_kinds == frozenset({"J", "S", "F"})


def test_typical_dates_tell_a_short_term() -> None:
    weeks = {"J": 4, "S": 15, "F": 15}
    cal = REGULAR_J.model_copy(
        update={
            "terms": [
                k.model_copy(
                    update={"typical_dates": TypicalDates(start="01-05", weeks=weeks[k.code])}
                )
                if k.code in weeks
                else k
                for k in REGULAR_J.terms
            ]
        }
    )
    assert calendar_main_kinds(cal) == frozenset({"S", "F"})
    assert calendar_main_kinds(QUARTER) == frozenset({"W", "S", "F"})  # summer is optional


@pytest.mark.parametrize(("current", "nxt"), [("F2026", "S2027"), ("S2027", "F2027")])
def test_the_next_term_of_a_fall_student_is_spring_not_the_interim(current: str, nxt: str) -> None:
    cat = interim_catalog()
    record = load_student("demos/students/cs-sophomore.json").model_copy(
        update={"current_term": current}
    )
    with use_catalog(cat):
        assert next_main(Term.parse(current)).code == nxt
        assert profile_of(record, cat).next_term == nxt


@pytest.mark.parametrize(
    ("text", "target"),
    [
        ("Can I graduate next semester?", "S2027"),  # not the interim between
        ("Can I graduate next term?", "S2027"),
        ("Can I graduate next interim?", "J2027"),  # named: the short term itself
    ],
)
def test_next_term_in_the_text_is_the_next_main_term_unless_the_interim_is_named(
    text: str, target: str
) -> None:
    cat = interim_catalog()
    with use_catalog(cat):
        got = parse_request_text(text, cat, current_term="F2026")
    assert got.target_graduation == target


def test_outside_a_catalog_the_calendar_alone_decides() -> None:
    with use_calendar(REGULAR_J):
        assert next_main(Term.parse("F2026")).code == "J2027"  # nothing says J is short

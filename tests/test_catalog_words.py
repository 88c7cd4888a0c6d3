"""The catalog's own words (issue #27, item 9): a catalog whose credits are "credits" or that
counts courses, and a quarter or trimester calendar, are spoken of in those words - in the
audit, the planner's reasons, the critique's suggestions and the revision sentences, with
the right singular and plural ("1 course", "2 courses", "1 credit") - and a calendar's term
word comes from ``calendar.term_word`` or its system.

``QUARRY`` is a small quarter-calendar college that counts courses (every course is one
"course"), for these tests and the end-to-end ones in ``test_catalog_words_outputs``.
"""

from __future__ import annotations

from typing import Any

import pytest

from agents.artifacts import ConstraintChange, Modification
from agents.audit import audit, render_audit
from agents.catalog import (
    Calendar,
    Catalog,
    StudentRecord,
    TermKind,
    count_text,
    credits_text,
    term_word,
    terms_text,
    use_calendar,
    use_catalog,
)
from agents.catalog.words import calendar_term_word
from agents.checking.critique_text import describe
from agents.reports import change_sentence
from tests.calendar_helpers import FOUR_ONE_FOUR, QUARTER, TRIMESTER
from tests.harrow_helpers import HARROW_BAY, REPO

MAJOR = [f"QC {101 + i}" for i in range(10)]
CHAIN = {"QC 109": "QC 108", "QC 110": "QC 109"}

_WEEKS = {"W": "01-05", "S": "03-30", "U": "06-22", "F": "09-21"}
QUARTERS = Calendar(
    system="quarter",
    terms=[
        TermKind.model_validate(
            {**k.model_dump(), "typical_dates": {"start": _WEEKS[k.code], "weeks": 10}}
        )
        for k in QUARTER.terms
    ],
    academic_year_starts="F",
)


def _course(code: str, hour: int, after: str | None) -> dict[str, Any]:
    meeting = {"days": "MWF", "start": f"{hour:02d}:00", "end": f"{hour:02d}:50"}
    return {
        "code": code,
        **({"prerequisites": after} if after else {}),
        "title": f"Study {code[-3:]}",
        "units": 1,
        "department": "QC",
        "level": 100,
        "offered": {"terms": ["fall", "winter", "spring"]},
        "sections": [{"term": "W2027", "id": "1", "meetings": [meeting]}],
    }


def quarry_raw() -> dict[str, Any]:
    """Quarry College: quarters, credits counted in courses, a 10-course major ending in a
    chain QC 108 -> QC 109 -> QC 110, and at most 3 courses a quarter."""
    policy = "policies"
    return {
        "schema_version": 2,
        "institution": {"name": "Quarry College", "unit_name": "courses"},
        "catalog_year": "2026-2027",
        "calendar": QUARTERS.model_dump(mode="json", exclude_none=True),
        "standing_thresholds": {"sophomore": 9, "junior": 18, "senior": 27},
        "courses": [_course(c, 8 + i, CHAIN.get(c)) for i, c in enumerate(MAJOR)],
        "programs": [
            {
                "code": "QC-BA",
                "name": "Quarry Studies",
                "kind": "major",
                "catalog_year": "2026-2027",
                "department": "QC",
                "total_units": 10,
                "requirement": {
                    "kind": "course_set",
                    "id": "core",
                    "title": "Core",
                    "courses": MAJOR,
                    "min_courses": 10,
                },
            }
        ],
        "policies": [
            {
                "id": "LOAD-MAX",
                "title": "Course load",
                "kind": "max_units_per_term",
                "limit": 3,
                "citation": {"document": policy, "section": "load"},
            }
        ],
        "documents": [
            {
                "id": policy,
                "title": "Academic Policies",
                "kind": "policy",
                "sections": [
                    {
                        "id": "load",
                        "heading": "Course load",
                        "text": "A student takes at most 3 courses a quarter.",
                    },
                ],
            }
        ],
    }


QUARRY = Catalog.model_validate(quarry_raw())


def quarry_student(passed: int = 0) -> dict[str, Any]:
    """A first-year in QC-BA in fall 2026 who has passed the first ``passed`` courses."""
    return {
        "id": "q1",
        "name": "Quinn Quarry",
        "programs": ["QC-BA"],
        "catalog_year": "2026-2027",
        "start_term": "F2026",
        "current_term": "F2026",
        "academic_status": "good",
        "courses": [{"course": c, "term": "F2026", "grade": "A"} for c in MAJOR[:passed]],
    }


# --------------------------------------------------------------------------- the words


@pytest.mark.parametrize(
    ("calendar", "word"),
    [(None, "semester"), (QUARTER, "quarter"), (TRIMESTER, "trimester"), (FOUR_ONE_FOUR, "term")],
)
def test_term_word_follows_the_calendar_system(calendar: Calendar | None, word: str) -> None:
    cal = calendar or Calendar.model_validate({**QUARTER.model_dump(), "system": "semester"})
    assert calendar_term_word(cal) == word


def test_a_calendar_can_name_its_term_word() -> None:
    four_one_four = FOUR_ONE_FOUR.model_copy(update={"term_word": "semester"})
    with use_calendar(four_one_four):
        assert (term_word(), term_word(plural=True), terms_text(1)) == (
            "semester",
            "semesters",
            "1 semester",
        )


def test_counts_and_credits_take_the_singular_for_one() -> None:
    with use_catalog(QUARRY):
        assert [credits_text(1), credits_text(3), count_text(1, "courses")] == [
            "1 course",
            "3 courses",
            "1 course",
        ]
        assert terms_text(2) == "2 quarters"


# --------------------------------------------------------------------------- the audit


def _hb_audit_text(student: str) -> str:
    raw = (REPO / "demos" / "harrow-bay" / "students" / f"{student}.json").read_text("utf-8")
    record = StudentRecord.model_validate_json(raw)
    with use_catalog(HARROW_BAY):
        return render_audit(audit(HARROW_BAY, record))


def test_audit_on_a_credits_catalog_says_credits() -> None:
    text = _hb_audit_text("hb-senior-close")
    assert "Total credits: 36 credits required; 32 counted" in text
    assert "Arts: one credit: 1 of 1 credit counted" in text
    assert " units" not in text and "total-units" not in text


def test_audit_on_a_catalog_that_counts_courses_says_courses() -> None:
    record = StudentRecord.model_validate(quarry_student(passed=1))
    with use_catalog(QUARRY):
        text = render_audit(audit(QUARRY, record))
    assert "Total courses: 10 courses required; 1 counted" in text
    assert "needs 9 more" in text
    assert " units" not in text and "total-units" not in text


# --------------------------------------------------------------------------- sentences


def test_suggestions_and_revisions_say_the_unit_name() -> None:
    with use_catalog(QUARRY):
        cap = Modification(
            action="cap_term_units", term="W2027", value=1, rule_id="LOAD-MAX", reason="r"
        )
        every = Modification(action="cap_all_terms_units", value=3, rule_id="LOAD-MAX", reason="r")
        more = Modification(action="plan_more_units", value=2, rule_id="LOAD-MAX", reason="r")
        assert [describe(cap), describe(every), describe(more)] == [
            "cap Winter 2027 at 1 course",
            "cap every term at 3 courses",
            "plan at least 2 courses",
        ]
        change = ConstraintChange(
            field="max_units_per_term", before=3, after=1, rule_id="LOAD-MAX", reason="r"
        )
        assert change_sentence(change) == "Every term is capped at 1 course (was 3)"


@pytest.mark.parametrize("word", ["", "x" * 41])
def test_a_term_word_that_is_empty_or_too_long_is_named(word: str) -> None:
    from pydantic import ValidationError

    from tests.calendar_helpers import QUARTER

    with pytest.raises(ValidationError, match="term_word"):
        Calendar.model_validate({**QUARTER.model_dump(), "term_word": word})

"""The evaluation suite's 4-1-4 catalog (eval/catalogs/fenwick-college, issue #27): it builds,
its January Interim is regular but not a main term (the one-course cap says so, no ``main``
field), and every labeled request of eval/scenarios/fenwick-college runs on it with the
course counts its rationale computes by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.artifacts import PlanRequest
from agents.catalog import Term, load_catalog, next_main, use_catalog
from agents.catalog.authoring import build_catalog
from agents.catalog.main_terms import kind_loads

REPO = Path(__file__).resolve().parents[1]
CATALOG_DIR = REPO / "eval" / "catalogs" / "fenwick-college"
SCENARIOS = REPO / "eval" / "scenarios" / "fenwick-college"
FENWICK = load_catalog(CATALOG_DIR)

# Courses completed and completed-or-in-progress, as each scenario's rationale counts them.
COUNTS = {
    "fw-sophomore": (9, 13),
    "fw-sophomore-early": (9, 13),
    "fw-first-year": (0, 4),
    "fw-first-year-seminar": (0, 4),
    "fw-junior-minor": (18, 22),
    "fw-junior-spanish": (18, 22),
}


def requests() -> list[PlanRequest]:
    out = []
    with use_catalog(FENWICK):  # term codes such as J2026 are read in its calendar
        for path in sorted(SCENARIOS.glob("*.json")):
            raw = json.loads(path.read_text("utf-8"))
            assert raw["catalog"] == "eval/catalogs/fenwick-college", path.name
            out.append(PlanRequest.model_validate(raw["request"]))
    return out


def test_the_catalog_builds_as_authored() -> None:
    catalog, _ = build_catalog(CATALOG_DIR)
    assert len(catalog.courses) == 44
    assert [p.code for p in catalog.programs] == ["GEN-ED", "HIST-BA", "PHIL-MIN"]
    assert catalog.institution.unit_name == "courses"
    assert [(k.code, k.regular, k.main) for k in catalog.calendar.terms] == [
        ("J", True, None),
        ("S", True, None),
        ("F", True, None),
    ]


def test_the_interim_is_regular_but_short_by_its_one_course_cap() -> None:
    assert kind_loads(FENWICK) == {"J": 1.0, "S": 4.0, "F": 4.0}
    assert FENWICK.main_kinds == frozenset({"F", "S"})
    with use_catalog(FENWICK):
        fall = Term.parse("F2026")
        assert fall.shift(1).code == "J2027"  # the interim comes first ...
        assert next_main(fall).code == "S2027"  # ... but the next semester is spring


def test_the_rules_the_scenarios_exercise_are_as_the_policy_text_states() -> None:
    rules = FENWICK.rule_by_id
    assert rules["INTERIM-ONE"].applies_when.term_kinds == ["J"]
    assert rules["INTERIM-ONE"].limit == 1
    assert rules["LOAD-MAX"].applies_when.term_kinds == []
    course = FENWICK.course
    assert course("HIST 390").restricted_to == ["junior", "senior"]
    assert course("HIST 490").restricted_to == ["senior"]
    arranged = sorted(c.code for c in FENWICK.courses if not c.free_elective)
    assert arranged == ["HIST 396", "HIST 398", "HIST 490", "PHIL 398"]


@pytest.mark.parametrize("request_", requests(), ids=lambda r: r.request_id)
def test_each_scenario_record_has_the_counts_its_label_uses(request_: PlanRequest) -> None:
    student = request_.student
    assert all(a.course in FENWICK.course_by_code for a in student.courses)
    done, with_current = COUNTS[student.id]
    with use_catalog(FENWICK):
        assert student.units_earned(FENWICK) == done
        assert student.units_earned(FENWICK, True) == with_current

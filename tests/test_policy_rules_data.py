"""Policy rules as data, the format: every new form (limit tables, recent-term GPAs, term
kinds, repeat ceilings, pass/fail measure and scope, academic standing) is accepted, each
misuse is refused naming the rule and the fix, the effective limit follows the class year,
the catalog-wide load caps see tables and term kinds, and the old rule forms mean what
they meant."""

from __future__ import annotations

from typing import Any

import pytest

from agents.catalog import PolicyRule, RuleCondition
from agents.catalog.policies import LimitRow
from agents.errors import CatalogReferenceError, CatalogSchemaError
from agents.policy import Facts, catalog_load_caps, effective_limit, load_limit, threshold
from tests.policy_data_helpers import EVERY_FORM, catalog_with, rule
from tests.policy_helpers import CATALOG


def test_every_new_form_loads_and_reads_back() -> None:
    cat = catalog_with(*EVERY_FORM)
    by_id = cat.rule_by_id
    assert [(r.when.standing_in, r.limit) for r in by_id["LOAD-MAX"].limit_table] == [
        (["first_year"], 45),
        (["sophomore"], 50),
    ]
    recent = by_id["RECENT-OVERLOAD"].applies_when
    assert (recent.recent_gpa_min, recent.recent_terms) == (3.5, 3)
    assert by_id["SUMMER-MAX"].applies_when.term_kinds == ["U"]
    assert (by_id["REPEAT-C"].grade_ceiling, by_id["REPEAT-C"].limit) == ("C-", 1)
    pf = by_id["PF-MAJOR"]
    assert (pf.pass_fail_measure, pf.pass_fail_scope, pf.program_kinds) == (
        "courses",
        "program",
        ["major"],
    )
    assert by_id["PROBATION-GPA"].kind == "academic_standing"
    assert RuleCondition().recent_terms == 2


def _refused(*rules: dict[str, Any]) -> list[str]:
    with pytest.raises(CatalogReferenceError) as info:
        catalog_with(*rules)
    return info.value.problems


def _at(rule_id: str) -> str:
    """The JSON path of a rule added after the sample's policies."""
    return f"$.policies[{len(CATALOG.policies)}] ({rule_id})"


SCALE = "A, A-, B+, B, B-, C+, C, C-, D+, D, F, R, P, NP, W, I, TR"


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        (
            rule("REPEAT-Z", "repeat_limit", grade_ceiling="Z", limit=1),
            ".grade_ceiling: unknown grade 'Z'; the grade scale has " + SCALE,
        ),
        (
            rule("MAX-C", "max_units_per_term", grade_ceiling="C", limit=54),
            ".grade_ceiling: only repeat_limit rules have a grade ceiling; this rule is "
            "max_units_per_term - remove the field or change the kind",
        ),
        (
            rule("REP-M", "repeat_limit", measure="units", limit=2),
            ".measure: only pass_fail_limit rules have 'measure'; this rule is repeat_limit "
            "- remove the field or change the kind",
        ),
        (
            rule("PF-K", "pass_fail_limit", scope="overall", program_kinds=["major"], limit=1),
            ".program_kinds: program kinds limit a pass/fail rule of scope 'program' only; "
            "this rule's scope is 'overall' - add scope: program or remove program_kinds",
        ),
        (
            rule("REP-T", "repeat_limit", applies_when={"term_kinds": ["U"]}, limit=2),
            ".applies_when.term_kinds: term kinds narrow rules checked per planned term "
            "(max_courses_per_term, max_units_per_session, max_units_per_term, "
            "min_units_per_term, overload, probation_max_units); repeat_limit is not one - "
            "remove term_kinds",
        ),
        (
            rule("SUM-W", "max_units_per_term", applies_when={"term_kinds": ["summer"]}, limit=9),
            ".applies_when.term_kinds: unknown term kind 'summer'; the calendar's kinds are "
            "S (Spring), U (Summer), F (Fall) - write 'U'",
        ),
        (
            rule(
                "ROW-W",
                "max_units_per_term",
                limit=54,
                limit_table=[{"when": {"term_kinds": ["X"]}, "limit": 9}],
            ),
            ".limit_table[0].when.term_kinds: unknown term kind 'X'; the calendar's kinds are "
            "S (Spring), U (Summer), F (Fall) - use a kind code of the calendar",
        ),
        (
            rule("REC-N", "overload", applies_when={"recent_terms": 3}, limit=60),
            ".applies_when.recent_terms: recent_terms says how many terms recent_gpa_min "
            "covers; give recent_gpa_min or remove recent_terms",
        ),
        (
            rule("PF-KIND", "pass_fail_limit", scope="program", program_kinds=["track"], limit=1),
            ".program_kinds: unknown program kind 'track'; the kinds are major, minor, "
            "concentration, institution",
        ),
        (
            rule("ELIG-T", "minor_eligibility", limit_table=[{"when": {}, "limit": 1}]),
            ".limit_table: minor_eligibility rules have no limit to look up - remove the table",
        ),
        (
            rule(
                "ROWS",
                "max_units_per_term",
                limit=54,
                limit_table=[
                    {"when": {}, "limit": 50},
                    {"when": {"standing_in": ["senior"]}, "limit": 45},
                ],
            ),
            ".limit_table[1]: this row can never apply: row 0 has no condition and always "
            "holds - move it last or give it a condition",
        ),
        (
            rule("STAND", "academic_standing"),
            ": an academic_standing rule needs the GPA threshold: give limit, limit_table or both",
        ),
    ],
    ids=lambda x: x["id"] if isinstance(x, dict) else "",
)
def test_misused_fields_are_refused_naming_the_rule_and_the_fix(
    bad: dict[str, Any], problem: str
) -> None:
    assert _refused(bad) == [_at(bad["id"]) + problem]


@pytest.mark.parametrize(
    "bad",
    [
        rule("REC-0", "overload", applies_when={"recent_gpa_min": 3.0, "recent_terms": 0}),
        rule("PF-H", "pass_fail_limit", measure="hours", limit=1),
        rule("PF-S", "pass_fail_limit", scope="department", limit=1),
        rule("ROW-L", "max_units_per_term", limit_table=[{"when": {}}]),
    ],
    ids=lambda r: r["id"],
)
def test_malformed_forms_fail_the_schema(bad: dict[str, Any]) -> None:
    with pytest.raises(CatalogSchemaError):
        catalog_with(bad)


# --------------------------------------------------------------------------- effective limits


def test_first_matching_row_gives_the_limit_else_the_rule_limit() -> None:
    cat = catalog_with(*EVERY_FORM)
    load = cat.rule_by_id["LOAD-MAX"]
    got = {
        st: load_limit(cat, gpa=2.5, standing=st, status="good")
        for st in ("first_year", "sophomore", "junior", "senior")
    }
    assert {st: (lim.standard, lim.why) for st, lim in got.items() if lim} == {
        "first_year": (45, "as a first-year student"),
        "sophomore": (50, "as a sophomore"),
        "junior": (54, "with a GPA of 2.50"),
        "senior": (54, "with a GPA of 2.50"),
    }
    facts = Facts(gpa=2.5, standing="sophomore", status="good")
    assert effective_limit(load, facts) == 50
    assert threshold(load, facts) == (50, "as a sophomore")
    assert threshold(load, Facts(gpa=2.5, standing="junior", status="good")) == (54, "")
    assert load.effective_limit(lambda when: False) == 54


def test_the_first_row_that_holds_wins_over_later_ones() -> None:
    rows = [
        LimitRow(when=RuleCondition(gpa_max=2.0), limit=36),
        LimitRow(when=RuleCondition(standing_in=["first_year"]), limit=45),
    ]
    base = CATALOG.rule_by_id["LOAD-MAX"].model_copy(update={"limit_table": rows})
    low_first_year = Facts(gpa=1.9, standing="first_year", status="good")
    assert threshold(base, low_first_year) == (36, "with a GPA of 1.90")
    assert effective_limit(base, Facts(gpa=3.1, standing="first_year", status="good")) == 45


def test_a_table_can_stand_in_for_a_separate_first_year_rule() -> None:
    """'First-years may not overload': a row of the overload rule whose limit equals the
    normal maximum."""
    overload = rule(
        "LOAD-OVERLOAD",
        "overload",
        applies_when={"gpa_min": 3.0, "status_in": ["good"]},
        limit=63,
        limit_table=[{"when": {"standing_in": ["first_year"]}, "limit": 54}],
        requires_approval="advisor",
        severity="soft",
        citation={"document": "academic-policies", "section": "overload"},
    )
    cat = catalog_with(overload, drop=["FIRST-YEAR-MAX"])
    first = load_limit(cat, gpa=3.8, standing="first_year", status="good")
    soph = load_limit(cat, gpa=3.8, standing="sophomore", status="good")
    assert first is not None and soph is not None
    assert (first.allowed, first.overload_rule) == (54, None)
    assert (soph.allowed, soph.overload_rule and soph.overload_rule.id) == (63, "LOAD-OVERLOAD")


def test_catalog_caps_see_table_rows_and_term_kinds() -> None:
    cat = catalog_with(*EVERY_FORM)
    caps = catalog_load_caps(cat)
    # The first-year row lowers the catalog-wide standard, as a first-year rule would; the
    # recent-GPA overload is a ceiling like any overload.
    assert (caps.standard, caps.ceiling) == (45, 63)
    assert caps.by_kind == {"U": (20, 20)}
    status_row = rule(
        "LOAD-MAX",
        "max_units_per_term",
        limit=54,
        limit_table=[{"when": {"status_in": ["warning"]}, "limit": 40}],
    )
    assert catalog_load_caps(catalog_with(status_row)).standard == 54


@pytest.mark.slow
def test_a_maximum_that_names_its_approver_allows_more_when_asked() -> None:
    # "More than 20 units needs the faculty's approval" (UNSW's LOAD-MAX) is its own
    # overload: a student who asks for 24 units toward a target is planned at 24 and sent
    # for the approval (not answered infeasible at 20); a target alone still plans at 20.
    own = rule("LOAD-MAX", "max_units_per_term", limit=20, severity="soft",
               requires_approval="department")  # fmt: skip
    drop = ["LOAD-OVERLOAD", "FIRST-YEAR-MAX"]
    caps = catalog_load_caps(catalog_with(own, drop=drop))
    assert (caps.standard, caps.ceiling) == (20, 20)
    assert caps.asked is not None and caps.asked > 100  # no maximum names no one: no limit
    # The next maximum that names no one is the most that may be asked for.
    hard = rule("LOAD-HARD", "max_units_per_term", limit=27)
    caps = catalog_load_caps(catalog_with(own, hard, drop=drop))
    assert (caps.standard, caps.ceiling, caps.asked) == (20, 20, 27)
    # A maximum that names no approver allows nothing more.
    assert catalog_load_caps(catalog_with(hard, drop=drop)).asked is None


# --------------------------------------------------------------------------- old forms


def test_old_forms_keep_their_meaning() -> None:
    pf = CATALOG.rule_by_id["PF-LIMIT"]
    assert (pf.scope, pf.measure) == (None, None)
    assert (pf.pass_fail_scope, pf.pass_fail_measure) == ("term", "courses")
    only_scope = pf.model_copy(update={"scope": "overall"})
    only_measure = pf.model_copy(update={"measure": "courses"})
    assert (only_scope.pass_fail_scope, only_scope.pass_fail_measure) == ("overall", "units")
    assert (only_measure.pass_fail_scope, only_measure.pass_fail_measure) == ("overall", "courses")
    for r in CATALOG.policies:
        assert r.limit_table == [] and r.effective_limit(lambda when: True) == r.limit
        assert r.term_kinds_named == frozenset()
    caps = catalog_load_caps(CATALOG)
    assert (caps.standard, caps.ceiling, caps.by_kind) == (54, 63, {})


def test_sample_rules_are_unchanged_by_the_new_fields() -> None:
    """The sample catalog's JSON names none of the new fields, and dumping a rule with
    defaults excluded gives back only the old ones."""
    old = {
        "id",
        "title",
        "kind",
        "applies_when",
        "limit",
        "severity",
        "requires_approval",
        "citation",
        "summary",
    }
    for r in CATALOG.policies:
        assert set(r.model_dump(exclude_defaults=True)) <= old
    assert isinstance(CATALOG.rule_by_id["REPEAT-LIMIT"], PolicyRule)

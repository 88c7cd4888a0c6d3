"""Builders for the tests of policy rules as data (limit tables, recent-term GPAs, term
kinds, repeat ceilings, pass/fail scopes, academic standing): the sample catalog with
rules added or replaced - loaded through the real loader, so every rule is validated -
and plan checks against such a catalog, citing its own sections."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

from agents.artifacts import CitationRef, Schedule
from agents.catalog import Catalog, StudentRecord, default_catalog_path, parse_catalog
from agents.policy import Findings, PlanCheck, check_plan
from tests.policy_helpers import profile

_RAW: dict[str, Any] = json.loads(default_catalog_path().read_text("utf-8"))
CITE = {"document": "academic-policies", "section": "course-load"}


def raw_catalog() -> dict[str, Any]:
    """The sample catalog as JSON data, a fresh copy."""
    return copy.deepcopy(_RAW)


def rule(rule_id: str, kind: str, **fields: Any) -> dict[str, Any]:
    """A rule as catalog JSON, citing the course-load section unless told otherwise."""
    return {"id": rule_id, "title": rule_id.title(), "kind": kind, "citation": CITE, **fields}


# A rule of every new form: tables by class year, a recent-GPA overload, a summer cap, a
# repeat ceiling, pass/fail units overall and courses per major, a probation threshold.
BY_YEAR = [
    {"when": {"standing_in": ["first_year"]}, "limit": 45},
    {"when": {"standing_in": ["sophomore"]}, "limit": 50},
]
EVERY_FORM = [
    rule("LOAD-MAX", "max_units_per_term", limit=54, limit_table=BY_YEAR),
    rule(
        "RECENT-OVERLOAD",
        "overload",
        applies_when={"recent_gpa_min": 3.5, "recent_terms": 3},
        limit=60,
        requires_approval="dean",
    ),
    rule("SUMMER-MAX", "max_units_per_term", applies_when={"term_kinds": ["U"]}, limit=20),
    rule("REPEAT-C", "repeat_limit", grade_ceiling="C-", limit=1),
    rule("PF-TOTAL", "pass_fail_limit", measure="units", scope="overall", limit=36),
    rule(
        "PF-MAJOR",
        "pass_fail_limit",
        measure="courses",
        scope="program",
        program_kinds=["major"],
        limit=1,
    ),
    rule(
        "PROBATION-GPA",
        "academic_standing",
        limit=2.0,
        limit_table=[
            {"when": {"standing_in": ["first_year"]}, "limit": 1.8},
            {"when": {"standing_in": ["sophomore"]}, "limit": 1.9},
        ],
    ),
]


def raw_with(*rules: dict[str, Any], drop: Sequence[str] = ()) -> dict[str, Any]:
    """The sample catalog's JSON with ``rules`` added (a rule with an existing id replaces
    it) and the rules ``drop`` names removed."""
    raw = raw_catalog()
    ids = {r["id"] for r in rules} | set(drop)
    raw["policies"] = [r for r in raw["policies"] if r["id"] not in ids] + list(rules)
    return raw


def catalog_with(*rules: dict[str, Any], drop: Sequence[str] = ()) -> Catalog:
    """``raw_with`` loaded and validated like any catalog file."""
    return parse_catalog(raw_with(*rules, drop=drop), source="<test catalog>")


def citer(catalog: Catalog) -> Any:
    """Citations of ``catalog``'s rules, quoting the section as the retriever does."""

    def cite(rule_id: str) -> CitationRef:
        r = catalog.rule_by_id[rule_id]
        sec = catalog.section_text(r.citation.document, r.citation.section)
        return CitationRef(
            document=r.citation.document,
            section=sec.id,
            heading=sec.heading,
            quote=sec.text,
            rule_id=rule_id,
        )

    return cite


def plan_check(
    catalog: Catalog,
    rec: StudentRecord,
    sched: Schedule,
    programs: Sequence[str] = (),
    *,
    with_record: bool = True,
) -> PlanCheck:
    return PlanCheck(
        catalog=catalog,
        profile=profile(rec),
        record=rec if with_record else None,
        programs=list(programs or rec.programs),
        schedule=sched,
        cite=citer(catalog),
    )


def check(
    catalog: Catalog,
    rec: StudentRecord,
    sched: Schedule,
    kinds: Sequence[str] | None = None,
    programs: Sequence[str] = (),
) -> Findings:
    return check_plan(plan_check(catalog, rec, sched, programs), kinds=kinds)


def found(f: Findings) -> list[tuple[str, str, str | None, str]]:
    """Violations as (rule id, severity, term, message)."""
    return [(v.rule_id, v.severity, v.term, v.message) for v in f.violations]


def risks(f: Findings, rule_id: str) -> list[str]:
    return [r.message for r in f.risks if r.rule_id == rule_id]

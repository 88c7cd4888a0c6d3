"""Issue #17 defect 6: repeats. On a small catalog built here (a repeat rule with a grade
ceiling of C- and one repeat, a major that asks for 10-101 with a C or better), a course
passed at or below the ceiling is planned once when the student asks for it (field or
free text) or a minimum grade needs it, and the critique allows it citing the rule; the
audit counts the better grade; a course passed above the ceiling, or a second repeat, is
refused citing the rule - and a required retake the rule refuses makes the plan
infeasible with the rule named, not an unexplained "avoid list"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.artifacts import PlanRequest, Recommendation
from agents.audit import audit, iter_nodes
from agents.catalog import StudentRecord, parse_catalog
from agents.toolbox import Settings
from pipeline.context import WorkflowContext
from pipeline.runner import RequestOptions, ToolboxFactory, run_request
from pipeline.store import CheckpointStore

REPEATS_TEXT = "A course may be repeated only after a grade of C- or lower, and only once."


def _course(code: str) -> dict[str, Any]:
    return {
        "code": code,
        "title": f"Course {code}",
        "units": 9,
        "department": "MA",
        "level": 100,
        "offered": {"terms": ["fall", "spring"]},
    }


CATALOG: dict[str, Any] = {
    "schema_version": 2,
    "institution": {"name": "Repeat College"},
    "catalog_year": "2026-2027",
    "courses": [_course(f"10-10{i}") for i in range(1, 8)],
    "programs": [
        {
            "code": "MA-BS",
            "name": "Mathematics",
            "kind": "major",
            "catalog_year": "2026-2027",
            "department": "MA",
            "total_units": 54,
            "requirement": {
                "kind": "all_of",
                "id": "core",
                "children": [
                    {"kind": "course", "id": "calc", "course": "10-101", "min_grade": "C"},
                    {"kind": "course", "id": "alg", "course": "10-102"},
                    {"kind": "course", "id": "geo", "course": "10-103"},
                    {"kind": "course", "id": "top", "course": "10-104"},
                ],
            },
        }
    ],
    "policies": [
        {
            "id": "LOAD",
            "title": "Course load",
            "kind": "max_units_per_term",
            "limit": 27,
            "citation": {"document": "rules", "section": "load"},
        },
        {
            "id": "REPEATS",
            "title": "Repeating courses",
            "kind": "repeat_limit",
            "grade_ceiling": "C-",
            "limit": 1,
            "citation": {"document": "rules", "section": "repeats"},
        },
    ],
    "documents": [
        {
            "id": "rules",
            "title": "Rules",
            "kind": "policy",
            "sections": [
                {"id": "load", "heading": "Course load", "text": "At most 27 units a term."},
                {"id": "repeats", "heading": "Repeating courses", "text": REPEATS_TEXT},
            ],
        }
    ],
}
EARLIER = [
    {"course": "10-105", "term": "F2025", "grade": "B"},
    {"course": "10-106", "term": "F2025", "grade": "B"},
]


def _attempt(code: str, term: str, grade: str) -> dict[str, Any]:
    return {"course": code, "term": term, "grade": grade}


def _student(*attempts: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "sam",
        "name": "Sam",
        "programs": ["MA-BS"],
        "catalog_year": "2026-2027",
        "start_term": "F2025",
        "current_term": "F2026",
        "courses": [*EARLIER, *attempts],
    }


@pytest.fixture(scope="module")
def factory(tmp_path_factory: pytest.TempPathFactory) -> ToolboxFactory:
    path = tmp_path_factory.mktemp("repeat-catalog") / "catalog.json"
    path.write_text(json.dumps(CATALOG), encoding="utf-8")
    return ToolboxFactory(catalog_path=path, index_dir=path.parent / "index")


def _run(
    factory: ToolboxFactory, tmp: Path, attempts: list[dict[str, Any]], **fields: Any
) -> tuple[WorkflowContext, Recommendation]:
    request = PlanRequest.model_validate(
        {"request_id": "r", "student": _student(*attempts), "intent": "plan_degree", **fields}
    )
    ctx = run_request(
        request,
        RequestOptions(
            store=CheckpointStore(tmp), toolbox_factory=factory, settings=Settings(), out_dir=None
        ),
    )
    assert ctx.recommendation is not None, ctx.errors
    return ctx, ctx.recommendation


def _planned(rec: Recommendation) -> list[tuple[str, str]]:
    return [(t.term, c.course) for t in rec.plan for c in t.courses]


def _repeat_risks(rec: Recommendation) -> list[tuple[str, str | None, str]]:
    return [(r.kind, r.rule_id, r.message) for r in rec.risks if r.rule_id == "REPEATS"]


def _cites_the_rule(rec: Recommendation) -> bool:
    return any(
        (c.document, c.section, c.rule_id, c.quote) == ("rules", "repeats", "REPEATS", REPEATS_TEXT)
        for c in rec.citations
    )


def test_a_retake_below_the_ceiling_is_planned_once_and_allowed_citing_the_rule(
    factory: ToolboxFactory, tmp_path: Path
) -> None:
    ctx, rec = _run(
        factory,
        tmp_path,
        [_attempt("10-101", "S2026", "C"), _attempt("10-102", "S2026", "C-")],
        include_courses=["10-102"],
    )
    retakes = [(t, c) for t, c in _planned(rec) if c == "10-102"]
    assert len(retakes) == 1
    term = retakes[0][0]
    assert [(n.round, n.approval, n.violations) for n in ctx.negotiation] == [(1, "approved", [])]
    assert rec.outcome == "approved_with_risks"
    label = {"S2027": "Spring 2027", "F2027": "Fall 2027"}[term]
    assert _repeat_risks(rec) == [
        (
            "repeat",
            "REPEATS",
            f"10-102 in {label} is the last allowed repeat (1 of 1; earlier: S2026 C-)",
        )
    ]
    assert _cites_the_rule(rec)


def test_a_retake_asked_for_in_the_text_is_planned(factory: ToolboxFactory, tmp_path: Path) -> None:
    ctx, rec = _run(
        factory,
        tmp_path,
        [_attempt("10-101", "S2026", "C"), _attempt("10-102", "S2026", "C-")],
        text="I got a C- in 10-102 and want to retake it.",
    )
    assert ctx.intake is not None and ctx.intake.constraints.include_courses == ["10-102"]
    assert [c for _, c in _planned(rec)].count("10-102") == 1
    assert rec.outcome == "approved_with_risks" and _cites_the_rule(rec)


def test_a_minimum_grade_the_record_misses_plans_the_retake_once(
    factory: ToolboxFactory, tmp_path: Path
) -> None:
    ctx, rec = _run(factory, tmp_path, [_attempt("10-101", "S2026", "D")])
    assert [c for _, c in _planned(rec)].count("10-101") == 1
    assert ctx.schedules[-1].verification == []
    assert rec.outcome == "approved_with_risks"
    assert [(k, m.split(" in ")[0]) for k, _, m in _repeat_risks(rec)] == [("repeat", "10-101")]


@pytest.mark.parametrize("grades", [("D", "C"), ("C", "D")], ids=["better-later", "better-first"])
def test_the_audit_counts_the_better_grade_of_a_repeat(grades: tuple[str, str]) -> None:
    catalog = parse_catalog(CATALOG, "<repeat catalog>")
    first, second = grades
    record = StudentRecord.model_validate(
        _student(_attempt("10-101", "F2025", first), _attempt("10-101", "S2026", second))
    )
    report = audit(catalog, record)
    calc = next(n for _, n in iter_nodes(report) if n.id == "calc")
    assert calc.status == "met"
    assert [(c.course, c.grade, c.status) for c in calc.counted] == [("10-101", "C", "completed")]
    assert record.units_earned(catalog) == 27  # the repeat earns its units once
    assert record.computed_gpa(catalog) == 2.67  # B, B and the better grade C only


def test_a_retake_above_the_ceiling_is_refused_citing_the_rule(
    factory: ToolboxFactory, tmp_path: Path
) -> None:
    ctx, rec = _run(
        factory,
        tmp_path,
        [_attempt("10-101", "S2026", "C"), _attempt("10-102", "S2026", "C")],
        include_courses=["10-102"],
    )
    first = ctx.negotiation[0]
    assert first.approval == "rejected"
    assert [v.split(": ", 1)[1] for v in first.violations] == [
        "10-102 is planned again for Spring 2027 after a C in Spring 2026; a course may be "
        "repeated only after a grade of C- or below"
    ]
    assert "10-102" not in [c for _, c in _planned(rec)]
    assert ("other", "REPEATS", "10-102 was asked for but is not in the plan: 10-102 may not "
            "be attempted again; plan an alternative or petition for an exception") in [
        (r.kind, r.rule_id, r.message) for r in rec.risks
    ]  # fmt: skip
    assert _cites_the_rule(rec)


def test_a_second_repeat_beyond_the_limit_is_refused(
    factory: ToolboxFactory, tmp_path: Path
) -> None:
    ctx, rec = _run(
        factory,
        tmp_path,
        [
            _attempt("10-101", "S2026", "C"),
            _attempt("10-102", "F2025", "C-"),
            _attempt("10-102", "S2026", "D"),
        ],
        include_courses=["10-102"],
    )
    assert [v.split(": ", 1)[1] for v in ctx.negotiation[0].violations] == [
        "10-102 is planned again for Spring 2027 but was already repeated once (F2025 C-, "
        "S2026 D); it may be repeated at most once"
    ]
    assert "10-102" not in [c for _, c in _planned(rec)]
    assert _cites_the_rule(rec)


def test_a_required_retake_the_rule_refuses_names_the_rule_in_the_infeasible_answer(
    factory: ToolboxFactory, tmp_path: Path
) -> None:
    _, rec = _run(
        factory, tmp_path, [_attempt("10-101", "F2025", "D"), _attempt("10-101", "S2026", "D")]
    )
    assert rec.outcome == "infeasible"
    assert _repeat_risks(rec) == [
        (
            "repeat",
            "REPEATS",
            'no plan exists without 10-101, which the policy "Repeating courses" rules out: '
            "10-101 may not be attempted again; plan an alternative or petition for an exception",
        )
    ]
    assert _cites_the_rule(rec)

"""Terms of study (#28 item 12): "students study for at least eight regular terms;
graduating after fewer needs the dean's approval". The sample catalog with a ``min_terms``
rule (8 regular terms), with and without an approver, and three of the demo requests:

- a first-year with no target (1 regular term before the plan: F2026 in progress) could
  finish in F2029 (7 terms); the rule asks for 7 more regular terms, so the normal plan
  graduates in S2030 - no violation, no approval;
- a student who wants to finish early (target F2028; 2 terms completed + F2026 = 3): the
  target means 7 terms. Without an approver the rule stops it: round 1 meets the target,
  the critique cites MIN-TERMS and asks for a course in each regular term through S2029
  and drops the target, and the plan graduates in S2029. With the dean as approver the
  run stops for the dean's approval of graduating in F2028; approved, the plan keeps F2028.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from agents.artifacts import PlanRequest
from agents.toolbox import Settings
from pipeline.approvals import decide
from pipeline.context import WorkflowContext
from pipeline.runner import RequestOptions, ToolboxFactory, run_request
from pipeline.store import CheckpointStore

pytestmark = pytest.mark.slow  # whole pipeline runs, several rounds

ROOT = Path(__file__).resolve().parents[1]
TEXT = (
    "Students study for at least eight regular terms (fall and spring semesters). "
    "Graduation after fewer terms requires the approval of the dean."
)


def _catalog(tmp: Path, approver: str | None) -> Path:
    raw: dict[str, Any] = json.loads((ROOT / "agents" / "data" / "catalog.json").read_text())
    doc = next(d for d in raw["documents"] if d["id"] == "academic-policies")
    doc["sections"].append({"id": "terms-of-study", "heading": "Terms of study", "text": TEXT})
    rule: dict[str, Any] = {
        "id": "MIN-TERMS",
        "title": "Terms of study",
        "kind": "min_terms",
        "limit": 8,
        "citation": {"document": "academic-policies", "section": "terms-of-study"},
        "summary": "At least eight regular terms; fewer with the dean's approval.",
    }
    if approver:
        rule["requires_approval"] = approver
    raw["policies"].append(rule)
    path = tmp / f"catalog-{approver or 'none'}.json"
    path.write_text(json.dumps(raw))
    return path


def _request(rid: str) -> PlanRequest:
    for line in (ROOT / "demos" / "requests.jsonl").read_text().splitlines():
        if line.strip() and json.loads(line)["request_id"] == rid:
            return PlanRequest.model_validate_json(line)
    raise AssertionError(rid)


def _run(tmp: Path, catalog: Path, rid: str, store: CheckpointStore | None = None) -> Any:
    store = store or CheckpointStore(tmp / "state")
    ctx = run_request(
        _request(rid),
        RequestOptions(
            store=store,
            toolbox_factory=ToolboxFactory(catalog_path=catalog, backend="offline"),
            settings=Settings(),
            out_dir=None,
        ),
    )
    return ctx, store


def _min_terms_violations(ctx: WorkflowContext) -> list[list[str]]:
    return [[v.term or "" for v in c.violations if v.rule_id == "MIN-TERMS"] for c in ctx.critiques]


def test_without_a_target_the_normal_plan_takes_the_terms_the_rule_asks_for(
    tmp_path: Path,
) -> None:
    ctx, _ = _run(tmp_path, _catalog(tmp_path, None), "interests-first-year")
    assert ctx.schedules[-1].graduation_term == "S2030"
    regular = [t for t in ctx.schedules[-1].terms if t.courses and t.term[0] in "FS"]
    assert len(regular) == 7  # + F2026 in progress = 8
    assert _min_terms_violations(ctx) == [[] for _ in ctx.critiques]
    assert ctx.state == "done"


def test_an_early_target_the_rule_stops_is_refined_to_the_terms_it_asks_for(
    tmp_path: Path,
) -> None:
    ctx, _ = _run(tmp_path, _catalog(tmp_path, None), "finish-early-structured")
    assert [s.graduation_term for s in ctx.schedules] == ["F2028", "S2029"]
    assert _min_terms_violations(ctx) == [["F2028"], []]
    first = ctx.critiques[0]
    violation = next(v for v in first.violations if v.rule_id == "MIN-TERMS")
    assert violation.severity == "hard"
    assert "after 7 regular terms" in violation.message and "at least 8" in violation.message
    asked = {m.term for m in first.suggestions if m.action == "floor_term_courses"}
    assert asked == {"S2027", "F2027", "S2028", "F2028", "S2029"}
    assert any(m.action == "relax_target" for m in first.suggestions)
    assert ctx.state == "done"


def test_with_the_dean_as_approver_the_run_asks_and_an_approval_keeps_the_target(
    tmp_path: Path,
) -> None:
    catalog = _catalog(tmp_path, "dean")
    ctx, store = _run(tmp_path, catalog, "finish-early-structured")
    assert ctx.state == "awaiting_approval"
    asked = [a for a in ctx.approvals if a.rule_id == "MIN-TERMS"]
    assert [(a.terms, a.approver) for a in asked] == [(["F2028"], "dean")]
    violation = next(v for v in ctx.critiques[-1].violations if v.rule_id == "MIN-TERMS")
    assert violation.severity == "soft" and "needs dean approval" in violation.message
    for a in ctx.approvals:  # this request also asks for other approvals: grant them all
        decide(store, ctx.request_id, a.rule_id, "approved", by="Dean Ortiz",
               reason="strong record", on=date(2026, 11, 2))  # fmt: skip
    done, _ = _run(tmp_path, catalog, "finish-early-structured", store)
    assert done.state == "done"
    assert done.schedules[-1].graduation_term == "F2028"

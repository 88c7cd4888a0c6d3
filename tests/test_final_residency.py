"""Residence in the last units (#28 item 9): "the final N units must be earned in
residence" - a ``residency`` rule with ``of_last``. The demo transfer student (STAT-BS)
brought transfer and AP credit in F2025 and has taken every later course here. Counted back
from graduation: the planned units P, the F2026 courses in progress and the S2026 courses
(all here), then F2025 by course code from the highest: 99-101 (here), then 85-102
(transfer credit). A window that ends just after 85-102 with a limit equal to it asks for
every one of those units here: 85-102's units are missing, so round 1 is a violation whose
fix is to plan 85-102's units more; round 2 plans them, and the window then holds only
units earned here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.artifacts import PlanRequest
from agents.catalog import load_catalog
from agents.toolbox import Settings
from pipeline.runner import RequestOptions, ToolboxFactory, run_request
from pipeline.store import CheckpointStore

pytestmark = pytest.mark.slow  # two whole pipeline runs

ROOT = Path(__file__).resolve().parents[1]


def _request() -> PlanRequest:
    for line in (ROOT / "demos" / "requests.jsonl").read_text().splitlines():
        if line.strip() and json.loads(line)["request_id"] == "transfer-credit":
            return PlanRequest.model_validate_json(line)
    raise AssertionError("transfer-credit")


def _run(tmp: Path, catalog: Path | None, name: str) -> Any:
    return run_request(
        _request(),
        RequestOptions(
            store=CheckpointStore(tmp / name),
            toolbox_factory=ToolboxFactory(catalog_path=catalog, backend="offline"),
            settings=Settings(),
            out_dir=None,
        ),
    )


def test_transfer_credit_in_the_final_units_is_refused_and_planned_away(tmp_path: Path) -> None:
    plain = _run(tmp_path, None, "plain")
    planned = plain.schedules[-1].units_planned
    cat = load_catalog()
    record = _request().student
    assert record is not None
    recent = sum(cat.course(a.course).units for a in record.courses if a.term != "F2025")
    u99, u85 = cat.course("99-101").units, cat.course("85-102").units
    window = planned + recent + u99 + u85
    raw: dict[str, Any] = json.loads((ROOT / "agents" / "data" / "catalog.json").read_text())
    raw["policies"].append(
        {
            "id": "RES-FINAL",
            "title": "Final units in residence",
            "kind": "residency",
            "limit": window,
            "of_last": window,
            "citation": {"document": "academic-policies", "section": "residency"},
        }
    )
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(raw))
    ctx = _run(tmp_path, path, "final")
    first = [v for v in ctx.critiques[0].violations if v.rule_id == "RES-FINAL"]
    assert [v.message for v in first] == [
        f"{window - u85:g} units of the final {window:g} are earned at "
        f"{cat.institution.name}; at least {window:g} must be"
    ]
    fix = [m for m in ctx.critiques[0].suggestions if m.rule_id == "RES-FINAL"]
    assert [(m.action, m.value) for m in fix] == [("plan_more_units", planned + u85)]
    assert ctx.schedules[-1].units_planned >= planned + u85
    assert not [v for v in ctx.critiques[-1].violations if v.rule_id == "RES-FINAL"]
    assert ctx.state == "done"

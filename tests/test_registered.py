"""Registered (planned) courses in the student record: the audit's look-ahead, the plan
keeps them in their terms, and the record check refuses one in the past."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.audit import audit
from agents.catalog import (
    StudentRecord,
    check_student_against_catalog,
    load_catalog,
    load_student,
)
from agents.writing.worksheet import worksheet_view
from pipeline.cli import main
from pipeline.logs import configure_logging
from pipeline.store import CheckpointStore

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _reset_logging() -> Iterator[None]:
    yield
    configure_logging("warning", stream=sys.stderr)


def _senior(**registered: str) -> Any:
    record = load_student(REPO / "demos" / "students" / "is-senior.json")
    regs = [{"course": c.replace("_", "-"), "term": t} for c, t in registered.items()]
    return StudentRecord.model_validate({**record.model_dump(), "registered": regs})


def test_a_registered_course_counts_as_planned_in_the_audit() -> None:
    catalog = load_catalog()
    report = audit(catalog, _senior(**{"67_475": "S2027"}))
    leaf = next(n for n in report.programs[0].root.children[0].children if n.id == "67-475")
    assert (leaf.status, leaf.met_by_completed) == ("met", False)
    assert [(c.course, c.term, c.status) for c in leaf.counted] == [("67-475", "S2027", "planned")]
    assert report.units_planned == 12
    view = worksheet_view(catalog, _senior(**{"67_475": "S2027"}), report)
    assert view["lookahead"][-1] == {
        "course": "67-475", "title": "Information Systems Capstone", "term": "S2027",
        "status": "registered", "counts": "67-475",
    }  # fmt: skip


def test_a_registration_in_the_past_or_twice_is_a_record_problem() -> None:
    record = _senior(**{"67_475": "F2026"})
    twice = [r.model_dump() for r in [*record.registered, record.registered[0]]]
    record = StudentRecord.model_validate({**record.model_dump(), "registered": twice})
    assert check_student_against_catalog(record, load_catalog()) == [
        "$.registered[0].term: 'F2026' is not after the current term F2026; record a course "
        "taken now under courses (in_progress)",
        "$.registered[1].term: 'F2026' is not after the current term F2026; record a course "
        "taken now under courses (in_progress)",
        "$.registered[1].course: 67-475 is registered twice",
    ]


def test_the_plan_keeps_a_registered_course_in_its_term(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = _senior(**{"70_481": "S2027"}).model_dump(mode="json")
    request = {"request_id": "reg", "student": record, "intent": "plan_degree"}
    (tmp_path / "req.json").write_text(json.dumps(request), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "req.json"]) == 0
    ctx = CheckpointStore(tmp_path / "state").load("reg")
    assert ctx is not None and ctx.recommendation is not None
    plan = {t.term: [c.course for c in t.courses] for t in ctx.recommendation.plan}
    assert "70-481" in plan["S2027"]

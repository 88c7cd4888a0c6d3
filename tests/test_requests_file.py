"""demos/requests.jsonl: every line is a valid PlanRequest, the scenarios the demos, batch and
eval rely on are present, and each inlined student is the record in demos/students/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.artifacts import PlanRequest
from agents.catalog import check_student_against_catalog, load_catalog, load_student
from agents.intake import read_request as run
from agents.toolbox import Toolbox

ROOT = Path(__file__).resolve().parent.parent
REQUESTS = ROOT / "demos" / "requests.jsonl"
REQUIRED = {
    "overload-low-gpa",
    "overload-high-gpa",
    "probation-next-term",
    "add-cs-minor",
    "add-minor-infeasible",
    "study-abroad",
    "time-conflict",
    "policy-question",
    "free-text-only",
    "senior-on-track",
    "progress-check",
    "unknown-program",
    "repeat-course",
    "transfer-credit",
    "script-injection",
}


def _lines() -> list[str]:
    return [line for line in REQUESTS.read_text("utf-8").splitlines() if line.strip()]


def _requests() -> dict[str, PlanRequest]:
    reqs = [PlanRequest.model_validate_json(line) for line in _lines()]
    return {r.request_id: r for r in reqs}


@pytest.mark.parametrize("number", range(len(_lines())))
def test_every_line_is_a_valid_plan_request(number: int) -> None:
    PlanRequest.model_validate_json(_lines()[number])


def test_required_requests_are_present_and_ids_are_unique() -> None:
    ids = [json.loads(line)["request_id"] for line in _lines()]
    assert len(ids) >= 14
    assert len(ids) == len(set(ids))
    assert REQUIRED - set(ids) == set()


def test_inlined_students_are_the_records_in_demos_students() -> None:
    catalog = load_catalog()
    for rid, req in _requests().items():
        path = ROOT / "demos" / "students" / f"{req.student.id}.json"
        assert req.student == load_student(path), (
            f"request {rid!r}: its student differs from {path.name}; copy the file's JSON "
            "into the line's 'student' field"
        )
        assert check_student_against_catalog(req.student, catalog) == []


def test_scenarios_have_the_shape_their_names_promise() -> None:
    r = _requests()
    assert (r["overload-low-gpa"].student.gpa, r["overload-high-gpa"].student.gpa) == (2.6, 3.8)
    for rid in ("overload-low-gpa", "overload-high-gpa"):
        assert (r[rid].target_graduation, "3.5 years" in r[rid].text) == ("F2028", True)
    assert (r["probation-next-term"].intent, r["probation-next-term"].student.academic_status) == (
        "plan_next_term",
        "probation",
    )
    assert (r["add-cs-minor"].student.id, r["add-cs-minor"].add_programs) == (
        "is-junior-cs-minor",
        ["CS-MIN"],
    )
    assert r["add-minor-infeasible"].student.id == "econ-senior"
    assert "F2027" in r["study-abroad"].student.terms_away + r["study-abroad"].terms_away
    assert r["time-conflict"].include_courses == ["67-272", "70-311"]
    assert (r["policy-question"].intent, r["policy-question"].question) == (
        "policy_question",
        "How many units can I take if my GPA is below 3.0?",
    )
    free = r["free-text-only"]
    only_text = PlanRequest(request_id=free.request_id, student=free.student, text=free.text)
    assert free == only_text
    assert r["progress-check"].intent == "check_progress"
    assert "<script>alert(1)</script>" in r["script-injection"].text


def test_every_request_passes_intake_offline() -> None:
    tools = Toolbox(catalog=load_catalog())
    for rid, req in _requests().items():
        result = run(req, tools)
        assert result.request_id == rid
        assert result.parser in ("structured", "offline")

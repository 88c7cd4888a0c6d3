"""Programs named the way people name them - any case, the official name, an alias the
catalog lists - in a request's add_programs and in ``advise audit --add-program``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.artifacts import PlanRequest
from agents.catalog import load_catalog, load_student
from agents.intake import read_request
from agents.toolbox import Toolbox
from pipeline.cli import main

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("given", ["CS-MIN", "cs-min", "computer science minor"])
def test_a_request_may_add_a_program_by_code_name_or_alias(given: str) -> None:
    student = load_student(REPO / "demos" / "students" / "is-junior-cs-minor.json")
    student = student.model_copy(update={"programs": ["IS-BS"]})
    request = PlanRequest(request_id="r1", student=student, add_programs=[given])
    intake = read_request(request, Toolbox(catalog=load_catalog()))
    assert intake.added_programs == ["CS-MIN"]
    assert intake.open_questions == []
    assert (f"{given!r} read as CS-MIN" in intake.notes) == (given != "CS-MIN")


def test_an_unknown_program_is_still_asked_about() -> None:
    student = load_student(REPO / "demos" / "students" / "is-senior.json")
    request = PlanRequest(request_id="r1", student=student, add_programs=["underwater basket"])
    intake = read_request(request, Toolbox(catalog=load_catalog()))
    assert [q.field for q in intake.open_questions] == ["add_programs"]
    assert intake.open_questions[0].question.startswith(
        "'underwater basket' is not a program in the catalog; programs: BUS-MIN, CS-BS"
    )


def test_audit_add_program_accepts_an_alias(capsys: pytest.CaptureFixture[str]) -> None:
    record = str(REPO / "demos" / "students" / "is-senior.json")
    assert main(["audit", record, "--add-program", "computer science minor", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(p["code"], p["what_if"]) for p in report["programs"]][-1] == ("CS-MIN", True)

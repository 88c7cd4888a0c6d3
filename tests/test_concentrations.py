"""Declared concentrations (#28 item 4). The sample catalog's CS-BS is made to require a
concentration, with two: CS-AI (one of 15-281, 15-388) and CS-SYS (two of 15-410, 15-411,
15-418, 15-440). The CS sophomore has none of those courses: CS-AI leaves one course (its
units), CS-SYS two - so without a declared one the plan assumes CS-AI and says so, with
CS-SYS as the other option. A student who declared CS-SYS is planned with it, and a
request switching to CS-AI drops CS-SYS."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents import requirements
from agents.artifacts import PlanRequest
from agents.catalog import Catalog, load_catalog, use_catalog
from agents.errors import CatalogError
from agents.intake import read_request
from agents.toolbox import Toolbox

ROOT = Path(__file__).resolve().parents[1]


def _raw() -> dict[str, Any]:
    raw: dict[str, Any] = json.loads((ROOT / "agents" / "data" / "catalog.json").read_text())
    cs = next(p for p in raw["programs"] if p["code"] == "CS-BS")
    cs["concentration_required"] = True
    for code, name, courses, n in (
        ("CS-AI", "Artificial Intelligence", ["15-281", "15-388"], 1),
        ("CS-SYS", "Systems", ["15-410", "15-411", "15-418", "15-440"], 2),
    ):
        raw["programs"].append(
            {
                "code": code,
                "name": f"{name} Concentration",
                "kind": "concentration",
                "catalog_year": cs["catalog_year"],
                "department": cs["department"],
                "eligible_majors": ["CS-BS"],
                "requirement": {
                    "kind": "course_set",
                    "id": f"{code.lower()}-courses",
                    "courses": courses,
                    "min_courses": n,
                },
            }
        )
    return raw


def _catalog(tmp_path: Path, raw: dict[str, Any]) -> Catalog:
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(raw))
    return load_catalog(path)


def _request(programs: list[str], **more: Any) -> PlanRequest:
    student = json.loads((ROOT / "demos" / "students" / "cs-sophomore.json").read_text())
    student["programs"] = programs
    return PlanRequest.model_validate({"request_id": "conc", "student": student, **more})


@pytest.mark.slow
def test_an_undeclared_concentration_is_assumed_and_said_with_the_options(
    tmp_path: Path,
) -> None:
    cat = _catalog(tmp_path, _raw())
    tools = Toolbox(catalog=cat)
    with use_catalog(cat):
        intake = read_request(_request(["CS-BS"], intent="plan_degree"), tools)
        assert intake.added_programs == ["CS-AI"] and "CS-AI" in intake.target_programs
        (note,) = intake.assumed
        assert "the plan assumes CS-AI" in note and "CS-SYS" in note
        proposal = requirements.propose(intake, tools)
    assert proposal.plan is not None and proposal.plan.status in ("optimal", "feasible")
    planned = {c for t in proposal.plan.terms for c in t.courses}
    assert {"15-281", "15-388"} & planned
    assert any(p.code == "CS-AI" for p in proposal.audit.programs)


def test_a_declared_concentration_is_used_and_a_switch_replaces_it(tmp_path: Path) -> None:
    cat = _catalog(tmp_path, _raw())
    tools = Toolbox(catalog=cat)
    with use_catalog(cat):
        declared = read_request(_request(["CS-BS", "CS-SYS"], intent="plan_degree"), tools)
        assert declared.added_programs == [] and declared.target_programs == ["CS-BS", "CS-SYS"]
        assert declared.assumed == []
        switched = read_request(
            _request(["CS-BS", "CS-SYS"], intent="switch_program", add_programs=["CS-AI"]), tools
        )
    assert switched.dropped_programs == ["CS-SYS"]
    assert sorted(switched.target_programs) == ["CS-AI", "CS-BS"]


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda raw: raw["programs"][-1].update(eligible_majors=["MATH-BS"]) or
         raw["programs"][-2].update(eligible_majors=["MATH-BS"]),
         "no program of kind 'concentration' names CS-BS"),
        (lambda raw: next(p for p in raw["programs"] if p["code"] == "CS-MIN").update(
            concentration_required=True), "only a major requires a concentration"),
    ],
)  # fmt: skip
@pytest.mark.slow
def test_a_requirement_no_concentration_can_meet_is_refused(
    tmp_path: Path, change: Any, says: str
) -> None:
    raw = _raw()
    change(raw)
    with pytest.raises(CatalogError) as refused:
        _catalog(tmp_path, raw)
    assert "concentration_required" in str(refused.value) and says in str(refused.value)


@pytest.mark.slow  # a whole pipeline run
def test_the_recommendation_says_the_assumed_concentration(tmp_path: Path) -> None:
    from agents.toolbox import Settings
    from pipeline.runner import RequestOptions, ToolboxFactory, run_request
    from pipeline.store import CheckpointStore

    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(_raw()))
    ctx = run_request(
        _request(["CS-BS"], intent="plan_degree"),
        RequestOptions(
            store=CheckpointStore(tmp_path / "state"),
            toolbox_factory=ToolboxFactory(catalog_path=path, backend="offline"),
            settings=Settings(),
            out_dir=tmp_path / "out",
        ),
    )
    assert ctx.recommendation is not None
    said = [r.message for r in ctx.recommendation.risks if "the plan assumes CS-AI" in r.message]
    assert len(said) == 1 and said[0].startswith("CS-BS requires a concentration")
    assert "the plan assumes CS-AI" in (tmp_path / "out" / "conc.md").read_text()

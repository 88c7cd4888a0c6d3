"""Fake stage agents for engine tests and the cheap benchmark mode.

They build small but valid artifacts from the request alone (no catalog, no solver) and
obey directives in the request text, so one JSONL file can exercise every path:

- ``fake:reject=N``     the critique rejects rounds 1..N (hard LOAD-MAX violation)
- ``fake:conditional``  the critique is conditional (soft rule, approval needed)
- ``fake:norevise``     refinement cannot change anything (status no_change)
- ``fake:fail=STAGE``   that stage raises ``FakeStageError`` every time
- ``fake:print``        intake prints to stdout (``print`` and a write to fd 1)
- intent ``policy_question``  every stage after intake is ``not_needed``

Environment: ``FAKE_STAGE_LOG`` names a file that gets one JSON line per stage execution
(request id, stage, round, pid), so tests can count executions across processes;
``FAKE_STAGE_WORK`` is a number of sha256 rounds each stage burns, to give a subprocess
batch a realistic duration without sleeping.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.artifacts import (
    CitationRef,
    ConstraintChange,
    ConstraintSet,
    Critique,
    IntakeResult,
    PlanRequest,
    ProposedCourse,
    Recommendation,
    Refinement,
    RequirementsProposal,
    Schedule,
    ScheduledCourse,
    ScheduledTerm,
    StudentProfile,
    Violation,
)
from agents.case import Case
from pipeline.context import State
from pipeline.machine import StageSet

_DIRECTIVE = re.compile(r"fake:(\w+)(?:=(\w+))?")
CITATION = CitationRef(
    document="academic-policies",
    section="course-load",
    heading="Course load",
    quote="A student may take at most 54 units in a term.",
    rule_id="LOAD-MAX",
)


class FakeStageError(RuntimeError):
    """Raised by a stage told to fail with ``fake:fail=STAGE``."""


def directives(text: str) -> dict[str, str]:
    return {m.group(1): m.group(2) or "" for m in _DIRECTIVE.finditer(text)}


def _touch(stage: str, request_id: str, round_: int, text: str) -> None:
    work = int(os.environ.get("FAKE_STAGE_WORK", "0"))
    digest = request_id.encode()
    for _ in range(work):
        digest = hashlib.sha256(digest).digest()
    log_path = os.environ.get("FAKE_STAGE_LOG")
    if log_path:
        line = json.dumps({"id": request_id, "stage": stage, "round": round_, "pid": os.getpid()})
        with open(log_path, "a", encoding="utf-8") as f:
            f.write(line + "\n")
    if directives(text).get("fail") == stage:
        raise FakeStageError(f"fake {stage} failure for {request_id!r}")
    if "print" in directives(text) and stage == "intake":  # a library that talks on stdout
        print(f"printed by a stage (print) for {request_id}", flush=True)
        os.write(1, f"printed by a stage (fd 1) for {request_id}\n".encode())


def intake(case: Case, tools: Any) -> IntakeResult:
    request = case.request
    _touch("intake", request.request_id, 1, request.text)
    s = request.student
    profile = StudentProfile(
        student_id=s.id,
        name=s.name,
        declared_programs=list(s.programs),
        class_standing="sophomore",
        units_earned=float(9 * len(s.courses)),
        units_in_progress=0.0,
        gpa=s.gpa,
        academic_status=s.academic_status,
        start_term=s.start_term,
        current_term=s.current_term,
        next_term="S2027",
        terms_completed=2,
    )
    return IntakeResult(
        request_id=request.request_id,
        intent=request.intent or "plan_degree",
        intent_source="structured" if request.intent else "default",
        profile=profile,
        target_programs=[*s.programs, *request.add_programs],
        added_programs=list(request.add_programs),
        question=request.question,
        notes=[request.text] if request.text else [],
        parser="structured",
    )


def _text(intake: IntakeResult) -> str:
    """The request text, which the fake intake keeps in its notes."""
    return " ".join(intake.notes)


def requirements(case: Case, tools: Any) -> RequirementsProposal:
    intake = case.need_intake()
    _touch("requirements", intake.request_id, 1, _text(intake))
    if intake.intent == "policy_question":
        return RequirementsProposal(status="not_needed", not_needed_reason="a policy question")
    return RequirementsProposal(
        status="done",
        proposed_courses=[
            ProposedCourse(
                course="15-122",
                title="Imperative Computation",
                units=12.0,
                satisfies=[f"{intake.target_programs[0]}/core"],
                reason="Next course in the core sequence.",
            )
        ],
        remaining_units=108.0,
    )


def scheduling(case: Case, tools: Any) -> Schedule:
    intake, proposal = case.need_intake(), case.need_proposal()
    constraints, round_ = case.constraints, case.round
    _touch("scheduling", intake.request_id, round_, _text(intake))
    if proposal.status == "not_needed":
        return Schedule(
            status="not_needed", round=round_, solver_status="not_run", not_needed_reason="none"
        )
    constraints = constraints or ConstraintSet(max_units_per_term=63)
    units = min(54.0 - 9 * (round_ - 1), constraints.max_units_per_term)
    course = ScheduledCourse(course="15-122", title="Imperative Computation", units=12.0)
    term = ScheduledTerm(term="S2027", label="Spring 2027", courses=[course], units=units)
    return Schedule(
        status="done",
        round=round_,
        constraints=constraints,
        solver_status="optimal",
        terms=[term],
        graduation_term="S2027",
        units_planned=units,
    )


def critique(case: Case, tools: Any) -> Critique:
    intake, schedule = case.need_intake(), case.schedule
    text = _text(intake)
    _touch("critique", intake.request_id, schedule.round, text)
    if schedule.status == "not_needed":
        return Critique(status="not_needed", round=schedule.round, approval="not_needed")
    d = directives(text)
    if schedule.round <= int(d.get("reject") or 0):
        violation = Violation(
            rule_id="LOAD-MAX",
            severity="hard",
            term="S2027",
            message=f"S2027 has {schedule.terms[0].units:g} units; the limit is 45.",
            citation=CITATION,
        )
        return Critique(
            status="done", round=schedule.round, approval="rejected", violations=[violation]
        )
    approval = "conditional" if "conditional" in d else "approved"
    return Critique(status="done", round=schedule.round, approval=approval, rules_checked=["X"])


def refinement(case: Case, tools: Any) -> Refinement:
    intake, schedule = case.need_intake(), case.schedule
    text = _text(intake)
    _touch("refinement", intake.request_id, schedule.round, text)
    if "norevise" in directives(text) or schedule.constraints is None:
        return Refinement(status="no_change", round=schedule.round, reason="nothing to change")
    before = schedule.constraints.max_units_per_term
    after = min(before, schedule.terms[0].units) - 9
    change = ConstraintChange(
        field="max_units_per_term", before=before, after=after, reason="load", rule_id="LOAD-MAX"
    )
    constraints = schedule.constraints.model_copy(update={"max_units_per_term": after})
    return Refinement(
        status="revised", round=schedule.round, changes=[change], constraints=constraints
    )


def synthesis(case: Case, tools: Any) -> Recommendation:
    intake, schedule, critique = case.need_intake(), case.schedule, case.critique
    rounds, outcome = list(case.negotiation), case.need_outcome()
    _touch("synthesis", intake.request_id, schedule.round, _text(intake))
    p = intake.profile
    return Recommendation(
        request_id=intake.request_id,
        student_id=p.student_id,
        student_name=p.name,
        intent=intake.intent,
        outcome=outcome,
        summary=f"{outcome} after {len(rounds)} round(s)",
        programs=intake.target_programs,
        plan=schedule.terms,
        graduation_term=schedule.graduation_term,
        violations=critique.violations if outcome != "approved" else [],
        negotiation=rounds,
        letter=f"Dear {p.name},\n\nYour plan is {outcome}.\n",
        letter_source="template",
    )


def to_json(rec: Recommendation) -> str:
    return rec.model_dump_json(indent=2) + "\n"


def to_markdown(rec: Recommendation) -> str:
    return f"# Plan for {rec.student_name}\n\n**Outcome:** {rec.outcome}\n\n{rec.letter}"


def to_html(rec: Recommendation) -> str:
    return f"<!doctype html><title>{html.escape(rec.request_id)}</title><p>{rec.outcome}</p>\n"


class _Agent:
    """A fake stage agent: ``run(case, tools)`` as the stage contract asks."""

    def __init__(self, run: Callable[[Case, Any], Any]) -> None:
        self.run = run


class _Render:
    to_json = staticmethod(to_json)
    to_markdown = staticmethod(to_markdown)
    to_html = staticmethod(to_html)


FAKE = StageSet(
    name="fake",
    agents={
        State.intake: _Agent(intake),
        State.requirements: _Agent(requirements),
        State.scheduling: _Agent(scheduling),
        State.critique: _Agent(critique),
        State.refinement: _Agent(refinement),
        State.synthesis: _Agent(synthesis),
    },
    render=_Render(),
)


# --------------------------------------------------------------------------- test helpers

STUDENT = {
    "id": "s-1",
    "name": "Ada",
    "programs": ["CS-MIN"],
    "catalog_year": "2026-2027",
    "start_term": "F2025",
    "current_term": "F2026",
    "gpa": 3.2,
}


def request_dict(request_id: str, text: str = "", **fields: Any) -> dict[str, Any]:
    return {"request_id": request_id, "student": dict(STUDENT), "text": text, **fields}


def make_request(request_id: str, text: str = "", **fields: Any) -> PlanRequest:
    return PlanRequest.model_validate(request_dict(request_id, text, **fields))


def write_catalog(directory: Path, name: str = "catalog.json", **changes: Any) -> Path:
    """The small test catalog (tests/catalog_base.py) as a file; ``changes`` edit it."""
    from tests.catalog_base import base_catalog

    raw = base_catalog()
    raw.update(changes)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(json.dumps(raw, indent=1), encoding="utf-8")
    return path


def read_side_log(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


class Harness:
    """A catalog file, a checkpoint store and an output directory under ``root``, and
    ``run`` to drive one request through the engine with the fake agents."""

    def __init__(self, root: Path) -> None:
        from pipeline.runner import ToolboxFactory
        from pipeline.store import CheckpointStore

        self.root = root
        self.catalog = write_catalog(root / "catalog")
        self.factory = ToolboxFactory(catalog_path=self.catalog)
        self.store = CheckpointStore(root / "state")
        self.out = root / "out"
        self.side_log = root / "stages.jsonl"

    def run(self, request: PlanRequest, *, stages: StageSet = FAKE, **kw: Any) -> Any:
        from agents.toolbox import Settings
        from pipeline.runner import RequestOptions, run_request

        kw.setdefault("settings", Settings())
        kw.setdefault("toolbox_factory", self.factory)
        return run_request(
            request, RequestOptions(store=self.store, stages=stages, out_dir=self.out, **kw)
        )

    def stages_run(self, request_id: str | None = None) -> list[str]:
        """Stage executions from the side log, as 'stage' or 'stage/round'."""
        return [
            f"{e['stage']}/{e['round']}"
            for e in read_side_log(self.side_log)
            if request_id is None or e["id"] == request_id
        ]

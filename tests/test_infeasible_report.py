"""Issue #12 defect 4: infeasible reports are unhelpful. A CS sophomore adding BUS-MIN
with target S2028 must get the verified plan for the earliest feasible term as a
counter-proposal, the program that blocks the target, a letter that says each thing once,
and no "not needed" wording in the report."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agents.artifacts import PlanRequest, Recommendation
from agents.llm.letters import template_letter
from agents.toolbox import Settings
from agents.writing.render import to_html, to_markdown
from pipeline.runner import RequestOptions, ToolboxFactory, run_request
from pipeline.store import CheckpointStore

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def rec(tmp_path_factory: pytest.TempPathFactory) -> Recommendation:
    student = json.loads((ROOT / "demos/students/cs-sophomore.json").read_text())
    request = PlanRequest.model_validate(
        {
            "request_id": "infeasible-report-bus-min",
            "student": student,
            "intent": "add_program",
            "add_programs": ["BUS-MIN"],
            "target_graduation": "S2028",
            "text": "I want to add the business minor and graduate in May 2028.",
        }
    )
    store = CheckpointStore(tmp_path_factory.mktemp("state"))
    ctx = run_request(
        request,
        RequestOptions(
            store=store,
            toolbox_factory=ToolboxFactory(backend="offline"),
            settings=Settings(),
            out_dir=None,
        ),
    )
    assert ctx.recommendation is not None
    return ctx.recommendation


def test_infeasible_report_keeps_outcome_and_no_graduation(rec: Recommendation) -> None:
    assert rec.outcome == "infeasible"
    assert rec.graduation_term is None
    assert rec.plan == []


def test_infeasible_report_carries_verified_counter_proposal(rec: Recommendation) -> None:
    cp = rec.counter_proposal
    assert cp is not None
    assert (cp.target_term, cp.graduation_term) == ("S2028", "F2028")
    assert cp.verification == []
    assert cp.solver_status == "optimal"
    assert [t.term for t in cp.terms] == ["S2027", "F2027", "S2028", "F2028"]
    assert cp.units_planned == sum(t.units for t in cp.terms)


def test_infeasible_report_names_blocking_program(rec: Recommendation) -> None:
    assert rec.target_blockers == ["CS-BS alone cannot finish by S2028; earliest F2028"]


def test_infeasible_report_renders_counter_proposal_under_own_heading(rec: Recommendation) -> None:
    md = to_markdown(rec)
    assert "## Counter-proposal: graduate in Fall 2028" in md
    assert "## Why the target cannot be met" in md
    assert "- CS-BS alone cannot finish by S2028; earliest F2028" in md
    page = to_html(rec)
    assert '<section id="counter-proposal">' in page
    assert page.count('class="term"') == 4  # the counter-proposal's terms only
    assert 'id="target-blockers"' in page


@pytest.mark.parametrize("render", [to_html, to_markdown], ids=["html", "markdown"])
def test_infeasible_report_has_no_not_needed_wording(rec: Recommendation, render: object) -> None:
    text = render(rec)  # type: ignore[operator]
    assert "not_needed" not in text
    assert "No plan was needed" not in text
    assert "No policy review: no plan meets the request as asked" in text


def _sentences(letter: str) -> list[str]:
    out = []
    for raw in re.split(r"(?<=[.!?])\s+|\n+", letter):
        s = raw.strip().lstrip("- ").strip().rstrip(".").lower()
        s = s.removeprefix("infeasible: ")
        if s:
            out.append(s)
    return out


def test_infeasible_report_letter_says_each_thing_once(rec: Recommendation) -> None:
    said = _sentences(rec.letter)
    assert len(said) == len(set(said)), [s for s in said if said.count(s) > 1]
    assert rec.letter.count("Earliest feasible graduation: Fall 2028") == 1
    assert rec.letter.count("earliest F2028") == 1
    assert rec.letter.count("Our counter-proposal: graduate in Fall 2028 instead.") == 1
    assert "- Fall 2028 (54 units): " in rec.letter
    assert "How we got here" not in rec.letter
    assert rec.letter == template_letter(rec.model_copy(update={"letter": ""}))

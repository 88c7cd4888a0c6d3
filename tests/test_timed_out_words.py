"""A time limit is never infeasibility (#27 item 5), in what people read: a request whose
planner ran out of time is "No plan in time" in the report, ``timed_out`` in the batch
index (its own filter value), and its letter says the planner ran out of time and that
this does not mean no plan exists - never "we could not find a plan that meets
everything you asked for"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.llm.letters import template_letter
from agents.writing.render import outcome_label, to_markdown
from pipeline.index import index_rows
from tests.test_letters import _draft

REASON = "no plan was found within 0.6 s at course selection; this does not prove that none exists"


def _timed_out(kind: str | None = "timed_out") -> object:
    return _draft(outcome="infeasible", infeasible_kind=kind, plan=[], graduation_term=None,
                  risks=[], summary=f"No plan found in time: {REASON}.")  # fmt: skip


def test_the_letter_says_time_ran_out_not_that_no_plan_exists() -> None:
    letter = template_letter(_timed_out())  # type: ignore[arg-type]
    assert "ran out of time" in letter
    assert "This does not mean that no plan exists" in letter
    assert "could not find a plan that meets everything" not in letter
    proved = template_letter(_timed_out("proven"))  # type: ignore[arg-type]
    assert "could not find a plan that meets everything" in proved
    assert "ran out of time" not in proved


def test_the_report_names_the_outcome_no_plan_in_time() -> None:
    assert "**Outcome:** No plan in time" in to_markdown(_timed_out())  # type: ignore[arg-type]
    assert "**Outcome:** Infeasible" in to_markdown(_timed_out("proven"))  # type: ignore[arg-type]
    assert outcome_label("infeasible", "timed_out") == "No plan in time"
    assert outcome_label("approved") == "Approved"


@pytest.mark.parametrize(("kind", "shown"), [("timed_out", "timed_out"), ("proven", "infeasible")])
def test_the_batch_index_keeps_a_timeout_apart(tmp_path: Path, kind: str, shown: str) -> None:
    rec = {"outcome": "infeasible", "infeasible_kind": kind, "summary": "x"}
    (tmp_path / "r1.json").write_text(json.dumps(rec), encoding="utf-8")
    line = json.dumps({"id": "r1", "status": "done", "outcome": "infeasible", "rounds": 1})
    (row,) = index_rows(tmp_path, [line])
    assert row["outcome"] == shown

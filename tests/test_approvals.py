"""A person in the loop: a run whose only blocking issue needs an approval stops in
``awaiting_approval``; ``advise approve`` / ``advise deny`` record the decision and
``advise resume`` continues from the critique (real stages, bundled catalog, in process)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from pipeline.approvals import apply_decision
from pipeline.cli import main
from pipeline.errors import ApprovalError
from pipeline.logs import configure_logging
from pipeline.store import CheckpointStore
from tests.shared_helpers import copy_workspace

REPO = Path(__file__).resolve().parents[1]
RID = "overload-high-gpa"


def _request(rid: str = RID) -> dict[str, Any]:
    for line in (REPO / "demos" / "requests.jsonl").read_text(encoding="utf-8").splitlines():
        if json.loads(line)["request_id"] == "overload-high-gpa":
            return {**json.loads(line), "request_id": rid}
    raise AssertionError("demos/requests.jsonl lost overload-high-gpa")


@pytest.fixture(autouse=True)
def _reset_logging() -> Iterator[None]:
    yield
    configure_logging("warning", stream=sys.stderr)


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "req.json").write_text(json.dumps(_request()), encoding="utf-8")
    return tmp_path


@pytest.fixture
def waiting(ws: Path, awaiting_approval: Path) -> Path:
    """``ws`` after ``advise run req.json`` stopped awaiting the approval (a copy of the
    session's run, tests/conftest.py)."""
    return copy_workspace(awaiting_approval, ws)


def _ctx(ws: Path) -> Any:
    ctx = CheckpointStore(ws / "state").load(RID)
    assert ctx is not None
    return ctx


def _attempts(ctx: Any) -> list[tuple[str, int, int]]:
    return [(t.stage.value, t.round, t.attempt) for t in ctx.timings]


def test_run_stops_awaiting_approval_with_exit_4_and_says_what_to_do(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "req.json"]) == 4
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{RID}: awaiting approval"
    assert out[1].startswith("  LOAD-OVERLOAD (S2027, F2027): awaiting advisor approval: Spring")
    assert out[2] == (
        f"next: advise approve {RID} LOAD-OVERLOAD --by NAME --reason TEXT (or advise deny "
        f"...), then advise resume {RID}"
    )
    ctx = _ctx(ws)
    assert ctx.state.value == "awaiting_approval" and ctx.recommendation is None
    [item] = ctx.approvals
    assert (item.rule_id, item.terms, item.approver, item.round, item.decision) == (
        "LOAD-OVERLOAD", ["S2027", "F2027"], "advisor", 1, "pending"
    )  # fmt: skip
    assert item.citation.section == "overload"
    assert not (ws / "out").exists()  # nothing is written until the run finishes
    # Resuming before anyone decides changes nothing and says so again.
    assert main(["resume", RID]) == 4
    assert _attempts(_ctx(ws)) == _attempts(ctx)


@pytest.mark.usefixtures("waiting")
def test_approve_then_resume_runs_only_the_critique_and_synthesis_and_cites_the_approval(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["approve", RID, "LOAD-OVERLOAD", "--by", "Dr. Rivera", "--reason", "strong"])
    assert code == 0
    today = date.today().isoformat()
    out = capsys.readouterr().out.splitlines()
    assert out[-2:] == [
        f"{RID}: LOAD-OVERLOAD (S2027, F2027): approved by Dr. Rivera on {today} - strong",
        f"next: advise resume {RID}",
    ]
    assert main(["resume", RID]) == 0
    ctx = _ctx(ws)
    assert _attempts(ctx) == [
        ("intake", 1, 1),
        ("requirements", 1, 1),
        ("scheduling", 1, 1),
        ("critique", 1, 1),
        ("critique", 1, 2),
        ("synthesis", 1, 1),
    ]
    rec = ctx.recommendation
    assert rec.outcome == "approved" and rec.graduation_term == "F2028"
    assert [(a.rule_id, a.term, a.decision, a.by, a.source) for a in rec.approvals] == [
        ("LOAD-OVERLOAD", "S2027", "approved", "Dr. Rivera", "advisor"),
        ("LOAD-OVERLOAD", "F2027", "approved", "Dr. Rivera", "advisor"),
    ]
    assert ("academic-policies", "overload") in {(c.document, c.section) for c in rec.citations}
    assert rec.summary.endswith(
        f"Approved by Dr. Rivera on {today}: LOAD-OVERLOAD for Spring 2027 and Fall 2027."
    )
    assert ctx.negotiation[0].approvals == [
        f"LOAD-OVERLOAD (S2027, F2027): approved by Dr. Rivera on {today} - strong"
    ]
    md = (ws / "out" / f"{RID}.md").read_text(encoding="utf-8")
    assert "## Approvals and exceptions" in md
    assert "granted by Dr. Rivera" in rec.letter


@pytest.mark.usefixtures("waiting")
def test_deny_then_resume_replans_within_the_standard_load(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["deny", RID, "LOAD-OVERLOAD", "--by", "Dr. Rivera", "--reason", "labs"]) == 0
    assert main(["resume", RID]) == 0
    ctx = _ctx(ws)
    first = ctx.critiques[0]
    assert first.approval == "rejected"
    assert {(v.rule_id, v.severity) for v in first.violations} == {("LOAD-OVERLOAD", "hard")}
    assert "the overload was denied by Dr. Rivera on" in first.violations[0].message
    rec = ctx.recommendation
    assert (rec.outcome, rec.graduation_term) == ("approved_with_risks", "S2029")
    assert max(t.units for t in rec.plan) <= 54
    assert [s.stage.value for s in ctx.timings][:5] == [
        "intake", "requirements", "scheduling", "critique", "critique"
    ]  # fmt: skip


@pytest.mark.usefixtures("waiting")
def test_decisions_that_do_not_fit_the_run_are_refused_with_what_is_pending(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["approve", RID, "LOAD-MAX", "--by", "A", "--reason", "r"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"error: request {RID!r}: no pending approval of rule 'LOAD-MAX'; pending: "
        "LOAD-OVERLOAD (S2027, F2027)\n"
    )
    assert main(["approve", RID, "LOAD-OVERLOAD", "--term", "S2029", "--by", "A",
                 "--reason", "r"]) == 2  # fmt: skip
    assert "awaits approval for F2027, S2027, not S2029" in capsys.readouterr().err
    assert main(["approve", "nobody", "LOAD-OVERLOAD", "--by", "A", "--reason", "r"]) == 2
    assert "no checkpoint for request 'nobody'" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.usefixtures("waiting")
def test_a_partial_decision_keeps_the_other_terms_pending(ws: Path) -> None:
    assert main(["approve", RID, "LOAD-OVERLOAD", "--term", "S2027", "--by", "A",
                 "--reason", "r"]) == 0  # fmt: skip
    assert main(["resume", RID]) == 4  # F2027 still waits: nothing runs
    ctx = _ctx(ws)
    assert [(a.terms, a.decision) for a in ctx.approvals] == [
        (["S2027"], "approved"),
        (["F2027"], "pending"),
    ]
    assert main(["deny", RID, "LOAD-OVERLOAD", "--by", "B", "--reason", "no"]) == 0
    assert main(["resume", RID]) == 0
    assert _ctx(ws).recommendation.graduation_term == "S2029"


def test_a_decision_on_a_finished_run_is_refused(no_wait: Any) -> None:
    ctx = no_wait
    with pytest.raises(ApprovalError, match="it is in state 'done', not awaiting approval"):
        apply_decision(ctx, "LOAD-OVERLOAD", "approved", by="A", reason="r", on=date(2026, 1, 1))


@pytest.fixture(scope="module")
def no_wait_run(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The checkpoint of ``advise run req.json --no-wait``, run once for the module."""
    root = tmp_path_factory.mktemp("no-wait")
    (root / "req.json").write_text(json.dumps(_request()), encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        try:
            main(["run", "req.json", "--no-wait"])
        finally:
            configure_logging("warning", stream=sys.stderr)
    return _ctx(root)


@pytest.fixture
def no_wait(no_wait_run: Any) -> Any:
    """A copy of it for one test (a test may change the context it is given)."""
    return no_wait_run.model_copy(deep=True)


def test_no_wait_denies_every_approval_and_finishes(no_wait: Any) -> None:
    ctx = no_wait
    assert ctx.state.value == "done"
    [item] = ctx.approvals
    assert (item.decision, item.by, item.source) == ("denied", "batch --no-wait", "no_wait")
    assert ctx.recommendation.graduation_term == "S2029"


@pytest.mark.slow
def test_batch_counts_requests_awaiting_approval_and_exits_4(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = {**_request("second"), "target_graduation": None, "text": "Plan my degree."}
    lines = [_request(), plain]
    (ws / "in.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n", "utf-8")
    assert main(["batch", "in.jsonl", "--json"]) == 4
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == {"awaiting_approval": 1, "done": 1}
    assert report["exit_code"] == 4
    [summary] = [
        json.loads(x)
        for x in (ws / "out" / "batch-summary.jsonl").read_text("utf-8").splitlines()
        if json.loads(x)["id"] == RID
    ]
    assert (summary["status"], summary["state"]) == ("awaiting_approval", "awaiting_approval")
    assert summary["error"] == "awaiting approval: LOAD-OVERLOAD (S2027, F2027) by advisor"
    assert main(["status", "--state", "awaiting_approval", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["counts"]["awaiting_approval"] == 1


def test_an_approval_in_the_record_means_nobody_is_asked(ws: Path) -> None:
    req = _request()
    req["student"]["exceptions"] = [
        {"kind": "approve", "rule": "LOAD-OVERLOAD", "term": "S2027", "through": "F2028",
         "by": "Dean Okafor", "date": "2026-10-15", "reason": "acceleration review"}
    ]  # fmt: skip
    (ws / "req.json").write_text(json.dumps(req), encoding="utf-8")
    assert main(["run", "req.json"]) == 0
    ctx = _ctx(ws)
    assert ctx.approvals == [] and ctx.recommendation.outcome == "approved"
    assert {(a.term, a.source) for a in ctx.recommendation.approvals} == {
        ("S2027", "record"), ("F2027", "record")
    }  # fmt: skip
    [use] = ctx.recommendation.exceptions
    assert (use.status, use.note) == (
        "used",
        "LOAD-OVERLOAD approved for Spring 2027 and Fall 2027",
    )


def test_an_exceptions_directory_is_merged_into_the_record(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (ws / "exc").mkdir()
    grant = {"kind": "approve", "rule": "LOAD-OVERLOAD", "term": "S2027", "through": "F2027",
             "by": "Dean Okafor", "date": "2026-10-15", "reason": "review"}  # fmt: skip
    sid = _request()["student"]["id"]
    path = ws / "exc" / f"{sid}.json"
    path.write_text(json.dumps({"student_id": sid, "exceptions": [grant]}), "utf-8")
    assert main(["run", "req.json", "--exceptions", "exc"]) == 0
    assert _ctx(ws).request.student.exceptions[0].by == "Dean Okafor"
    path.write_text(json.dumps({"student_id": sid, "exceptions": [{**grant, "date": "x"}]}))
    (ws / "req2.json").write_text(json.dumps(_request("other")), encoding="utf-8")
    assert main(["run", "req2.json", "--exceptions", "exc"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"error: req2.json: exceptions file exc/{sid}.json: $.exceptions[0].date: Input "
        "should be a valid date or datetime, input is too short (got 'x')\n"
    )


def test_the_batch_table_lists_what_each_waiting_request_needs(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (ws / "in.jsonl").write_text(json.dumps(_request()) + "\n", "utf-8")
    assert main(["batch", "in.jsonl", "--quiet"]) == 4
    out = capsys.readouterr().out
    assert (
        f"awaiting approval: {RID} (line 1): LOAD-OVERLOAD (S2027, F2027) by advisor\n"
        f"next: advise approve {RID} LOAD-OVERLOAD --by NAME --reason TEXT (or advise deny ...), "
        f"then advise resume {RID}\n"
    ) in out

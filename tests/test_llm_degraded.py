"""Degraded results: a request whose LLM backend failed finishes on the offline path and
says so (context, batch status ``degraded``, exit code 6), and the next run with a working
backend redoes just the degraded stages, paying for no reply twice.

The engine runs the fake stages with an intake that asks the backend to read the text and
a synthesis that asks it for the letter (``LLM_STAGES``), against the local fake Gemini
server through the real SDK. Waits between retries run on a fake clock.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from agents.artifacts import IntakeResult, Recommendation
from agents.case import Case
from agents.llm.gemini import GeminiBackend, RetryPolicy
from pipeline.batch import run_batch
from pipeline.batch_input import iter_input
from pipeline.context import State
from pipeline.errors import ExitCode
from pipeline.jobs import RunOptions
from pipeline.logs import configure_logging
from pipeline.machine import StageSet
from pipeline.results import JobResult
from pipeline.runner import GracefulStop, ToolboxFactory
from tests import fake_stages
from tests.fake_gemini import FakeGemini, error_reply, json_reply, text_reply
from tests.fake_stages import Harness, make_request, request_dict
from tests.gemini_helpers import KEY, FakeClock

EXTRACTION = {"intent": "add_program", "add_programs": ["CS-MIN"], "notes": ["read CS minor"]}
LETTER = "Dear Ada, your plan is approved."
TEXT = "I'd like to add a CS minor."
BUSY = error_reply(503, "overloaded")
POLICY = RetryPolicy(max_attempts=2, initial_s=0.5, jitter_s=0)
EMPTY = "HTTP 400 INVALID_ARGUMENT: fake_gemini: no scripted reply left; enqueue() one per request"


def _intake(case: Case, tools: Any) -> IntakeResult:
    read = tools.llm.extract_intake(case.request.text, catalog=tools.catalog, ledger=tools.ledger)
    return fake_stages.intake(case, tools).model_copy(update={"parser": read.source})


def _synthesis(case: Case, tools: Any) -> Recommendation:
    rec = fake_stages.synthesis(case, tools)
    letter = tools.llm.write_letter(rec, ledger=tools.ledger)
    source = "gemini" if letter.source == "gemini" else "template_fallback"
    return rec.model_copy(update={"letter": letter.value, "letter_source": source})


LLM_STAGES = fake_stages.FAKE.with_agent(State.intake, SimpleNamespace(run=_intake)).with_agent(
    State.synthesis, SimpleNamespace(run=_synthesis)
)
LLM_SPEC = "tests.test_llm_degraded:LLM_STAGES"
assert isinstance(LLM_STAGES, StageSet)


def failed(task: str, error: str, attempts: int = 2) -> str:
    """What ``WorkflowContext.degraded`` says of a stage whose ``task`` call failed."""
    tries = f"{attempts} attempt{'s' * (attempts != 1)}"
    return f"{task} call to gemini/gemini-2.5-flash failed: {error} (after {tries})"


@pytest.fixture
def gemini(fake: FakeGemini, clock: FakeClock) -> Iterator[Callable[[], Any]]:
    """A run with a fresh backend (a new process on every run), all closed at the end."""
    made: list[GeminiBackend] = []

    def run(h: Harness, rid: str = "r1") -> Any:
        made.append(GeminiBackend(KEY, base_url=fake.base_url, retry=POLICY,
                                  sleep=clock.sleep, clock=clock.now))  # fmt: skip
        factory = ToolboxFactory(catalog_path=h.catalog, llm=made[-1])
        return h.run(make_request(rid, TEXT), stages=LLM_STAGES, toolbox_factory=factory)

    yield run
    for b in made:
        b.close()


def test_a_run_whose_every_llm_call_failed_is_done_but_degraded(
    fake: FakeGemini, gemini: Callable[..., Any], h: Harness
) -> None:
    fake.enqueue(*[BUSY] * 4)

    ctx = gemini(h)

    busy = "HTTP 503 UNAVAILABLE: overloaded"
    assert (ctx.state, ctx.intake.parser, ctx.recommendation.letter_source) == (
        State.done,
        "offline_fallback",
        "template_fallback",
    )
    assert ctx.degraded == {
        State.intake: failed("intake", busy),
        State.synthesis: failed("letter", busy),
    }
    result = JobResult.finished(ctx, source="r1.json")
    assert (result.status, result.state, result.outcome) == ("degraded", State.done, "approved")
    assert result.error == f"intake: {failed('intake', busy)}; synthesis: {failed('letter', busy)}"
    saved = json.loads((h.store.root / "r1.json").read_text("utf-8"))
    assert saved["degraded"] == {
        "intake": failed("intake", busy),
        "synthesis": failed("letter", busy),
    }
    assert h.store.load("r1") == ctx
    summary = h.store.summary("r1")
    assert summary is not None and summary.degraded == saved["degraded"]


@pytest.mark.slow
def test_a_rerun_with_a_working_backend_redoes_the_degraded_run_and_keeps_the_previous(
    fake: FakeGemini, gemini: Callable[..., Any], h: Harness
) -> None:
    fake.enqueue(*[BUSY] * 4)
    gemini(h)
    fake.enqueue(json_reply(EXTRACTION), text_reply(LETTER))

    ctx = gemini(h)

    assert (ctx.state, ctx.degraded) == (State.done, {})
    assert (ctx.intake.parser, ctx.recommendation.letter) == ("gemini", LETTER)
    assert [(c.task, c.status) for c in ctx.ledger.calls] == [
        ("intake", "error"), ("letter", "error"), ("intake", "ok"), ("letter", "ok"),
    ]  # fmt: skip
    assert LETTER in (h.out / "r1.md").read_text("utf-8")
    assert LETTER not in (h.out / "r1.md.prev").read_text("utf-8")
    assert (h.store.root / "r1.json.prev").is_file()
    assert JobResult.finished(ctx, source="r1.json").status == "done"
    assert fake.pending == 0
    gemini(h)  # done, not degraded: nothing is asked again
    assert len(fake.generate_requests()) == 6  # 2 + 2 failed attempts, then 2 replies


def test_only_the_letter_failed_so_the_rerun_redoes_synthesis_alone(
    fake: FakeGemini, gemini: Callable[..., Any], h: Harness
) -> None:
    fake.enqueue(json_reply(EXTRACTION), BUSY, BUSY)
    first = gemini(h)
    assert first.degraded == {State.synthesis: failed("letter", "HTTP 503 UNAVAILABLE: overloaded")}
    fake.enqueue(text_reply(LETTER))

    ctx = gemini(h)

    assert (ctx.state, ctx.degraded, ctx.recommendation.letter) == (State.done, {}, LETTER)
    assert h.stages_run("r1") == [
        "intake/1", "requirements/1", "scheduling/1", "critique/1", "synthesis/1",
        "synthesis/1",  # the rerun: the letter's stage, nothing before it
    ]  # fmt: skip
    prompts = [r.prompt.startswith("Programs of") for r in fake.generate_requests()]
    assert prompts == [True, False, False, False]  # the intake was asked once, ever
    assert [(c.task, c.status) for c in ctx.ledger.calls] == [
        ("intake", "ok"), ("letter", "error"), ("letter", "ok"),
    ]  # fmt: skip
    assert ctx.attempts[State.synthesis] == 2


@pytest.mark.slow
def test_a_rerun_while_the_backend_still_fails_stays_degraded_and_asks_only_the_failed_call(
    fake: FakeGemini, gemini: Callable[..., Any], h: Harness
) -> None:
    fake.enqueue(json_reply(EXTRACTION), BUSY, BUSY)
    gemini(h)
    fake.enqueue(BUSY, BUSY)

    ctx = gemini(h)

    assert ctx.degraded == {State.synthesis: failed("letter", "HTTP 503 UNAVAILABLE: overloaded")}
    assert ctx.intake.parser == "gemini"
    assert len(fake.generate_requests()) == 5  # 1 intake, then 2 + 2 letter attempts
    assert JobResult.finished(ctx, source="r1.json").status == "degraded"


# --------------------------------------------------------------------------- the batch


@pytest.fixture
def env(fake: FakeGemini, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--backend gemini`` pointed at the fake server. With no reply scripted it answers
    400 (not retried), so a batch against an empty queue fails every call at once."""
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    monkeypatch.setenv("GEMINI_BASE_URL", fake.base_url)


def _batch(h: Harness) -> Any:
    lines = [json.dumps(request_dict(rid, TEXT)) for rid in ("a1", "a2")]
    (h.root / "in.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    opts = RunOptions(state_dir=h.store.root, out_dir=h.out, catalog=str(h.catalog),
                      backend="gemini", stages=LLM_SPEC)  # fmt: skip
    return run_batch(iter_input(str(h.root / "in.jsonl")), opts, stop=GracefulStop())


def _summary(h: Harness) -> list[tuple[str, str, str | None]]:
    lines = (h.out / "batch-summary.jsonl").read_text("utf-8").splitlines()
    return [(row["id"], row["status"], row["error"]) for row in map(json.loads, lines)]


@pytest.mark.usefixtures("env")
@pytest.mark.slow
def test_a_batch_where_every_llm_call_failed_reports_degraded_and_a_rerun_redoes_it(
    fake: FakeGemini, h: Harness
) -> None:
    report = _batch(h)

    why = f"intake: {failed('intake', EMPTY, 1)}; synthesis: {failed('letter', EMPTY, 1)}"
    assert report.status == {"degraded": 2}
    assert report.exit_code is ExitCode.DEGRADED
    assert report.as_json()["exit_code"] == 6
    assert report.degraded == [f"a1 (line 1): {why}", f"a2 (line 2): {why}"]
    assert _summary(h) == [("a1", "degraded", why), ("a2", "degraded", why)]

    fake.enqueue(json_reply(EXTRACTION), text_reply(LETTER), json_reply(EXTRACTION),
                 text_reply(LETTER))  # fmt: skip
    rerun = _batch(h)

    assert (rerun.status, rerun.exit_code) == ({"done": 2}, ExitCode.OK)
    assert _summary(h) == [("a1", "done", None), ("a2", "done", None)]
    assert _batch(h).status == {"skipped": 2}
    assert len(fake.generate_requests()) == 8


@pytest.mark.usefixtures("env")
def test_the_cli_exits_6_for_a_degraded_result_and_resume_all_redoes_it(
    fake: FakeGemini, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pipeline.cli import main
    from tests.fake_stages import write_catalog

    write_catalog(tmp_path)
    (tmp_path / "r1.json").write_text(json.dumps(request_dict("r1", TEXT)), "utf-8")
    engine = ["--backend", "gemini", "--stages", LLM_SPEC,
              "--catalog", str(tmp_path / "catalog.json"),
              *(f"--{d}-dir={tmp_path / d}" for d in ("state", "out", "log"))]  # fmt: skip
    try:
        assert main(["run", str(tmp_path / "r1.json"), *engine, "--json"]) == 6
        out, err = capsys.readouterr()
        assert json.loads(out)["degraded"] == {
            "intake": failed("intake", EMPTY, 1),
            "synthesis": failed("letter", EMPTY, 1),
        }
        assert "degraded: intake: intake call to gemini/gemini-2.5-flash failed" in err
        assert err.rstrip().endswith("rerun with a working LLM backend to redo it")

        fake.enqueue(json_reply(EXTRACTION), text_reply(LETTER))
        assert main(["resume", "--all", *engine, "--json", "-q"]) == 0
        summary = json.loads(capsys.readouterr().out)
        assert (summary["status"], summary["degraded"]) == ({"done": 1}, [])
    finally:
        configure_logging("warning", stream=sys.stderr)  # main() reconfigured it

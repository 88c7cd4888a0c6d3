"""The checkpoint store: lossless round trip, atomic writes, safe ids, corrupt files moved
aside, and per-request locks that name their holder."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.artifacts import (
    CitationRef,
    ConstraintChange,
    ConstraintSet,
    Critique,
    NegotiationRound,
    Refinement,
    Risk,
    Schedule,
    ScheduledCourse,
    ScheduledTerm,
    Violation,
)
from agents.errors import (
    CheckpointVersionError,
    CorruptCheckpointError,
    LockHeldError,
    UnsafeRequestIdError,
)
from agents.llm import LLMCall, LLMLedger
from pipeline.checkpoint_summary import CheckpointSummary
from pipeline.context import (
    STAGES,
    RunConfig,
    StageErrorRecord,
    StageTiming,
    State,
    WorkflowContext,
    new_context,
    put_round,
)
from pipeline.store import CheckpointStore, check_request_id, dump_context, load_context
from tests.fake_stages import make_request

CONFIG = RunConfig(
    backend="offline", model="rules", max_rounds=3, planner_time_limit_s=10, horizon_terms=12
)


def _ctx(request_id: str = "r1") -> WorkflowContext:
    return new_context(make_request(request_id), catalog_fingerprint="a" * 64, config=CONFIG)


# --------------------------------------------------------------------------- round trip

text = st.text(max_size=24)
floats = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
json_value = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**9), 10**9) | floats | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=6,
)
times = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
)
citation = st.builds(
    CitationRef, document=text, section=text, heading=text, quote=text, rule_id=st.none() | text
)
violation = st.builds(
    Violation,
    rule_id=text,
    severity=st.sampled_from(["hard", "soft"]),
    term=st.none() | text,
    message=text,
    citation=citation,
)
risk = st.builds(
    Risk,
    kind=st.sampled_from(["gpa", "load", "other"]),
    message=text,
    citation=st.none() | citation,
)
constraints = st.builds(
    ConstraintSet,
    max_units_per_term=floats,
    term_max_units=st.dictionaries(text, floats, max_size=2),
    include=st.lists(text, max_size=2),
)
course = st.builds(ScheduledCourse, course=text, title=text, units=floats)
term = st.builds(
    ScheduledTerm, term=text, label=text, courses=st.lists(course, max_size=3), units=floats
)


@st.composite
def schedules(draw: Any, round_: int) -> Schedule:
    return Schedule(
        status=draw(st.sampled_from(["done", "not_needed"])),
        round=round_,
        constraints=draw(st.none() | constraints),
        solver_status=draw(st.sampled_from(["optimal", "feasible", "infeasible", "not_run"])),
        terms=draw(st.lists(term, max_size=3)),
        graduation_term=draw(st.none() | text),
        units_planned=draw(floats),
        reasons=draw(st.lists(text, max_size=2)),
        solve_ms=draw(floats),
    )


@st.composite
def contexts(draw: Any) -> WorkflowContext:
    rounds = draw(st.integers(1, 3))
    request = make_request(
        draw(st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_-]{0,20}", fullmatch=True)),
        draw(text),
        interests=draw(st.lists(text, max_size=3)),
        question=draw(st.none() | text),
    )
    ctx = new_context(request, catalog_fingerprint=draw(text), config=CONFIG)
    ctx.state = draw(
        st.sampled_from([State.intake, State.critique, State.refinement, State.done, State.failed])
    )
    ctx.failed_stage = draw(st.none() | st.sampled_from(STAGES))
    ctx.round = rounds
    for r in range(1, rounds + 1):
        put_round(ctx.schedules, r, draw(schedules(r)))
        put_round(
            ctx.critiques,
            r,
            Critique(
                status="done",
                round=r,
                approval=draw(st.sampled_from(["approved", "conditional", "rejected"])),
                violations=draw(st.lists(violation, max_size=2)),
                risks=draw(st.lists(risk, max_size=2)),
            ),
        )
        change = ConstraintChange(
            field=draw(text), before=draw(json_value), after=draw(json_value), reason=draw(text)
        )
        refinement = Refinement(
            status="revised", round=r, changes=[change], constraints=draw(constraints)
        )
        put_round(ctx.refinements, r, refinement)
        ctx.negotiation.append(
            NegotiationRound(
                round=r,
                proposal=draw(text),
                solver_status="optimal",
                approval="rejected",
                revision=[change],
                resolution="revised",
            )
        )
    ctx.attempts = draw(st.dictionaries(st.sampled_from(STAGES), st.integers(1, 5)))
    ctx.timings = [
        StageTiming(stage=s, round=1, attempt=1, ms=draw(floats.map(abs)), ok=draw(st.booleans()))
        for s in draw(st.lists(st.sampled_from(STAGES), max_size=4))
    ]
    ctx.errors = draw(
        st.lists(
            st.builds(
                StageErrorRecord,
                stage=st.sampled_from(STAGES),
                round=st.integers(1, 3),
                attempt=st.integers(1, 3),
                type=text,
                message=text,
                traceback=st.lists(text, max_size=3),
                at=times,
            ),
            max_size=2,
        )
    )
    ctx.ledger = LLMLedger(
        calls=draw(
            st.lists(
                st.builds(
                    LLMCall,
                    task=st.sampled_from(["intake", "letter", "critique"]),
                    backend=text,
                    model=text,
                    prompt_hash=text,
                    response=st.none() | text,
                    input_tokens=st.integers(0, 10**6),
                    latency_ms=floats,
                    status=st.sampled_from(["ok", "invalid", "error"]),
                ),
                max_size=2,
            )
        ),
        reused=draw(st.integers(0, 3)),
    )
    ctx.outcome = draw(st.none() | st.sampled_from(["approved", "infeasible", "needs_input"]))
    ctx.created_at = draw(times)
    ctx.updated_at = draw(times)
    return ctx


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(contexts())
def test_context_round_trip_is_lossless(ctx: WorkflowContext) -> None:
    assert load_context(dump_context(ctx)) == ctx


def test_saved_checkpoint_loads_back_equal(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path / "state")
    ctx = _ctx()
    size = store.save(ctx)
    assert size == (tmp_path / "state" / "r1.json").stat().st_size
    assert store.load("r1") == ctx
    assert store.load("other") is None
    assert list(store.ids()) == ["r1"]


# --------------------------------------------------------------------------- atomicity


def test_failed_write_leaves_the_previous_checkpoint_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = CheckpointStore(tmp_path)
    ctx = _ctx()
    store.save(ctx)
    before = (tmp_path / "r1.json").read_bytes()

    def broken_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    ctx.round = 2
    with pytest.raises(OSError, match="No space left"):
        store.save(ctx)
    assert (tmp_path / "r1.json").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r1.json"]


# --------------------------------------------------------------------------- ids


@pytest.mark.parametrize(
    "bad", ["../etc/passwd", "a/b", "..", ".hidden", "x..y", "", "trailing.", "a b"]
)
def test_unsafe_request_id_is_rejected_before_touching_the_filesystem(
    tmp_path: Path, bad: str
) -> None:
    store = CheckpointStore(tmp_path / "state")
    with pytest.raises(UnsafeRequestIdError) as err:
        store.lock(bad)
    assert str(err.value) == (
        f"unsafe request id {bad!r}: use 1-128 letters, digits, '.', '_' or '-', "
        "starting with a letter or digit, and no '..'"
    )
    assert not (tmp_path / "state").exists()


@pytest.mark.parametrize("bad", ["con", "CON", "batch-summary"])
def test_reserved_request_id_is_rejected_with_its_reason(tmp_path: Path, bad: str) -> None:
    store = CheckpointStore(tmp_path / "state")
    with pytest.raises(UnsafeRequestIdError) as err:
        store.lock(bad)
    assert str(err.value) == (
        f"unsafe request id {bad!r}: {bad!r} is a reserved file name; choose another id"
    )
    assert not (tmp_path / "state").exists()


def test_safe_request_ids_pass() -> None:
    assert check_request_id("is-junior_cs.minor-2") == "is-junior_cs.minor-2"


# --------------------------------------------------------------------------- corrupt files


def test_corrupt_checkpoint_is_reported_and_moved_aside(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    path = tmp_path / "r1.json"
    path.write_text('{"schema_version": 1, "request_id": "r1", "sta', encoding="utf-8")
    with pytest.raises(CorruptCheckpointError) as err:
        store.load("r1")
    assert str(err.value) == (
        f"checkpoint {str(path)!r} is corrupt (not valid JSON: Unterminated string starting "
        f"at: line 1 column 43 (char 42)); moved it aside to {str(path) + '.corrupt-1'!r} - "
        "rerun to start the request from the beginning"
    )
    assert not path.exists()
    assert (tmp_path / "r1.json.corrupt-1").read_text(encoding="utf-8").endswith('"sta')

    path.write_text("[]", encoding="utf-8")  # a second corrupt copy never clobbers the first
    with pytest.raises(CorruptCheckpointError) as err:
        store.load("r1")
    assert err.value.moved_to == tmp_path / "r1.json.corrupt-2"
    assert store.load("r1") is None


def test_checkpoint_failing_the_model_is_corrupt(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    raw = json.loads(dump_context(_ctx()))
    raw["round"] = 0
    (tmp_path / "r1.json").write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(CorruptCheckpointError) as err:
        store.load("r1")
    assert (
        err.value.reason
        == "1 invalid field(s), first round: Input should be greater than or equal to 1"
    )


def test_checkpoint_from_another_schema_version_is_left_in_place(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    (tmp_path / "r1.json").write_text('{"schema_version": 2}', encoding="utf-8")
    with pytest.raises(CheckpointVersionError) as err:
        store.load("r1")
    assert str(err.value) == (
        f"checkpoint {str(tmp_path / 'r1.json')!r} has schema_version 2 but this program "
        "reads version 1; use the matching version of the pipeline or delete the file"
    )
    assert (tmp_path / "r1.json").exists()


# --------------------------------------------------------------------------- summaries


def test_summary_reads_the_listed_fields_of_a_checkpoint(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    ctx = _ctx()
    ctx.state, ctx.failed_stage, ctx.round, ctx.outcome = State.failed, State.critique, 2, None
    ctx.ledger = LLMLedger(
        calls=[
            LLMCall(task="intake", backend="offline", model="rules", prompt_hash="h1",
                    response="ok", input_tokens=10, output_tokens=5, status="ok"),
            LLMCall(task="letter", backend="offline", model="rules", prompt_hash="h2",
                    response="ok", input_tokens=1, output_tokens=2, status="ok"),
        ]
    )  # fmt: skip
    store.save(ctx)
    assert store.summary("r1") == CheckpointSummary(
        request_id="r1",
        state=State.failed,
        failed_stage=State.critique,
        outcome=None,
        round=2,
        updated_at=ctx.updated_at,
        request=ctx.request.model_dump(mode="json"),
        llm_calls=2,
        tokens=18,
    )
    assert store.summary("r2") is None


@pytest.mark.parametrize("text", ["{", "[]", '"done"'])
def test_summary_of_an_unreadable_checkpoint_is_none_and_the_file_stays(
    tmp_path: Path, text: str
) -> None:
    (tmp_path / "r1.json").write_text(text, encoding="utf-8")
    assert CheckpointStore(tmp_path).summary("r1") is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r1.json"]


def test_summary_reads_bad_values_as_none_and_keeps_the_rest(tmp_path: Path) -> None:
    raw = {
        "request_id": "elsewhere",
        "state": "weird",
        "failed_stage": 3,
        "outcome": 7,
        "round": "r",
        "updated_at": "2020-01-01T10:11:12Z",
        "request": [],
        "ledger": {"calls": [{"input_tokens": 3, "output_tokens": 4}, "x", {"input_tokens": "9"}]},
    }
    (tmp_path / "r1.json").write_text(json.dumps(raw), encoding="utf-8")
    assert CheckpointStore(tmp_path).summary("r1") == CheckpointSummary(
        request_id="r1",
        updated_at=datetime(2020, 1, 1, 10, 11, 12, tzinfo=UTC),
        llm_calls=2,
        tokens=7,
    )


# --------------------------------------------------------------------------- locks


def test_lock_held_names_the_holder(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    with store.lock("r1"):
        holder = json.loads((tmp_path / "r1.lock").read_text(encoding="utf-8"))
        assert holder["pid"] == os.getpid()
        with pytest.raises(LockHeldError) as err:
            store.lock("r1")
        assert str(err.value) == (
            f"request 'r1' is being worked by another runner (pid {holder['pid']} on "
            f"{holder['host']} since {holder['since']}); wait for it to finish, or stop it - "
            f"the lock {str(tmp_path / 'r1.lock')!r} frees when it exits"
        )
    with store.lock("r1"):  # released: free again
        pass


# --------------------------------------------------------------------------- background


def test_background_saves_keep_the_newest_and_flush_makes_them_durable(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path, background=True)
    ctx = _ctx()
    for round_ in (1, 2, 3):
        ctx.round = round_
        store.save(ctx)
    store.flush()
    assert load_context((tmp_path / "r1.json").read_bytes()) == ctx
    assert store.load("r1") == ctx


def test_background_write_error_surfaces_on_flush(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = CheckpointStore(tmp_path, background=True)

    def broken_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    store.save(_ctx())
    with pytest.raises(OSError, match="No space left"):
        store.flush()
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- real artifacts


def test_contexts_of_finished_runs_round_trip(tmp_path: Path) -> None:
    """Every artifact type, as the agents really fill them (audit trees included)."""
    from agents.artifacts import PlanRequest
    from agents.errors import MachineDefinitionError
    from pipeline.machine import real_stages
    from tests.fake_stages import FAKE, Harness

    h = Harness(tmp_path / "fake")
    fake = h.run(make_request("f1", "fake:reject=1"), stages=FAKE)
    assert load_context(dump_context(fake)) == fake
    try:
        stages = real_stages()
    except MachineDefinitionError as exc:  # pragma: no cover - until every agent exists
        pytest.skip(str(exc))
    from pipeline.runner import ToolboxFactory

    line = (Path(__file__).parents[1] / "demos" / "requests.jsonl").read_text("utf-8")
    request = PlanRequest.model_validate_json(line.splitlines()[0])
    real = h.run(request, stages=stages, toolbox_factory=ToolboxFactory())
    assert real.state == "done" and real.proposal is not None and real.proposal.audit
    assert load_context(dump_context(real)) == real
    assert h.store.load(request.request_id) == real

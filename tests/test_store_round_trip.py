"""The checkpoint store round trip is lossless: generated contexts through dump and load, a
saved checkpoint loaded back, and the contexts of finished fake and real runs."""

from __future__ import annotations

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
from agents.llm import LLMCall, LLMLedger
from agents.planner import StandardLoads
from pipeline.context import (
    STAGES,
    StageErrorRecord,
    StageTiming,
    State,
    WorkflowContext,
    new_context,
    put_round,
)
from pipeline.store import CheckpointStore, dump_context, load_context
from tests.fake_stages import make_request
from tests.store_helpers import CONFIG, _ctx

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

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


standings = st.dictionaries(st.sampled_from(["first_year", "sophomore"]), floats, max_size=2)
constraints = st.builds(
    ConstraintSet,
    max_units_per_term=floats,
    term_max_units=st.dictionaries(text, floats, max_size=2),
    standing_max_units=standings,
    include=st.lists(text, max_size=2),
    standard=st.none()
    | st.builds(StandardLoads, max_units_per_term=floats, standing_max_units=standings),
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


def test_contexts_of_finished_runs_round_trip(tmp_path: Path) -> None:
    """Every artifact type, as the agents really fill them (audit trees included)."""
    from agents.artifacts import PlanRequest
    from pipeline.errors import MachineDefinitionError
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

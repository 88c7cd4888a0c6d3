"""The checkpoint journal (``pipeline.journal``): under a lease each save appends one line of
what changed; a request that finishes, or whose lease is released, is compacted into the
usual ``<id>.json``. A SIGKILL at any moment leaves the previous or the new state readable;
a torn last line is ignored and logged; a reader without the lease sees a run in progress
as the whole-file store showed it; the compacted file is byte for byte the whole-file
checkpoint; the real stages never mutate an artifact already stored (the journal compares
artifacts by identity)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import structlog
from hypothesis import HealthCheck, given, settings

from agents.errors import StorageError
from pipeline import store as store_module
from pipeline.cli import main
from pipeline.context import StageTiming, State, WorkflowContext
from pipeline.errors import CorruptCheckpointError
from pipeline.journal import FIELDS, Tracker, replay
from pipeline.store import CheckpointStore, dump_context
from tests.fake_stages import FAKE, Harness, make_request
from tests.store_helpers import _ctx
from tests.test_store_round_trip import contexts

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

REPO = Path(__file__).resolve().parents[1]
STEPS = (State.requirements, State.scheduling, State.critique)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def _advance(ctx: WorkflowContext, state: State) -> None:
    ctx.state = state
    ctx.attempts[state] = ctx.attempts.get(state, 0) + 1


def test_saves_under_a_lease_append_what_changed_and_finishing_compacts(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    ctx = _ctx()
    with store.lock("r1"):
        store.save(ctx)
        _advance(ctx, State.requirements)
        store.save(ctx)
        assert sorted(p.name for p in tmp_path.iterdir()) == [".leases", "r1.journal", "r1.lock"]
        first, second = _lines(tmp_path / "r1.journal")
        assert (first["seq"], list(first["set"])) == (0, list(FIELDS))
        assert (second["seq"], sorted(second["set"])) == (1, ["attempts", "state", "updated_at"])
        assert store.load("r1") == ctx
        _advance(ctx, State.done)
        store.save(ctx)
        assert sorted(p.name for p in tmp_path.iterdir()) == [".leases", "r1.json", "r1.lock"]
    assert (tmp_path / "r1.json").read_bytes() == dump_context(ctx)
    assert store.load("r1") == ctx


def test_releasing_the_lease_compacts_an_unfinished_run(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path, background=True)
    ctx = _ctx()
    with store.lock("r1"):
        for state in STEPS:
            _advance(ctx, state)
            store.save(ctx)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".leases", "r1.json"]
    assert (tmp_path / "r1.json").read_bytes() == dump_context(ctx)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(contexts())
def test_compaction_is_byte_for_byte_the_whole_checkpoint(ctx: WorkflowContext) -> None:
    tracker = Tracker()
    tracker.changes(ctx)
    assert tracker.whole() == dump_context(ctx)
    assert tracker.size() == len(dump_context(ctx))
    ctx.round += 1
    assert tracker.changes(ctx) == ["round"]
    assert replay(tracker.full_line()).raw == json.loads(dump_context(ctx))


def test_a_torn_last_line_is_ignored_and_logged(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    ctx = _ctx()
    with store.lock("r1"):
        store.save(ctx)
        _advance(ctx, State.requirements)
        store.save(ctx)
        torn = b'{"seq":2,"set":{"state":"sched'
        with (tmp_path / "r1.journal").open("ab") as f:  # a write cut short by a kill
            f.write(torn)
        reader = CheckpointStore(tmp_path)
        with structlog.testing.capture_logs() as logs:
            assert reader.load("r1") == ctx
            assert reader.summary("r1").state is State.requirements  # type: ignore[union-attr]
        assert [(e["event"], e["ignored_bytes"], e["lines"]) for e in logs] == [
            ("checkpoint.journal_torn", len(torn), 2),
            ("checkpoint.journal_torn", len(torn), 2),
        ]
        store._journals.pop("r1").close()  # the holder "dies" without compacting
    with CheckpointStore(tmp_path).lock("r1"):  # the next holder compacts what was kept
        pass
    assert sorted(p.name for p in tmp_path.iterdir()) == [".leases", "r1.json"]
    assert CheckpointStore(tmp_path).load("r1") == ctx


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (b'{"seq":0,"set":{}}\nnot json\n{"seq":2,"set":{}}\n', "line 2 is not a journal line"),
        (b'{"seq":1,"set":{}}\n', "line 1 (seq 1) comes before any full line"),
    ],
)
def test_a_journal_that_does_not_replay_is_reported_and_moved_aside(
    tmp_path: Path, text: bytes, reason: str
) -> None:
    (tmp_path / "r1.journal").write_bytes(text)
    with pytest.raises(CorruptCheckpointError) as err:
        CheckpointStore(tmp_path).load("r1")
    assert err.value.reason.startswith(reason)
    assert err.value.moved_to == tmp_path / "r1.journal.corrupt-1"
    assert CheckpointStore(tmp_path).load("r1") is None


def test_a_failed_fsync_cuts_the_line_off_and_the_next_line_is_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = CheckpointStore(tmp_path)
    ctx = _ctx()
    with store.lock("r1"):
        store.save(ctx)
        before = (tmp_path / "r1.journal").read_bytes()
        saved = ctx.model_copy(deep=True)

        def broken(fd: int) -> None:
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(os, "fdatasync", broken)
        _advance(ctx, State.requirements)
        with pytest.raises(StorageError, match="no space left on the device"):
            store.save(ctx)
        assert (tmp_path / "r1.journal").read_bytes() == before
        assert CheckpointStore(tmp_path).load("r1") == saved
        monkeypatch.undo()
        store.save(ctx)
        assert [line["seq"] for line in _lines(tmp_path / "r1.journal")] == [0, 0]
        assert store.load("r1") == ctx


def test_a_journal_that_grows_past_its_bound_is_rewritten_as_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "JOURNAL_MIN_REWRITE", 0)
    monkeypatch.setattr(store_module, "JOURNAL_REWRITE_FACTOR", 2)
    store = CheckpointStore(tmp_path)
    ctx = _ctx()
    with store.lock("r1"):
        store.save(ctx)
        sizes = []
        for i in range(1, 13):
            text = f"request {i} " * 200  # a new request of 2 KB every time
            ctx.request = ctx.request.model_copy(update={"text": text})
            store.save(ctx)
            sizes.append((tmp_path / "r1.journal").stat().st_size)
            assert CheckpointStore(tmp_path).load("r1") == ctx
        seqs = [line["seq"] for line in _lines(tmp_path / "r1.journal")]
        assert seqs == list(range(len(seqs))) and len(seqs) < 4
        assert max(sizes) < 3 * len(dump_context(ctx))


def test_a_run_in_progress_reads_as_before_without_the_lease(
    h: Harness, capsys: pytest.CaptureFixture[str]
) -> None:
    """While the critique runs: load, summary, ids, exists and ``advise status`` from
    another store (no lease) see the checkpoint of the scheduling stage."""
    seen: dict[str, Any] = {}

    class Probe:
        def run(self, case: Any, tools: Any) -> Any:
            reader = CheckpointStore(h.store.root)
            seen["ids"] = list(reader.ids())
            seen["exists"] = reader.exists("r1")
            seen["ctx"] = reader.load("r1")
            seen["summary"] = reader.summary("r1")
            seen["files"] = sorted(p.name for p in h.store.root.iterdir())
            capsys.readouterr()
            main(["status", "--state-dir", str(h.store.root), "--catalog", str(h.catalog),
                  "--json"])  # fmt: skip
            seen["status"] = json.loads(capsys.readouterr().out)
            return FAKE.agents[State.critique].run(case, tools)

    final = h.run(make_request("r1"), stages=FAKE.with_agent(State.critique, Probe()))
    ctx = seen["ctx"]
    assert seen["files"] == [".leases", "r1.journal", "r1.lock"]
    assert (seen["ids"], seen["exists"]) == (["r1"], True)
    assert (ctx.state, [t.stage for t in ctx.timings]) == (
        State.critique,
        [State.intake, State.requirements, State.scheduling],
    )
    assert ctx.schedules == final.schedules and ctx.critiques == []
    assert (seen["summary"].state, seen["summary"].updated_at) == (State.critique, ctx.updated_at)
    assert [(r["id"], r["state"]) for r in seen["status"]["requests"]] == [("r1", "critique")]
    assert sorted(p.name for p in h.store.root.iterdir()) == [".leases", "r1.json"]
    assert h.store.load("r1") == final


KILLED = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from pipeline import journal
    from pipeline.context import State
    from pipeline.store import CheckpointStore
    from tests.store_helpers import _ctx

    root, point = Path(sys.argv[1]), sys.argv[2]
    real_append, real_write = journal.append_line, journal.atomic_write

    def die(*args):
        os.kill(os.getpid(), signal.SIGKILL)

    def half_then_die(fd, path, line):
        os.write(fd, line[: len(line) // 2])
        die()

    def write_then_die(path, data):
        real_write(path, data)
        die()

    store, ctx = CheckpointStore(root, background=True), _ctx("r1")
    with store.lock("r1"):
        for state in (State.requirements, State.scheduling, State.critique):
            ctx.state = state
            store.save(ctx)
        ctx.state, ctx.outcome = State.done, "approved"
        patch = {"mid-line": ("append_line", half_then_die), "before-fsync": ("_datasync", die),
                 "before-rename": ("atomic_write", die),
                 "before-unlink": ("atomic_write", write_then_die)}[point]
        setattr(journal, *patch)
        store.save(ctx)
    """
)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("point", "state", "left"),
    [
        ("mid-line", State.critique, ["r1.journal"]),
        ("before-fsync", State.done, ["r1.journal"]),  # in the page cache: it survives
        ("before-rename", State.done, ["r1.journal"]),
        ("before-unlink", State.done, ["r1.journal", "r1.json"]),
    ],
)
def test_a_kill_between_append_and_compaction_leaves_a_readable_state(
    tmp_path: Path, point: str, state: State, left: list[str]
) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", KILLED, str(tmp_path), point], env=env,
                          capture_output=True, check=False, timeout=60)  # fmt: skip
    assert done.returncode == -9, done.stderr.decode()
    names = sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("."))
    assert [n for n in names if not n.endswith(".lock")] == left
    seen = CheckpointStore(tmp_path).load("r1")
    assert seen is not None and seen.state is state
    with CheckpointStore(tmp_path).lock("r1"):  # a killed holder's lease is taken at once
        pass
    assert sorted(p.name for p in tmp_path.iterdir()) == [".leases", "r1.json"]
    assert (tmp_path / "r1.json").read_bytes() == dump_context(seen)


@pytest.mark.slow
@pytest.mark.parametrize("rid", ["overload-low-gpa", "add-cs-minor", "policy-question"])
def test_the_real_stages_never_change_an_artifact_already_stored(
    tmp_path: Path, rid: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After every save the journal replays to the context in memory: nothing stored is
    mutated in place afterwards (else the journal, which compares artifacts by identity,
    would miss it)."""
    from agents.artifacts import PlanRequest
    from pipeline.machine import real_stages
    from pipeline.runner import ToolboxFactory

    lines = (REPO / "demos" / "requests.jsonl").read_text("utf-8").splitlines()
    request = next(PlanRequest.model_validate_json(x) for x in lines if f'"{rid}"' in x)
    h = Harness(tmp_path)
    checked: list[State] = []
    save = CheckpointStore.save

    def checked_save(store: CheckpointStore, ctx: WorkflowContext) -> int:
        size = save(store, ctx)
        if ctx.state is not State.done:
            assert CheckpointStore(store.root).load(ctx.request_id) == ctx
            checked.append(ctx.state)
        return size

    monkeypatch.setattr(CheckpointStore, "save", checked_save)
    final = h.run(request, stages=real_stages(), toolbox_factory=ToolboxFactory())
    assert final.state is State.done and len(checked) >= 4
    assert (h.store.root / f"{rid}.json").read_bytes() == dump_context(final)


def test_what_changed_is_found_for_replaced_artifacts_mutated_lists_and_scalars() -> None:
    ctx = _ctx("r1")
    tracker = Tracker()
    tracker.changes(ctx)
    assert tracker.changes(ctx) == []  # the same objects: nothing serialized again
    ctx.request = ctx.request.model_copy(update={"text": "changed"})  # a new artifact
    ctx.timings.append(StageTiming(stage=State.intake, round=1, attempt=1, ms=1.0, ok=True))
    ctx.attempts[State.intake] = 1  # a dict mutated in place
    ctx.state = State.requirements
    assert tracker.changes(ctx) == ["state", "request", "attempts", "timings"]
    ctx.attempts[State.intake] = 2
    assert tracker.changes(ctx) == ["attempts"]
    assert tracker.whole() == dump_context(ctx)

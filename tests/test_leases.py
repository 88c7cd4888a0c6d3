"""Per-request leases: one holder at a time, named when refused; a dead process's lease on
this host is taken over at once, another host's once expired; of racing acquirers or takers
exactly one wins; renewal, release, fencing, and the store behind its interface."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline import leases as leases_module
from pipeline.errors import LockHeldError
from pipeline.leases import Holder, Lease, LeaseInfo, Leases, read_lease, this_machine
from pipeline.store import CheckpointStore
from pipeline.store_api import CheckpointBackend, RequestLease, iso
from tests.store_helpers import _ctx

REPO = Path(__file__).resolve().parents[1]
T0 = 1_700_000_000.0  # 2023-11-14T22:13:20+00:00
AT_T0 = "2023-11-14T22:13:20+00:00"


class Clock:
    """Wall-clock time that moves only when a test moves it."""

    t = T0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(scope="module")
def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _leases(directory: Path, clock: Clock, holder: Holder | None = None) -> Leases:
    return Leases(directory, clock=clock, renew_every_s=0, holder=holder)


def _token(directory: Path) -> str | None:
    """The token of the lease on ``r1``: whose it is."""
    info = read_lease(directory / "r1.lock", "r1")
    return info.token if info else None


def test_second_acquire_in_one_process_is_refused_naming_holder_and_expiry(
    tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADVISE_WORKER_ID", "ray-3")
    store = CheckpointStore(tmp_path, clock=clock)
    with store.lock("r1"):
        with pytest.raises(LockHeldError) as err:
            store.lock("r1")
        assert str(err.value) == (
            f"request 'r1' is being worked by another runner (pid {os.getpid()} on "
            f"{socket.gethostname()}, worker 'ray-3', since {AT_T0}, lease expires "
            "2023-11-14T22:14:20+00:00); wait for it to finish, or stop it - the lock "
            f"{str(tmp_path / 'r1.lock')!r} frees when it exits (a "
            "runner on another host that stopped: when its lease expires)"
        )
        assert err.value.lock_path == tmp_path / "r1.lock"
        worker = json.loads((tmp_path / "r1.lock").read_text("utf-8"))["worker_id"]
        assert worker == "ray-3"  # from $ADVISE_WORKER_ID, as the Ray executor sets it


def test_lease_file_names_holder_taken_and_expiry(tmp_path: Path, clock: Clock) -> None:
    with _leases(tmp_path, clock).acquire("r1") as lease:
        record = json.loads((tmp_path / "r1.lock").read_text("utf-8"))
        assert record == {"request_id": "r1", "token": lease.token, "host": socket.gethostname(),
                          "pid": os.getpid(), "worker_id": None, "machine": this_machine(),
                          "taken_at": AT_T0, "ttl_s": 60.0,
                          "expires_at": "2023-11-14T22:14:20+00:00"}  # fmt: skip
        assert os.stat(tmp_path / "r1.lock").st_mtime == T0


def test_release_removes_the_lease_and_frees_the_request(tmp_path: Path, clock: Clock) -> None:
    leases = _leases(tmp_path, clock)
    lease = leases.acquire("r1")
    lease.release()
    lease.release()  # twice is harmless
    assert (leases.held("r1"), sorted(p.name for p in tmp_path.rglob("*"))) == (None, [".leases"])
    with leases.acquire("r1"):
        assert (tmp_path / "r1.lock").exists()
    assert not (tmp_path / "r1.lock").exists()


def test_renewal_extends_the_expiry(tmp_path: Path, clock: Clock) -> None:
    with _leases(tmp_path, clock).acquire("r1") as lease:
        clock.t = T0 + 45
        lease.renew()
        info = read_lease(tmp_path / "r1.lock", "r1")  # renewal moves the expiry, not taken_at
        assert info is not None and (info.expires_at, info.taken_at) == (T0 + 105, T0)
        assert lease.expires_at == T0 + 105


def test_renewal_thread_keeps_a_long_run_alive(tmp_path: Path) -> None:
    with Leases(tmp_path, ttl_s=5.0, renew_every_s=0.02).acquire("r1") as lease:
        first, tick = lease.expires_at, threading.Event()
        for _ in range(200):  # polls, no fixed sleep: done as soon as the thread renews
            if lease.expires_at > first:
                break
            tick.wait(0.01)
        info = read_lease(tmp_path / "r1.lock", "r1")
        assert info is not None and info.expires_at > first


def _lease_file(directory: Path, text: str, mtime: float) -> LeaseInfo:
    """A lease file as another runner (or the flock-era store) left it, read back."""
    (directory / "r1.lock").write_text(text, encoding="utf-8")
    os.utime(directory / "r1.lock", (mtime, mtime))
    info = read_lease(directory / "r1.lock", "r1")
    assert info is not None
    return info


ME, ELSEWHERE = "me", "elsewhere.example"


@pytest.mark.parametrize(
    ("host", "machine", "pid", "age_s", "verdict"),
    [
        (ME, ME, "alive", 10, None),
        (ME, ME, "dead", 10, "its process is gone"),
        (ME, ME, "alive", 61, "it expired"),
        (ME, "", "dead", 10, "its process is gone"),  # no machine id recorded: host decides
        (ME, "another container", "dead", 10, None),  # its pids are not ours to check
        (ME, ME, "unknown", 10, None),  # pid 0: never signalled, waits for expiry
        (ELSEWHERE, ME, "dead", 10, None),  # another host: its pid means nothing here
        (ELSEWHERE, ME, "dead", 59, None),
        (ELSEWHERE, ME, "alive", 60, "it expired"),
    ],
)
def test_when_a_lease_may_be_taken_over(
    tmp_path: Path, clock: Clock, dead_pid: int,
    host: str, machine: str, pid: str, age_s: float, verdict: str | None,
) -> None:  # fmt: skip
    me = Holder(socket.gethostname(), os.getpid(), None, this_machine())
    pids = {"alive": os.getpid(), "dead": dead_pid, "unknown": 0}
    record = {"request_id": "r1", "token": "t", "host": me.host if host == ME else host,
              "pid": pids[pid], "machine": me.machine if machine == ME else machine,
              "ttl_s": 60.0}  # fmt: skip
    info = _lease_file(tmp_path, json.dumps(record), mtime=T0 - age_s)
    assert _leases(tmp_path, clock, me).stale_reason(info) == verdict


@pytest.mark.parametrize(
    ("content", "age_s", "verdict", "described"),
    [
        ("flock-dead", 10, "its process is gone", "pid {dead} on {host}, since {since}"),
        ("flock-alive", 10, None, "pid {alive} on {host}, since {since}"),
        ("flock-alive", 61, "it expired", "pid {alive} on {host}, since {since}"),
        ("", 10, None, "holder unknown (unreadable lease)"),
        ("", 61, "it expired", "holder unknown (unreadable lease)"),
        ("[1, 2", 61, "it expired", "holder unknown (unreadable lease)"),
    ],
)
def test_old_or_unreadable_lock_files_are_leases_that_expire_by_their_mtime(
    tmp_path: Path, clock: Clock, dead_pid: int,
    content: str, age_s: float, verdict: str | None, described: str,
) -> None:  # fmt: skip
    host, since = socket.gethostname(), "2023-11-01T10:00:00+00:00"
    if content.startswith("flock-"):  # what the flock-era store wrote
        pid = dead_pid if content == "flock-dead" else os.getpid()
        content = json.dumps({"pid": pid, "host": host, "since": since})
    info = _lease_file(tmp_path, content, mtime=T0 - age_s)
    assert _leases(tmp_path, clock).stale_reason(info) == verdict
    expires = iso(T0 - age_s + 60)
    who = described.format(dead=dead_pid, alive=os.getpid(), host=host, since=since)
    assert info.describe() == f"{who}, lease expires {expires}"


def test_foreign_lease_is_refused_until_it_expires_then_taken_over(
    tmp_path: Path, clock: Clock, dead_pid: int
) -> None:
    foreign = Holder(ELSEWHERE, dead_pid, "ray-9", "their-boot/their-ns")
    theirs = _leases(tmp_path, clock, foreign).acquire("r1")
    ours = _leases(tmp_path, clock)
    for t in (T0, T0 + 59.9):
        clock.t = t
        with pytest.raises(LockHeldError) as err:
            ours.acquire("r1")
        assert err.value.holder == (
            f"pid {dead_pid} on elsewhere.example, worker 'ray-9', since {AT_T0}, "
            "lease expires 2023-11-14T22:14:20+00:00"
        )
    clock.t = T0 + 60
    lease = ours.acquire("r1")
    # the old holder, back from a pause, finds it lost and must not write any more
    with pytest.raises(LockHeldError, match=rf"pid {os.getpid()} on "):
        theirs.check()
    theirs.release()  # not ours to remove any more
    assert _token(tmp_path) == lease.token
    lease.release()


HOLDER_SCRIPT = """
import sys, pathlib, pipeline.errors, pipeline.leases, pipeline.logs
pipeline.logs.configure_logging("warning", stream=sys.stderr)
leases = pipeline.leases.Leases(pathlib.Path(sys.argv[1]))
print("ready", flush=True)
if sys.argv[2] == "race":
    sys.stdin.readline()
try:
    lease = leases.acquire("r1")
except pipeline.errors.LockHeldError:
    sys.exit(print("held", flush=True))
print("won", flush=True)
sys.stdin.read()  # hold the lease until stdin closes
lease.release()
"""


def _holders(directory: Path, mode: str, n: int) -> list[subprocess.Popen[str]]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, "-c", HOLDER_SCRIPT, str(directory), mode],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
             for _ in range(n)]  # fmt: skip
    assert [p.stdout.readline() if p.stdout else "" for p in procs] == ["ready\n"] * n
    return procs


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for proc in started:
        proc.kill()
        with proc:  # closes its pipes and reaps it
            pass


@pytest.mark.slow
def test_processes_racing_for_one_lease_exactly_one_wins(
    tmp_path: Path, procs: list[subprocess.Popen[str]]
) -> None:
    for round_ in range(2):
        directory = tmp_path / f"round-{round_}"
        procs.extend(racers := _holders(directory, "race", 4))
        for proc in racers:
            print("go", file=proc.stdin, flush=True)
        outcomes = sorted(proc.stdout.readline().strip() for proc in racers if proc.stdout)
        assert outcomes == ["held", "held", "held", "won"]
        for proc in racers:
            proc.communicate(timeout=30)  # closes stdin: the winner releases
            assert proc.returncode == 0
        assert not (directory / "r1.lock").exists()


def test_lease_of_a_sigkilled_process_on_this_host_is_taken_over_at_once(
    tmp_path: Path, clock: Clock, procs: list[subprocess.Popen[str]]
) -> None:
    procs.extend(_holders(tmp_path, "hold", 1))
    proc = procs[0]
    assert proc.stdout is not None and proc.stdout.readline() == "won\n"
    leases = _leases(tmp_path, clock)
    with pytest.raises(LockHeldError, match=rf"\(pid {proc.pid} on "):
        leases.acquire("r1")
    proc.kill()
    proc.wait()
    clock.t = T0  # no time passes: the dead holder's lease (60 s TTL) has not expired
    with leases.acquire("r1") as lease:
        assert lease.holder.pid == os.getpid() and _token(tmp_path) == lease.token


def _race(directory: Path, clock: Clock, n: int) -> tuple[list[Lease], list[str]]:
    """``n`` threads, each with its own Leases, acquire ``r1`` at once."""
    barrier = threading.Barrier(n)
    won: list[Lease] = []
    refused: list[str] = []

    def take(leases: Leases) -> None:
        barrier.wait()
        try:
            won.append(leases.acquire("r1"))
        except LockHeldError as exc:
            refused.append(exc.holder)

    takers = [threading.Thread(target=take, args=(_leases(directory, clock),)) for _ in range(n)]
    for t in takers:
        t.start()
    for t in takers:
        t.join()
    return won, refused


FOREIGN = Holder(ELSEWHERE, 1, None, "their-boot/their-ns")


def test_takers_racing_for_an_expired_lease_exactly_one_wins(tmp_path: Path, clock: Clock) -> None:
    for round_ in range(40):
        directory = tmp_path / f"round-{round_}"
        clock.t = T0
        _leases(directory, clock, FOREIGN).acquire("r1")  # never released: goes stale
        clock.t = T0 + 600
        won, refused = _race(directory, clock, 4)
        assert (len(won), len(refused)) == (1, 3), round_
        assert _token(directory) == won[0].token
        assert all(holder.startswith(f"pid {os.getpid()} on ") for holder in refused)
        won[0].release()
        assert sorted(p.name for p in directory.rglob("*")) == [".leases"]


def test_a_taker_with_an_old_look_spares_the_new_lease(tmp_path: Path, clock: Clock) -> None:
    _leases(tmp_path, clock, FOREIGN).acquire("r1")
    clock.t = T0 + 600
    slow = _leases(tmp_path, clock)
    stale = slow.read("r1")
    assert stale is not None and slow.stale_reason(stale) == "it expired"
    fast = _leases(tmp_path, clock).acquire("r1")  # takes over while the slow one dithers
    me = Holder.current()
    assert slow._break(tmp_path / "r1.lock", tmp_path / ".leases", stale, "it expired", me)
    fast.check()  # still the holder
    assert _token(tmp_path) == fast.token
    with pytest.raises(LockHeldError):
        slow.acquire("r1")
    fast.release()
    assert sorted(p.name for p in tmp_path.rglob("*")) == [".leases"]


def _guard(directory: Path, clock: Clock, taker: Holder) -> None:
    """A takeover guard as a taker that is still at work (or was killed) leaves it."""
    scratch = directory / ".leases"
    _leases(directory, clock, taker)._publish(scratch / "r1.guard", scratch, "r1", taker, 15.0)


def test_a_guard_left_by_a_killed_taker_is_cleared(
    tmp_path: Path, clock: Clock, dead_pid: int
) -> None:
    _leases(tmp_path, clock, FOREIGN).acquire("r1")
    _guard(tmp_path, clock, Holder(socket.gethostname(), dead_pid, None, this_machine()))
    clock.t = T0 + 600
    with _leases(tmp_path, clock).acquire("r1") as lease:
        assert _token(tmp_path) == lease.token
    assert sorted(p.name for p in (tmp_path / ".leases").iterdir()) == []


def test_acquire_waits_for_a_takeover_in_progress_then_names_the_holder(
    tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    _leases(tmp_path, clock, FOREIGN).acquire("r1")
    clock.t = T0 + 600
    _guard(tmp_path, clock, Holder(ELSEWHERE, 2, "ray-2", "their-boot/their-ns"))
    monkeypatch.setattr(leases_module, "CONTENDED_S", 0.05)
    with pytest.raises(LockHeldError) as err:
        _leases(tmp_path, clock).acquire("r1")
    assert err.value.holder == (
        f"pid 1 on elsewhere.example, since {AT_T0}, lease expires "
        "2023-11-14T22:14:20+00:00; another runner is taking it over"
    )


def test_save_is_refused_after_a_takeover(tmp_path: Path, clock: Clock) -> None:
    paused = CheckpointStore(tmp_path, clock=clock)
    other = CheckpointStore(tmp_path, clock=clock)
    ctx = _ctx("r1")
    with paused.lock("r1"):
        paused.save(ctx)
        clock.t = T0 + 61  # the holder stalled past its TTL: the lease expired
        with other.lock("r1"):
            other.save(ctx)
            with pytest.raises(LockHeldError, match=r"another runner \(pid "):
                paused.save(ctx)
    assert other.load("r1") == ctx


def test_leftovers_of_killed_takers_are_swept(
    tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / ".leases"
    scratch.mkdir()
    for name in ("r1.0123.tmp", "r2.4567.stale"):
        (scratch / name).write_text("{}", encoding="utf-8")
    monkeypatch.setattr(leases_module, "SWEEP_AFTER_S", -1.0)
    with _leases(tmp_path, clock).acquire("r1"):
        assert sorted(p.name for p in scratch.iterdir()) == []


def test_checkpoint_store_implements_the_store_interface(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    backend: CheckpointBackend = store  # checked by mypy as well
    assert isinstance(backend, CheckpointBackend)
    assert backend.describe("r1") == str(tmp_path / "r1.json")
    with backend.lock("r1") as lease:
        assert isinstance(lease, RequestLease) and lease.request_id == "r1"

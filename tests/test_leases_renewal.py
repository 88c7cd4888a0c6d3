"""Lease renewal by the process's one renewal thread (``pipeline.renewal``): every held
lease renewed while it is held, none after release, no thread per lease, a renewal that
fails does not stop the others, and a renewal racing a release never calls the lease lost."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline import leases as leases_module
from pipeline.leases import Holder, LeaseInfo, Leases, read_lease
from pipeline.renewal import RENEWER, Renewer


def _until(condition: Callable[[], bool], polls: int = 500) -> bool:
    """Poll ``condition`` (no fixed sleep: done as soon as it holds)."""
    tick = threading.Event()
    for _ in range(polls):
        if condition():
            return True
        tick.wait(0.01)
    return condition()


def _renewer_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "lease-renewer"]


def test_one_thread_renews_every_held_lease_until_it_is_released(tmp_path: Path) -> None:
    leases = Leases(tmp_path, ttl_s=5.0, renew_every_s=0.02)
    held = [leases.acquire(f"r{i}") for i in range(3)]
    first = [lease.expires_at for lease in held]
    assert _until(lambda: all(lease.expires_at > t for lease, t in zip(held, first, strict=True)))
    for lease in held:
        info = read_lease(lease.path, lease.request_id)
        assert info is not None and info.expires_at > first[held.index(lease)]
    assert len(_renewer_threads()) == 1  # not one per lease
    before = RENEWER.held()
    for lease in held:
        lease.release()
    assert RENEWER.held() == before - 3
    assert not any(lease.path.exists() for lease in held)
    assert len(_renewer_threads()) == 1  # it stays for the next lease, asleep


def test_a_lease_taken_without_renewal_is_not_handed_to_the_thread(tmp_path: Path) -> None:
    before = RENEWER.held()
    with Leases(tmp_path, renew_every_s=0).acquire("r1"):
        assert RENEWER.held() == before


class _Fake:
    def __init__(self, request_id: str, fail: bool = False) -> None:
        self.request_id, self.lost, self.fail, self.renewals = request_id, False, fail, 0

    def renew(self) -> None:
        self.renewals += 1
        if self.fail:
            raise OSError(5, "Input/output error")


def test_a_failing_renewal_is_retried_and_does_not_stop_the_others() -> None:
    renewer = Renewer()
    bad, good = _Fake("bad", fail=True), _Fake("good")
    renewer.add(bad, 0.01)
    renewer.add(good, 0.01)
    try:
        assert _until(lambda: bad.renewals >= 3 and good.renewals >= 3)
    finally:
        renewer.remove(bad)
        renewer.remove(good)
    assert renewer.held() == 0


def test_a_lost_lease_is_no_longer_renewed() -> None:
    renewer = Renewer()
    lease = _Fake("r1")
    lease.lost = True
    renewer.add(lease, 0.01)
    assert _until(lambda: renewer.held() == 0)
    assert lease.renewals == 1


def test_reset_forgets_the_parents_leases_and_thread() -> None:
    renewer = Renewer()
    renewer.add(_Fake("r1"), 60.0)
    renewer.reset()  # what a forked child runs
    assert renewer.held() == 0


def test_renewal_racing_a_release_does_not_call_the_lease_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = Leases(tmp_path, renew_every_s=0)
    other = Leases(tmp_path, renew_every_s=0, holder=Holder("elsewhere.example", 7))
    lease = mine.acquire("r1")
    real = leases_module.read_lease
    raced: list[LeaseInfo | None] = []

    def read_after_a_release(path: Path, request_id: str, ttl_s: float = 60.0) -> LeaseInfo | None:
        if not raced:  # between the renewal's touch and its look: released, then taken
            raced.append(None)
            monkeypatch.setattr(leases_module, "read_lease", real)
            lease.release()
            raced.append(other.acquire("r1").owner.read("r1"))
        return real(path, request_id, ttl_s)

    monkeypatch.setattr(leases_module, "read_lease", read_after_a_release)
    lease.renew()
    assert raced[-1] is not None and raced[-1].holder == Holder("elsewhere.example", 7)
    assert (lease.lost, lease.lost_to) == (False, None)

"""One renewal thread per process for every lease it holds (``pipeline.leases``).

A lease is renewed every ``every`` seconds (``ttl_s / 3`` by default) from when it is
taken until it is released or found lost, however long a stage runs. A thread started and
joined per lease cost more than the checkpoints of a whole request
(``eval.bench_orchestration``); this thread is started once and sleeps until the next
renewal is due, so taking and releasing a lease is two dictionary updates under a lock and
wakes it only when the new lease is due before it would wake anyway.

A renewal does I/O with the lock released (leases are taken and released meanwhile); one
that fails is tried again at the next turn, and ``Lease.check`` decides at expiry. A forked
child starts with no thread and none of its parent's leases.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Protocol

import structlog

log = structlog.get_logger(__name__)

IDLE_S = 3600.0  # how long the thread sleeps while no lease is held


class Renewable(Protocol):
    """What the thread needs of a held lease (``pipeline.leases.Lease``)."""

    request_id: str
    lost: bool

    def renew(self) -> None: ...


class Renewer:
    """Renews each added lease when it is due, in one daemon thread started on first use."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget every lease and the thread (in a forked child: neither is its own)."""
        self._cond = threading.Condition(threading.Lock())
        self._due: dict[Renewable, tuple[float, float]] = {}  # lease -> (next renewal, every)
        self._wake_at = 0.0  # when the thread wakes next (monotonic)
        self._thread: threading.Thread | None = None

    def add(self, lease: Renewable, every: float) -> None:
        """Renew ``lease`` every ``every`` seconds from now until ``remove``."""
        with self._cond:
            at = time.monotonic() + every
            self._due[lease] = (at, every)
            if self._thread is None:
                self._wake_at = at
                self._thread = threading.Thread(target=self._loop, name="lease-renewer",
                                                daemon=True)  # fmt: skip
                self._thread.start()
            elif at < self._wake_at:  # else the thread wakes in time and sees it
                self._cond.notify()

    def remove(self, lease: Renewable) -> None:
        """Stop renewing ``lease`` (a renewal already under way finishes)."""
        with self._cond:
            self._due.pop(lease, None)

    def held(self) -> int:
        """How many leases are being renewed."""
        with self._cond:
            return len(self._due)

    def _loop(self) -> None:
        cond, leases = self._cond, self._due  # a reset (a forked child's) ends this loop
        with cond:
            while self._cond is cond:
                now = time.monotonic()
                due = [(lease, every) for lease, (at, every) in leases.items() if at <= now]
                if not due:
                    self._wake_at = min((at for at, _ in leases.values()), default=now + IDLE_S)
                    cond.wait(self._wake_at - now)
                    continue
                for lease, every in due:
                    leases[lease] = (now + every, every)
                cond.release()  # renewals do I/O: adds and removes go on meanwhile
                try:
                    for lease, _ in due:
                        self._renew(lease)
                finally:
                    cond.acquire()

    def _renew(self, lease: Renewable) -> None:
        try:
            lease.renew()
        except OSError as exc:  # tried again next time; ``check`` decides at expiry
            log.warning("lease.renew_failed", request_id=lease.request_id, error=str(exc))
        except Exception as exc:  # one lease's failure must not stop the others' renewals
            log.error("lease.renew_failed", request_id=lease.request_id, error=repr(exc))
        if lease.lost:
            self.remove(lease)


RENEWER = Renewer()
# In a forked child the parent's thread does not exist, its lock may have been held at the
# fork and its leases are not the child's: start afresh (the same object: it is imported).
os.register_at_fork(after_in_child=RENEWER.reset)

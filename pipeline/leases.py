"""Per-request leases that work on a local disk and on a directory shared over NFS.

``flock`` is not reliable over NFS (emulated with lock-daemon byte-range locks) and says
nothing about who holds it. A lease is a file, ``<dir>/<request_id>.lock``: JSON naming
its holder, written once and never rewritten::

    {"request_id": "r1", "token": "<uuid4 hex>", "host": "node-3", "pid": 4242,
     "worker_id": "ray-7", "machine": "<boot id>/<pid ns>", "ttl_s": 60.0,
     "taken_at": "2025-01-06T10:00:00+00:00", "expires_at": "2025-01-06T10:01:00+00:00"}

A renewal sets the file's mtime; the lease expires at ``max(expires_at, mtime + ttl_s)``.

Acquire: the whole lease is written to a unique temp file in ``<dir>/.leases/`` and closed
(on NFS, close flushes it to the server), then ``os.link(temp, lease)``; EEXIST means held.
Link rather than ``O_CREAT|O_EXCL``: link is one atomic server operation in every NFS
version (``O_EXCL`` only from NFSv3, if the client honours it), and the lease appears
complete - never empty or half written. A lost reply to a retransmitted LINK can report an
error although the link was made, so the winner is the one whose token the file holds.

Renew: the process's renewal thread (``pipeline.renewal``) every ``ttl_s / 3`` (not on
checkpoint saves: one stage - a CP-SAT solve, an LLM call with retries - can outlast the
TTL) sets the mtime through the descriptor the holder keeps open: the content is never
torn, and a holder whose lease was taken over touches its own old file, never the new one.
Release unlinks it if it is ours.

Takeover: a lease is stale when its holder is on this machine (same host name, boot id and
pid namespace, so ``os.kill(pid, 0)`` means something; PermissionError is alive, a zombie
dead) and its process is gone - at once - or when it has expired, whatever its host. To
remove it a taker first takes the request's guard, ``.leases/<id>.guard`` (created by the
same exclusive link), then checks the file still holds the stale lease and renames it to a
unique tombstone, checks again and deletes it. Under the guard no other taker removes a
lease and no acquirer can create one while the stale one is there, so of several takers
exactly one removes it and they all meet again at the exclusive link. A guard outlives its
taker only if that taker is killed mid-takeover; it is stale after ``GUARD_TTL_S`` (at once
if its process is gone here). ``Lease.check`` (before every save) refuses once another
holder is found. Expiry compares hosts' wall clocks: keep them NTP-synced, the TTL well
above their skew; a holder that stalls past its TTL can lose its lease to a taker.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import structlog

from agents.files import create_exclusive, ensure_dir, open_nofollow
from pipeline.errors import LockHeldError
from pipeline.renewal import RENEWER
from pipeline.store_api import WORKER_ID_ENV, Holder, LeaseInfo, iso, this_machine

__all__ = ["WORKER_ID_ENV", "Holder", "Lease", "LeaseInfo", "Leases", "read_lease",
           "this_machine"]  # fmt: skip

log = structlog.get_logger(__name__)

DEFAULT_TTL_S = 60.0
GUARD_TTL_S = 15.0  # a takeover holds its guard for microseconds; older means abandoned
CONTENDED_S = 2.0  # how long an acquire waits while another runner is taking over
SCRATCH_DIR = ".leases"  # temp files, guards, tombstones: small, so sweeping it is cheap
SWEEP_AFTER_S = 60.0  # temp files and tombstones older than this are killed runners'

Clock = Callable[[], float]


def _json_object(data: bytes) -> dict[str, Any]:
    try:
        raw = json.loads(data)
    except ValueError:
        return {}
    return raw if isinstance(raw, dict) else {}


def _epoch(value: object) -> float | None:
    try:
        return datetime.fromisoformat(str(value)).timestamp() if value else None
    except ValueError:
        return None


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` runs on this machine; unknown (pid <= 0) counts as alive."""
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    try:  # a killed child its parent has not reaped yet is a zombie: dead
        stat = Path(f"/proc/{pid}/stat").read_text("ascii", errors="replace")
        return stat.rpartition(")")[2].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def read_lease(path: Path, request_id: str, ttl_s: float = DEFAULT_TTL_S) -> LeaseInfo | None:
    """The lease at ``path``, None if there is none. Lenient: a file it cannot parse is a
    lease by an unknown holder that expires ``ttl_s`` after its mtime."""
    try:
        with open(path, "rb") as f:  # open revalidates NFS attributes: a fresh mtime
            st = os.fstat(f.fileno())
            raw = _json_object(f.read(65536))
    except FileNotFoundError:
        return None
    token = raw.get("token") if isinstance(raw.get("token"), str) else None
    worker, machine, holder = raw.get("worker_id"), raw.get("machine"), None
    if isinstance(raw.get("host"), str) and isinstance(raw.get("pid"), int):
        holder = Holder(raw["host"], raw["pid"], worker if isinstance(worker, str) else None,
                        machine if isinstance(machine, str) else "")  # fmt: skip
    ttl = raw.get("ttl_s")
    life = float(ttl) if isinstance(ttl, int | float) and ttl > 0 else ttl_s
    taken = _epoch(raw.get("taken_at") or raw.get("since"))  # "since": flock-era files
    expires = max(_epoch(raw.get("expires_at")) or 0.0, st.st_mtime + life)
    return LeaseInfo(request_id, token, holder, taken, life, expires, st.st_ino)


class Lease:
    """A held lease, renewed by a daemon thread until ``release()`` unlinks it."""

    def __init__(self, owner: Leases, request_id: str, path: Path, token: str, fd: int,
                 holder: Holder, expires_at: float) -> None:  # fmt: skip
        self.owner = owner
        self.request_id = request_id
        self.path = path
        self.token = token
        self.holder = holder
        self.expires_at = expires_at
        self.lost = False  # set once another runner is found holding the lease
        self.lost_to: LeaseInfo | None = None
        self._fd = fd
        self._io = threading.Lock()
        every = owner.ttl_s / 3 if owner.renew_every_s is None else owner.renew_every_s
        if every > 0:
            RENEWER.add(self, every)

    def renew(self) -> None:
        """Push the expiry to now + TTL, then make sure the file is still ours (also when
        the push failed: ESTALE on NFS means a taker elsewhere deleted our file)."""
        error: OSError | None = None
        with self._io:
            if self._fd < 0 or self.lost:
                return
            now = self.owner.clock()
            try:
                os.utime(self._fd, ns=(int(now * 1e9),) * 2)
                self.expires_at = now + self.owner.ttl_s
            except OSError as exc:
                error = exc
        current = read_lease(self.path, self.request_id, self.owner.ttl_s)
        if current is not None and current.token != self.token:
            with self._io:  # released since (by another thread): the file is not ours to judge
                if self._fd >= 0:
                    self._mark_lost(current)
        if error is not None:
            raise error

    def _mark_lost(self, current: LeaseInfo | None) -> None:
        if not self.lost:
            self.lost, self.lost_to = True, current
            log.error("lease.lost", request_id=self.request_id,
                      now_held_by=current.describe() if current else None)  # fmt: skip

    def check(self) -> None:
        """Raise LockHeldError if another runner has taken this lease over. Free while the
        lease has not expired: nobody takes over a live, unexpired lease."""
        if not self.lost and self.owner.clock() < self.expires_at:
            return
        current = read_lease(self.path, self.request_id, self.owner.ttl_s)
        if current is None or current.token != self.token:
            self._mark_lost(current)
        if self.lost:
            who = self.lost_to.describe() if self.lost_to else "nobody - the lease was removed"
            raise LockHeldError(self.request_id, who, self.path)
        self.renew()

    def release(self) -> None:
        """Stop renewing and unlink the lease - only if it is still ours."""
        RENEWER.remove(self)
        with self._io:
            if self._fd < 0:
                return
            os.close(self._fd)  # before the unlink: NFS would rename an open file aside
            self._fd = -1
        self.owner.forget(self)
        current = read_lease(self.path, self.request_id, self.owner.ttl_s)
        if current is not None and current.token == self.token:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)
            log.debug("lease.released", request_id=self.request_id)
        else:
            log.warning("lease.not_ours_at_release", request_id=self.request_id,
                        now_held_by=current.describe() if current else None)  # fmt: skip

    def __enter__(self) -> Lease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


@dataclass
class Leases:
    """Takes, tracks and inspects the leases in ``directory``.

    ``holder`` defaults to this process (worker id from ``worker_id`` or
    ``$ADVISE_WORKER_ID``); ``renew_every_s`` None means ``ttl_s / 3``, 0 no renewal thread.
    Request ids must already be checked (``pipeline.store.check_request_id``)."""

    directory: Path
    ttl_s: float = DEFAULT_TTL_S
    clock: Clock = time.time
    worker_id: str | None = None
    renew_every_s: float | None = None
    holder: Holder | None = None
    _held: dict[str, Lease] = field(default_factory=dict, repr=False)
    _guard: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def path(self, request_id: str) -> Path:
        return self.directory / f"{request_id}.lock"

    def read(self, request_id: str) -> LeaseInfo | None:
        return read_lease(self.path(request_id), request_id, self.ttl_s)

    def held(self, request_id: str) -> Lease | None:
        """The lease this object holds for ``request_id``, if any."""
        with self._guard:
            return self._held.get(request_id)

    def forget(self, lease: Lease) -> None:
        with self._guard:
            if self._held.get(lease.request_id) is lease:
                del self._held[lease.request_id]

    def stale_reason(self, info: LeaseInfo) -> str | None:
        """Why ``info`` may be taken over now, or None while it stands."""
        me = self.holder or Holder.current(self.worker_id)
        h = info.holder
        if (h is not None and h.host == me.host
                and (h.machine == me.machine or not h.machine or not me.machine)
                and not pid_alive(h.pid)):  # fmt: skip
            return "its process is gone"
        if self.clock() >= info.expires_at:
            return "it expired"
        return None

    def acquire(self, request_id: str) -> Lease:
        """Take the lease or raise LockHeldError naming the holder and its expiry."""
        path = self.path(request_id)
        scratch = self.directory / SCRATCH_DIR
        ensure_dir(scratch)
        holder = self.holder or Holder.current(self.worker_id)
        deadline, pause = time.monotonic() + CONTENDED_S, 0.001
        while True:
            won = self._publish(path, scratch, request_id, holder, self.ttl_s)
            if won is not None:
                fd, token, now = won
                lease = Lease(self, request_id, path, token, fd, holder, now + self.ttl_s)
                with self._guard:
                    self._held[request_id] = lease
                self._sweep(scratch)
                log.debug("lease.acquired", request_id=request_id, holder=holder.describe())
                return lease
            info = read_lease(path, request_id, self.ttl_s)
            if info is None:
                continue  # released between our link and our look: try again
            reason = self.stale_reason(info)
            if reason is None:
                raise LockHeldError(request_id, info.describe(), path)
            if self._break(path, scratch, info, reason, holder):
                continue
            if time.monotonic() > deadline:
                who = f"{info.describe()}; another runner is taking it over"
                raise LockHeldError(request_id, who, path)
            time.sleep(pause)  # another taker holds the guard for a moment
            pause = min(pause * 2, 0.05)

    def _publish(self, target: Path, scratch: Path, request_id: str, holder: Holder,
                 ttl_s: float) -> tuple[int, str, float] | None:  # fmt: skip
        """Create ``target`` holding a new record, atomically and exclusively: (an open
        descriptor on it, its token, the time taken), or None if it exists."""
        token, now = uuid.uuid4().hex, self.clock()
        record = {"request_id": request_id, "token": token, "host": holder.host,
                  "pid": holder.pid, "worker_id": holder.worker_id, "machine": holder.machine,
                  "taken_at": iso(now), "ttl_s": ttl_s, "expires_at": iso(now + ttl_s)}  # fmt: skip
        tmp = scratch / f"{request_id}.{token}.tmp"
        create_exclusive(tmp, json.dumps(record).encode("utf-8"), mtime_ns=int(now * 1e9))
        error: OSError | None = None
        try:
            os.link(tmp, target)
        except OSError as exc:  # EEXIST: held; others: maybe made (lost NFS reply)
            error = exc
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        mine = False
        with contextlib.suppress(FileNotFoundError):
            fd = open_nofollow(target)  # kept open: renewals go through it
            mine = _json_object(os.pread(fd, 65536, 0)).get("token") == token
            if not mine:
                os.close(fd)
        if mine:
            return fd, token, now
        if error is not None and not isinstance(error, FileExistsError | FileNotFoundError):
            raise error  # e.g. a filesystem without hard links
        return None

    def _break(self, path: Path, scratch: Path, stale: LeaseInfo, reason: str,
               holder: Holder) -> bool:  # fmt: skip
        """Remove ``stale`` holding the request's guard; False if another taker holds it.
        Under the guard no other taker removes a lease, and no acquirer creates one while
        the stale one is there, so 'still the stale lease? then remove it' is one step."""
        rid = stale.request_id
        guard = scratch / f"{rid}.guard"
        won = self._publish(guard, scratch, rid, holder, GUARD_TTL_S)
        if won is None:
            other = read_lease(guard, rid, GUARD_TTL_S)
            if other is not None and self.stale_reason(other):  # its taker was killed
                self._remove_if(guard, scratch, other, stale=True)
            return False
        fd, token, _ = won
        os.close(fd)
        try:
            if self._remove_if(path, scratch, stale, stale=True):
                log.warning("lease.taken_over", request_id=rid, holder=stale.describe(),
                            reason=reason)  # fmt: skip
        finally:
            mine = read_lease(guard, rid, GUARD_TTL_S)
            if mine is not None and mine.token == token:  # not broken as abandoned
                self._remove_if(guard, scratch, mine, stale=False)
        return True

    def _remove_if(self, path: Path, scratch: Path, expected: LeaseInfo, stale: bool) -> bool:
        """Remove ``path`` if it still holds ``expected`` (and, with ``stale``, that is
        stale): look, then rename it to a tombstone and look again; whatever else the
        rename moved is linked back."""
        key = (expected.version, expected.token)

        def still(info: LeaseInfo | None) -> bool:
            return (info is not None and (info.version, info.token) == key
                    and (not stale or self.stale_reason(info) is not None))  # fmt: skip

        if not still(read_lease(path, expected.request_id, expected.ttl_s)):
            return False
        tomb = scratch / f"{expected.request_id}.{uuid.uuid4().hex}.stale"
        try:
            os.rename(path, tomb)  # moves one file, whoever else tries
        except FileNotFoundError:
            return False
        try:
            if still(read_lease(tomb, expected.request_id, expected.ttl_s)):
                return True
            with contextlib.suppress(FileExistsError, FileNotFoundError):
                os.link(tomb, path)  # not the one we meant: put it back
            return False
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tomb)

    def _sweep(self, scratch: Path) -> None:
        """Remove temp files and tombstones of killed runners (in flight: microseconds)."""
        cutoff = time.time() - SWEEP_AFTER_S
        with contextlib.suppress(OSError), os.scandir(scratch) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):
                    if (entry.name.endswith((".tmp", ".stale"))
                            and entry.stat(follow_symlinks=False).st_ctime < cutoff):  # fmt: skip
                        os.unlink(entry.path)

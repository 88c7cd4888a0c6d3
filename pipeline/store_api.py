"""What the engine needs from a checkpoint store, so that another backend can stand in.

``pipeline.store.CheckpointStore`` (a local or shared POSIX directory, leases from
``pipeline.leases``) is the one implementation. An object-store backend (S3, GCS) must
give the same guarantees the runner relies on:

- **Atomic whole-object writes.** ``save`` is one PUT of the whole checkpoint; a reader
  gets the previous object or the new one, never a partial one (no multipart upload that
  can be observed half done, no append).
- **Read-after-write consistency for the checkpoint.** A ``load`` after a ``save`` (or a
  ``flush``), from any host, returns what was saved - so a resumed or retried request never
  redoes a committed stage. S3 and GCS are strongly consistent for a single object;
  caches or CDNs in front of them must not be.
- **Conditional writes for leases.** Creating a lease is a PUT that fails if the object
  exists (S3 ``If-None-Match: *``, GCS ``ifGenerationMatch=0``); renewing or taking over an
  expired lease is a PUT conditional on the generation / ETag that was read (GCS
  ``ifGenerationMatch=<g>``, S3 ``If-Match``), so of two takers exactly one succeeds and a
  holder never renews a lease that someone else has taken; release is a DELETE
  conditional on the generation where the store has one (GCS ``ifGenerationMatch``),
  else read-compare-delete, whose window only hurts a holder already past its expiry.
  Lease records carry the same fields as ``pipeline.leases`` (holder host, pid, worker
  id, taken at, expires at) and LockHeldError names them. Same-host liveness
  (``os.kill``) does not apply across hosts: an object-store lease is taken over on
  expiry.
- **Fencing.** ``save`` refuses (LockHeldError) once the request's lease is known to be
  held by another runner, as ``pipeline.leases.Lease.check`` does.
- **A listing that may lag.** ``ids()`` may miss a checkpoint written a moment ago or still
  list one just removed (list-after-write is weaker than read-after-write on some stores):
  it is used for ``status`` and ``resume --all``, never to decide whether a request was
  done - that is ``load``'s answer, read under the request's lease.
- **Corrupt objects set aside, not overwritten**: ``load`` raises CorruptCheckpointError
  after copying the object to a ``.corrupt-<n>`` key; ``describe`` names the object (a URL
  such as ``gs://bucket/state/r1.json``) for every message.

Paths: ``CheckpointStore.path`` (a real file, used by ``stale.keep_previous`` and the
checkpoint errors) is not part of this interface; callers that must work with another
backend use ``describe`` for messages.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # only for annotations: leases import this module without the models
    from pipeline.checkpoint_summary import CheckpointSummary
    from pipeline.context import WorkflowContext

WORKER_ID_ENV = "ADVISE_WORKER_ID"


def iso(t: float) -> str:
    """``t`` (epoch seconds) as an ISO 8601 UTC time to the second."""
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="seconds")


@cache
def this_machine() -> str:
    """Boot id and pid namespace: where the pids of leases with this value can be checked
    (a reboot or another container with the same host name changes it)."""
    parts = []
    with contextlib.suppress(OSError):
        parts.append(Path("/proc/sys/kernel/random/boot_id").read_text("ascii").strip())
    with contextlib.suppress(OSError):
        parts.append(str(os.stat("/proc/self/ns/pid").st_ino))
    return "/".join(parts)


@dataclass(frozen=True)
class Holder:
    """Who holds a lease."""

    host: str
    pid: int
    worker_id: str | None = None
    machine: str = ""

    @classmethod
    def current(cls, worker_id: str | None = None) -> Holder:
        """This process; the worker id defaults to ``$ADVISE_WORKER_ID``."""
        worker_id = worker_id or os.environ.get(WORKER_ID_ENV) or None
        return cls(socket.gethostname(), os.getpid(), worker_id, this_machine())

    def describe(self) -> str:
        worker = f", worker {self.worker_id!r}" if self.worker_id else ""
        return f"pid {self.pid} on {self.host}{worker}"


@dataclass(frozen=True)
class LeaseInfo:
    """A lease as its record says. ``token`` is unique per lease taken; ``version`` names
    the stored record (a file's inode, an object's generation). ``token`` and ``holder``
    are None for a record that cannot be read (or a flock-era lock file: no token)."""

    request_id: str
    token: str | None
    holder: Holder | None
    taken_at: float | None
    ttl_s: float
    expires_at: float
    version: int

    def describe(self) -> str:
        """The holder and the expiry, as LockHeldError shows them."""
        who = self.holder.describe() if self.holder else "holder unknown (unreadable lease)"
        since = f", since {iso(self.taken_at)}" if self.taken_at is not None else ""
        return f"{who}{since}, lease expires {iso(self.expires_at)}"


@runtime_checkable
class RequestLease(Protocol):
    """A held per-request lease; released at the end of the ``with`` block."""

    @property
    def request_id(self) -> str: ...

    def check(self) -> None:
        """Raise LockHeldError if another runner has taken the lease over."""

    def release(self) -> None: ...

    def __enter__(self) -> RequestLease: ...

    def __exit__(self, *exc: object) -> None: ...


@runtime_checkable
class CheckpointBackend(Protocol):
    """Checkpoints (one WorkflowContext per request id) and per-request leases."""

    def save(self, ctx: WorkflowContext) -> int:
        """Write ``ctx`` whole and atomically (maybe in the background); bytes written."""

    def flush(self) -> None:
        """Wait until every save is durable and visible; re-raise a background error."""

    def load(self, request_id: str) -> WorkflowContext | None:
        """The checkpoint, None if there is none; CorruptCheckpointError if unreadable."""

    def exists(self, request_id: str) -> bool: ...

    def ids(self) -> Iterator[str]:
        """Request ids with a checkpoint, sorted; may lag behind recent writes."""

    def summary(self, request_id: str) -> CheckpointSummary | None:
        """A checkpoint's listed fields, read leniently (None if missing or unreadable)."""

    def lock(self, request_id: str) -> RequestLease:
        """Take the request's lease or raise LockHeldError naming the holder."""

    def describe(self, request_id: str) -> str:
        """Where the checkpoint lives, for messages (a path or a URL)."""

    @property
    def bytes_written(self) -> int:
        """Checkpoint bytes saved by this object so far."""

    @property
    def write_ms(self) -> float:
        """Time spent in save and flush, in the caller's thread."""

    @property
    def io_ms(self) -> float:
        """Time spent writing (in a writer thread when saves run in the background)."""

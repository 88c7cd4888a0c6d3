"""The checkpoint store: one ``<state_dir>/<request_id>.json`` per request, and a lock.

Atomicity: a checkpoint is written to an exclusively created temp file with an
unpredictable name in the same directory (``agents.files``), flushed and fsynced, then
``os.replace``-d over the old one and the directory is fsynced, so a reader
(or a run killed with SIGKILL) sees either the previous checkpoint or the new one, never a
half-written file. A file that still cannot be read is moved aside to
``<id>.json.corrupt-<n>`` and reported, never overwritten.

Leases: ``lock(request_id)`` takes the request's lease, ``<id>.lock`` (``pipeline.leases``):
created with an atomic ``link``, so it works on a directory shared over NFS; it names its
holder (host, pid, worker id) and expires unless renewed. A lease left by a killed process
on this host is taken over at once, one from another host once it has expired. While a
store holds a request's lease, ``save`` first checks it is still held (fencing).

``CheckpointStore`` implements ``pipeline.store_api.CheckpointBackend``.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import structlog
from pydantic import ValidationError

from agents.artifacts import REQUEST_ID_PATTERN
from agents.files import atomic_write, ensure_dir, fsync_dir, remove_temps
from pipeline.checkpoint_summary import CheckpointSummary
from pipeline.context import SCHEMA_VERSION, WorkflowContext, utc_now
from pipeline.errors import CheckpointVersionError, CorruptCheckpointError, UnsafeRequestIdError
from pipeline.leases import DEFAULT_TTL_S, Lease, LeaseInfo, Leases

log = structlog.get_logger(__name__)

_ID_RE = re.compile(REQUEST_ID_PATTERN)
# Names the filesystem or our own files treat specially, even though the pattern allows
# them: a request named after a file the batch writes in the output directory would have
# its report replaced by it (tests/test_store_ids_and_locks.py checks the list is whole).
RESERVED_IDS: dict[str, str] = {
    **{name: "a device name on Windows" for name in ("con", "prn", "aux", "nul")},
    "index": "the batch index is out/index.html",
    "batch-summary": "the batch summary is out/batch-summary.jsonl",
    "summaries": "the batch writes its runs' summaries in out/summaries/",
}


def check_request_id(request_id: object) -> str:
    """``request_id`` if it is a safe file name, else UnsafeRequestIdError (no I/O done)."""
    if (
        not isinstance(request_id, str)
        or not _ID_RE.fullmatch(request_id)
        or ".." in request_id
        or request_id.endswith(".")
    ):
        raise UnsafeRequestIdError(request_id)
    why = RESERVED_IDS.get(request_id.lower())
    if why is not None:
        raise UnsafeRequestIdError(request_id, reserved=why)
    return request_id


def dump_context(ctx: WorkflowContext) -> bytes:
    return ctx.model_dump_json().encode("utf-8")


def load_context(data: bytes | str) -> WorkflowContext:
    return WorkflowContext.model_validate_json(data)


class _BackgroundWriter:
    """One thread that writes checkpoints while the next stage runs. A new snapshot waits
    until the previous one is durable, so the file on disk is never more than one stage
    behind: a SIGKILL costs at most the running stage and the one whose write was in
    flight. ``flush`` waits until everything submitted is durable."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._pending: dict[Path, bytes] = {}
        self._busy = False
        self._error: BaseException | None = None
        self.io_ms = 0.0
        self._thread = threading.Thread(target=self._run, name="checkpoint-writer", daemon=True)
        self._thread.start()

    def submit(self, path: Path, data: bytes) -> None:
        with self._cond:
            while self._pending or self._busy:
                self._cond.wait()
            self._raise()
            self._pending[path] = data
            self._cond.notify_all()

    def flush(self) -> None:
        with self._cond:
            while self._pending or self._busy:
                self._cond.wait()
            self._raise()

    def _raise(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._pending:
                    self._cond.wait()
                path = next(iter(self._pending))
                data = self._pending.pop(path)
                self._busy = True
            started = time.perf_counter()
            error: BaseException | None = None
            try:
                atomic_write(path, data)
            except BaseException as exc:  # handed to the thread that submits or flushes next
                error = exc
            with self._cond:
                self.io_ms += (time.perf_counter() - started) * 1000
                self._busy = False
                if error is not None:
                    self._error = error
                self._cond.notify_all()


@dataclass
class CheckpointStore:
    """Checkpoints under ``root``; created on first write.

    With ``background=True`` a save serializes the context and hands the bytes to a
    writer thread (same atomic write), so the fsync latency overlaps the next stage; the
    runner flushes before it writes outputs and before it releases the request's lease.

    ``lease_ttl_s``, ``clock`` (wall-clock seconds) and ``worker_id`` (default
    ``$ADVISE_WORKER_ID``) are the leases' settings (``pipeline.leases.Leases``)."""

    root: Path
    background: bool = False
    lease_ttl_s: float = DEFAULT_TTL_S
    clock: Callable[[], float] = field(default=time.time, compare=False, repr=False)
    worker_id: str | None = None
    bytes_written: int = field(default=0, compare=False)
    write_ms: float = field(default=0.0, compare=False)
    _writer: _BackgroundWriter | None = field(default=None, compare=False, repr=False)
    _leases: Leases | None = field(default=None, compare=False, repr=False)

    def path(self, request_id: str) -> Path:
        return self.root / f"{check_request_id(request_id)}.json"

    def lock_path(self, request_id: str) -> Path:
        return self.leases.path(check_request_id(request_id))

    def describe(self, request_id: str) -> str:
        """The checkpoint's path, for messages."""
        return str(self.path(request_id))

    def exists(self, request_id: str) -> bool:
        return self.path(request_id).exists()

    @property
    def io_ms(self) -> float:
        """Time spent writing files (in the writer thread when in the background)."""
        return self._writer.io_ms if self._writer is not None else self.write_ms

    # ------------------------------------------------------------------ read / write

    def save(self, ctx: WorkflowContext) -> int:
        """Write ``ctx`` atomically (stamping ``updated_at``); returns the bytes written."""
        path = self.path(ctx.request_id)
        lease = self._leases.held(ctx.request_id) if self._leases is not None else None
        if lease is not None:
            lease.check()  # a runner whose lease was taken over must not write any more
        started = time.perf_counter()
        ctx.updated_at = utc_now()
        data = dump_context(ctx)
        ensure_dir(self.root)
        if self.background:
            if self._writer is None:
                self._writer = _BackgroundWriter()
            self._writer.submit(path, data)
        else:
            atomic_write(path, data)
        self.bytes_written += len(data)
        self.write_ms += (time.perf_counter() - started) * 1000
        return len(data)

    def flush(self) -> None:
        """Wait until every save is on disk; re-raises a background write's error."""
        if self._writer is not None:
            started = time.perf_counter()
            self._writer.flush()
            self.write_ms += (time.perf_counter() - started) * 1000

    def load(self, request_id: str) -> WorkflowContext | None:
        """The checkpoint, None if there is none; CorruptCheckpointError if unreadable."""
        path = self.path(request_id)
        self.flush()
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise self._move_aside(path, f"cannot read: {exc.strerror}") from None
        try:
            raw = json.loads(data)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise self._move_aside(path, f"not valid JSON: {exc}") from None
        if not isinstance(raw, dict):
            raise self._move_aside(path, f"expected a JSON object, got {type(raw).__name__}")
        version = raw.get("schema_version")
        if version != SCHEMA_VERSION and isinstance(version, int):
            raise CheckpointVersionError(path, version, SCHEMA_VERSION)
        try:
            ctx = WorkflowContext.model_validate(raw)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise self._move_aside(
                path, f"{exc.error_count()} invalid field(s), first {where}: {first['msg']}"
            ) from None
        if ctx.request_id != request_id:
            raise self._move_aside(path, f"it holds request {ctx.request_id!r}")
        return ctx

    def _move_aside(self, path: Path, reason: str) -> CorruptCheckpointError:
        n = 1
        while True:
            target = path.with_name(f"{path.name}.corrupt-{n}")
            try:
                # link + unlink instead of rename: never clobbers an earlier corrupt copy.
                os.link(path, target)
            except FileExistsError:
                n += 1
                continue
            os.unlink(path)
            break
        fsync_dir(path.parent)
        log.error("checkpoint.corrupt", path=str(path), moved_to=str(target), reason=reason)
        return CorruptCheckpointError(path, target, reason)

    def ids(self) -> Iterator[str]:
        """Request ids with a checkpoint, sorted."""
        if not self.root.is_dir():
            return
        names = sorted(e.name for e in os.scandir(self.root) if e.name.endswith(".json"))
        for name in names:
            rid = name[: -len(".json")]
            if _ID_RE.fullmatch(rid) and ".." not in rid:
                yield rid

    def summary(self, request_id: str) -> CheckpointSummary | None:
        """The checkpoint's few listed fields, read fast and leniently (no full validation,
        nothing moved aside); None if there is none or it is not a JSON object."""
        self.flush()
        try:
            raw = json.loads(self.path(request_id).read_bytes())
        except (OSError, ValueError):
            return None
        if not isinstance(raw, dict):
            return None
        return CheckpointSummary.model_validate({**raw, "request_id": request_id})

    # ------------------------------------------------------------------ locking

    @property
    def leases(self) -> Leases:
        if self._leases is None:
            self._leases = Leases(
                self.root, ttl_s=self.lease_ttl_s, clock=self.clock, worker_id=self.worker_id
            )
        return self._leases

    def lock(self, request_id: str) -> Lease:
        """Take the request's lease or raise LockHeldError naming the holder and when its
        lease expires. Use as a context manager; the lease is renewed until released."""
        rid = check_request_id(request_id)
        lease = self.leases.acquire(rid)
        remove_temps(self.path(rid))  # left by a holder that was killed
        return lease

    def lease_info(self, request_id: str) -> LeaseInfo | None:
        """The request's lease as its file says (holder, expiry), None if there is none."""
        return self.leases.read(check_request_id(request_id))

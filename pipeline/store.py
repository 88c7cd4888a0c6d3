"""The checkpoint store: ``<state_dir>/<request_id>.json``, a journal while a run holds
the request's lease, and the lease.

Files. ``<id>.json`` is the whole checkpoint (``WorkflowContext`` as JSON). While a store
holds the request's lease, a save appends one line to ``<id>.journal`` instead: only the
fields that changed (``pipeline.journal``; its first line is the whole context), written
in the caller's thread and fdatasync'ed (plus the directory's fsync when the journal is
new) - one small append where a save used to rewrite and fsync the whole file, its
directory and a temp file. The save that reaches ``done`` is compacted at once: the line
is appended and fsynced, the whole checkpoint - built from the fragments the lines were
made of, byte for byte ``ctx.model_dump_json()`` - is written atomically as ``<id>.json``
(temp file, fsync, rename, directory fsync; ``agents.files``), then the journal is
removed. Releasing the lease compacts a run that stopped elsewhere (failed, interrupted,
awaiting approval); a journal grown past ``JOURNAL_MIN_REWRITE`` and
``JOURNAL_REWRITE_FACTOR`` times the checkpoint is rewritten as one whole line. Saves made
without the lease (tools, tests) write ``<id>.json`` whole, as before.

Reading. A journal with a complete first line holds the newest state (a ``<id>.json``
beside it is the same or older: it is removed only once the compacted file is durable),
so ``load``, ``summary``, ``ids`` and ``exists`` replay it; with no journal, or none with
a complete line, ``<id>.json`` is read. A reader without the lease sees a run in progress
as it saw the whole file before: the state after the last stage that was saved.

Guarantees. A SIGKILL at any moment leaves the previous or the new state readable: a line
is written whole or not at all from the reader's view (a torn last line - bytes after the
last newline, or a last line that is not JSON - is ignored and logged as
``checkpoint.journal_torn``); lines written survive the process at once (page cache); a
save returns only when its line is durable, so nothing acknowledged is lost to a power
cut either. A write that fails is cut off again and the next line is whole. ``lock``
compacts a journal left by a killed holder (and removes the temporary files it left)
before the new holder starts; a journal that does not replay is moved aside as
``<id>.journal.corrupt-<n>`` by ``load``, as an unreadable ``<id>.json`` is moved to
``<id>.json.corrupt-<n>`` - reported, never overwritten.

Leases: ``lock(request_id)`` takes the request's lease, ``<id>.lock`` (``pipeline.leases``):
created with an atomic ``link``, so it works on a directory shared over NFS; it names its
holder (host, pid, worker id) and expires unless renewed. A lease left by a killed process
on this host is taken over at once, one from another host once it has expired. While a
store holds a request's lease, ``save`` first checks it is still held (fencing), and so
does the compaction at release.

``CheckpointStore`` implements ``pipeline.store_api.CheckpointBackend``.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import structlog
from pydantic import ValidationError

from agents.artifacts import REQUEST_ID_PATTERN
from agents.files import atomic_write, ensure_dir, fsync_dir, remove_temps
from pipeline.checkpoint_summary import CheckpointSummary
from pipeline.context import SCHEMA_VERSION, State, WorkflowContext, utc_now
from pipeline.errors import (
    CheckpointVersionError,
    CorruptCheckpointError,
    LockHeldError,
    UnsafeRequestIdError,
)
from pipeline.journal import HeldLease, JournalCorrupt, JournalFile, read_journal, recover
from pipeline.leases import DEFAULT_TTL_S, LeaseInfo, Leases

log = structlog.get_logger(__name__)

JOURNAL_SUFFIX = ".journal"
# A journal is rewritten as one full line once it is this big and this many times the
# checkpoint (LLM calls each add a line carrying the whole ledger).
JOURNAL_MIN_REWRITE = 256 * 1024
JOURNAL_REWRITE_FACTOR = 4

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


@dataclass
class CheckpointStore:
    """Checkpoints under ``root``; created on first write.

    With ``background=True`` a whole-file save (no lease held) is written by a writer
    thread while the caller goes on; ``flush`` waits for it. A journal line is written
    and fsynced in the caller's thread either way.

    ``lease_ttl_s``, ``clock`` (wall-clock seconds) and ``worker_id`` (default
    ``$ADVISE_WORKER_ID``) are the leases' settings (``pipeline.leases.Leases``)."""

    root: Path
    background: bool = False
    lease_ttl_s: float = DEFAULT_TTL_S
    clock: Callable[[], float] = field(default=time.time, compare=False, repr=False)
    worker_id: str | None = None
    bytes_written: int = field(default=0, compare=False)
    write_ms: float = field(default=0.0, compare=False)
    _pool: ThreadPoolExecutor | None = field(default=None, compare=False, repr=False)
    _pending: Future[None] | None = field(default=None, compare=False, repr=False)
    _io_ms: float = field(default=0.0, compare=False, repr=False)
    _leases: Leases | None = field(default=None, compare=False, repr=False)
    _journals: dict[str, JournalFile] = field(default_factory=dict, compare=False, repr=False)

    def path(self, request_id: str) -> Path:
        return self.root / f"{check_request_id(request_id)}.json"

    def journal_path(self, request_id: str) -> Path:
        return self.root / f"{check_request_id(request_id)}{JOURNAL_SUFFIX}"

    def lock_path(self, request_id: str) -> Path:
        return self.leases.path(check_request_id(request_id))

    def describe(self, request_id: str) -> str:
        """The checkpoint's path, for messages."""
        return str(self.path(request_id))

    def exists(self, request_id: str) -> bool:
        return self.path(request_id).exists() or self.journal_path(request_id).exists()

    @property
    def io_ms(self) -> float:
        """Time spent writing files (in the writer thread when in the background)."""
        return self._io_ms if self._pool is not None else self.write_ms

    # ------------------------------------------------------------------ write

    def save(self, ctx: WorkflowContext) -> int:
        """Checkpoint ``ctx`` (stamping ``updated_at``); returns the bytes written. Under
        the request's lease: a journal line; else the whole file, atomically."""
        lease = self._leases.held(ctx.request_id) if self._leases is not None else None
        if lease is not None:
            lease.check()  # a runner whose lease was taken over must not write any more
        started = time.perf_counter()
        ctx.updated_at = utc_now()
        if lease is not None:
            size = self._append(ctx)
        else:
            path = self.path(ctx.request_id)
            data = dump_context(ctx)
            ensure_dir(self.root)
            self._run(partial(atomic_write, path, data))
            size = len(data)
        self.bytes_written += size
        self.write_ms += (time.perf_counter() - started) * 1000
        return size

    def _run(self, job: Callable[[], None]) -> None:
        """Run ``job`` now, or in the writer thread once the job before it is done (so the
        file is never more than one save behind; its error is raised by the next)."""
        if not self.background:
            job()
            return
        self.flush()
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="checkpoint-writer")
        self._pending = self._pool.submit(self._timed, job)

    def _timed(self, job: Callable[[], None]) -> None:
        started = time.perf_counter()
        try:
            job()
        finally:
            self._io_ms += (time.perf_counter() - started) * 1000

    def _append(self, ctx: WorkflowContext) -> int:
        # In this thread, even with ``background``: a small append and its fsync cost less
        # than handing them to a thread that must get the GIL back (eval.bench_orchestration).
        rid = ctx.request_id
        journal = self._journals.get(rid)
        if journal is None:
            journal = self._journals[rid] = self._open_journal(rid)
        before = journal.append(ctx)
        size = journal.size - before
        journal.sync(before)  # a failure cuts the line off again; the next line is full
        if ctx.state is State.done:  # finished: compacted into <id>.json at once
            del self._journals[rid]
            try:
                size += journal.compact(self.path(rid))
            finally:
                journal.close()
        else:
            bound = max(JOURNAL_MIN_REWRITE, JOURNAL_REWRITE_FACTOR * journal.tracker.size())
            if journal.size > bound:
                journal.rewrite()
        return size

    def _open_journal(self, rid: str) -> JournalFile:
        path = self.journal_path(rid)
        try:
            return JournalFile.create(path)
        except FileExistsError:
            pass
        # Left behind (a compaction that failed, a holder killed since lock()): compact it
        # if it replays, else keep it aside for inspection; the new journal supersedes it.
        recover(path, self.path(rid), rid)
        if path.exists():
            self._move_aside(path, "left by an earlier run, not replayable")
        return JournalFile.create(path)

    def flush(self) -> None:
        """Wait until every save is on disk; re-raises a background write's error."""
        pending, self._pending = self._pending, None
        if pending is not None:
            started = time.perf_counter()
            try:
                pending.result()
            finally:
                self.write_ms += (time.perf_counter() - started) * 1000

    def end_journal(self, request_id: str) -> None:
        """End the request's journal: flush, then compact it into ``<id>.json`` - unless a
        write failed (the file on disk is the truth: the next ``lock`` compacts it) or
        the lease was lost (the next holder's). Called when the lease is released."""
        journal = self._journals.pop(request_id, None)
        try:
            self.flush()
        finally:
            if journal is not None:
                try:
                    if journal.tracker.complete and self._holds(request_id):
                        started = time.perf_counter()
                        self.bytes_written += journal.compact(self.path(request_id))
                        self.write_ms += (time.perf_counter() - started) * 1000
                finally:
                    journal.close()

    def _holds(self, request_id: str) -> bool:
        lease = self._leases.held(request_id) if self._leases is not None else None
        try:
            if lease is not None:
                lease.check()
        except LockHeldError:
            return False
        return lease is not None

    # ------------------------------------------------------------------ read

    def load(self, request_id: str) -> WorkflowContext | None:
        """The checkpoint, None if there is none; CorruptCheckpointError if unreadable."""
        self.flush()
        found = self._read(request_id, strict=True)
        if found is None:
            return None
        path, raw = found
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

    def _read(self, request_id: str, *, strict: bool) -> tuple[Path, dict[str, Any]] | None:
        """The checkpoint's JSON object and the file it came from: the journal's replay
        when there is one with a complete full line, else ``<id>.json``. ``strict``: an
        unreadable file is moved aside (CorruptCheckpointError), else it reads as None."""
        journal, path = self.journal_path(request_id), self.path(request_id)
        try:
            replayed = read_journal(journal)
            if replayed is not None and replayed.raw is not None:
                return journal, replayed.raw
        except (OSError, JournalCorrupt) as exc:
            if strict:
                reason = f"cannot read: {exc.strerror}" if isinstance(exc, OSError) else str(exc)
                raise self._move_aside(journal, reason) from None
        try:
            raw = json.loads(path.read_bytes())
        except FileNotFoundError:
            return None
        except OSError as exc:
            reason = f"cannot read: {exc.strerror}"
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            reason = f"not valid JSON: {exc}"
        else:
            if isinstance(raw, dict):
                return path, raw
            reason = f"expected a JSON object, got {type(raw).__name__}"
        if strict:
            raise self._move_aside(path, reason)
        return None

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
        """Request ids with a checkpoint (or a journal: a first run under way), sorted."""
        if not self.root.is_dir():
            return
        found = set()
        for entry in os.scandir(self.root):
            stem, dot, suffix = entry.name.rpartition(".")
            if dot and f".{suffix}" in (".json", JOURNAL_SUFFIX):
                found.add(stem)
        for rid in sorted(found):
            if _ID_RE.fullmatch(rid) and ".." not in rid:
                yield rid

    def summary(self, request_id: str) -> CheckpointSummary | None:
        """The checkpoint's few listed fields, read fast and leniently (no full validation,
        nothing moved aside); None if there is none or it is not a JSON object."""
        self.flush()
        found = self._read(request_id, strict=False)
        if found is None:
            return None
        return CheckpointSummary.model_validate({**found[1], "request_id": request_id})

    # ------------------------------------------------------------------ locking

    @property
    def leases(self) -> Leases:
        if self._leases is None:
            self._leases = Leases(
                self.root, ttl_s=self.lease_ttl_s, clock=self.clock, worker_id=self.worker_id
            )
        return self._leases

    def lock(self, request_id: str) -> HeldLease:
        """Take the request's lease or raise LockHeldError naming the holder and when its
        lease expires. Use as a context manager; the lease is renewed until released, and
        releasing it compacts the journal. A journal a killed holder left is compacted
        first (with the temporary files it left)."""
        rid = check_request_id(request_id)
        left = os.path.lexists(self.leases.path(rid))  # a holder that never released: killed?
        lease = self.leases.acquire(rid)
        try:
            self._recover(rid, left)
        except BaseException:
            lease.release()
            raise
        return HeldLease(self, lease)

    def _recover(self, rid: str, left: bool) -> None:
        journal = self.journal_path(rid)
        if not left and not journal.exists():
            return  # no temp file either: only compactions and killed holders leave them
        remove_temps(self.path(rid))
        remove_temps(journal)
        recover(journal, self.path(rid), rid)

    def lease_info(self, request_id: str) -> LeaseInfo | None:
        """The request's lease as its file says (holder, expiry), None if there is none."""
        return self.leases.read(check_request_id(request_id))

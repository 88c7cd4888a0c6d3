"""A request's checkpoint journal, ``<state_dir>/<request_id>.journal`` (``pipeline.store``).

While a runner holds a request's lease, each checkpoint is one line appended to the
journal instead of the whole context rewritten: only the fields that changed since the
line before. A line is ``{"seq": <n>, "set": {<field>: <value>, ...}}`` and ends with
``\\n``; values are the fields exactly as the full checkpoint holds them (the same
serializer), so replaying the lines - a ``dict.update`` of each ``set`` in order - gives
the checkpoint's JSON object. A line with ``seq`` 0 is *full*: it sets every field and
starts the state afresh. The first line of a journal is full, so a journal alone holds
the whole state; each later line has the seq of the one before plus one.

Replay (``replay``) ignores a torn last line - bytes after the last newline, or a last
line that is not JSON, which only an interrupted write leaves - and says so. A bad line
anywhere else, a seq out of order or a journal that does not start with a full line is
corruption (``JournalCorrupt``).

What changed is found without serializing the whole context again: the artifacts
(request, intake, proposal, the per-round lists, recommendation) and the frozen run
configuration are compared by object identity - a stage stores a new artifact, it never
mutates one already stored (``tests/test_store_journal.py`` checks it on the real
stages) - so each is serialized once; scalars (state, round, timestamps) and empty lists
are compared by value; the rest (timings, attempts, negotiation, ledger) is serialized
at every line and compared with the last line's bytes. ``Tracker.whole`` joins the last
fragment of every field into the full checkpoint, byte for byte what
``ctx.model_dump_json()`` gives.

``JournalFile`` writes a journal, ``read_journal`` and ``recover`` read one back, and
``HeldLease`` ends the journal when the request's lease is released.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any, Final, Protocol

import structlog
from pydantic import TypeAdapter, ValidationError

from agents.errors import StorageError
from agents.files import append_line, atomic_write, fsync_dir, open_append, storage_error
from pipeline.context import SCHEMA_VERSION, WorkflowContext
from pipeline.leases import Lease

FIELDS: Final = tuple(WorkflowContext.model_fields)
# Compared by identity: the artifacts (replaced, never mutated once stored) and the run's
# configuration (a frozen model of scalars).
_PER_ROUND: Final = frozenset({"schedules", "critiques", "refinements"})
TRACKED: Final = _PER_ROUND | {"request", "intake", "proposal", "recommendation", "config"}
_SCALARS: Final = (str, int, float, bool, type(None), Enum, datetime)

log = structlog.get_logger(__name__)


class JournalCorrupt(ValueError):
    """A journal that cannot be replayed; the message says where and why."""


@cache
def _adapter(name: str) -> TypeAdapter[Any]:
    # The field's own type: it serializes a value as the model does (checked by
    # tests/test_store_journal.py), without the cost of an ``include`` filter per call.
    annotation: Any = WorkflowContext.model_fields[name].annotation
    return TypeAdapter(annotation)


@cache
def _dumper(name: str) -> tuple[bytes, Callable[[Any], bytes]]:
    # ``"<name>":`` and the type's own serializer: ``TypeAdapter.dump_json`` passes the same
    # defaults through a Python call that costs as much as a small field's JSON.
    return b'"%b":' % name.encode(), _adapter(name).serializer.to_json


def fragment(name: str, value: object) -> bytes:
    """``"<name>":<value>`` exactly as in ``ctx.model_dump_json()`` for the field's value."""
    prefix, dump = _dumper(name)
    return prefix + dump(value)


def _key(name: str, value: object) -> tuple[bool, object] | None:
    """What identifies ``value``'s serialization without serializing it: (True, the
    objects) for an artifact - the same objects serialize the same; (False, type and
    value) for an immutable scalar or an empty list or dict - equal ones do. None:
    serialize it to know."""
    if name in TRACKED:
        return True, tuple(value) if isinstance(value, list) else value
    if isinstance(value, datetime):
        return False, (datetime, value, value.utcoffset())
    if isinstance(value, _SCALARS):
        return False, (type(value), value)
    if isinstance(value, list | dict) and not value:  # no errors, no approvals yet
        return False, (type(value), 0)
    return None


_UNSEEN: Final = object()
_ONE_ARTIFACT: Final = TRACKED - _PER_ROUND


def _remember(seen: dict[str, object], name: str, value: object) -> None:
    """Being the same object is enough for a stored artifact (never mutated) or an
    immutable scalar to be unchanged: keep it to compare with the next time."""
    if name in _ONE_ARTIFACT or isinstance(value, _SCALARS):
        seen[name] = value
    else:
        seen.pop(name, None)  # a list or dict: the same object may hold other values now


def _unchanged(key: tuple[bool, object], old: tuple[bool, object]) -> bool:
    (by_identity, value), (old_by_identity, old_value) = key, old
    if by_identity != old_by_identity:
        return False
    if not by_identity:
        return value == old_value
    if isinstance(value, tuple):  # a per-round list: the same objects in the same order
        return (isinstance(old_value, tuple) and len(old_value) == len(value)
                and all(a is b for a, b in zip(value, old_value, strict=True)))  # fmt: skip
    return value is old_value


@dataclass
class Tracker:
    """What the journal holds: the last fragment of every field, and what identified the
    value each was made from. Empty until the first (full) line."""

    fragments: dict[str, bytes] = field(default_factory=dict)
    keys: dict[str, tuple[bool, object]] = field(default_factory=dict)
    seen: dict[str, object] = field(default_factory=dict)  # artifacts and scalars: _remember

    @property
    def complete(self) -> bool:
        return len(self.fragments) == len(FIELDS)

    def reset(self) -> None:
        """Forget everything: the next line is full (after a write that failed)."""
        self.fragments.clear()
        self.keys.clear()
        self.seen.clear()

    def changes(self, ctx: WorkflowContext) -> list[str]:
        """The fields of ``ctx`` that differ from the last line's (every field the first
        time), in checkpoint order; their fragments become the current ones. Artifacts
        are the same when they are the same objects, scalars when they are equal; the
        rest (lists of records, dicts, the ledger) is serialized and compared."""
        changed = []
        fragments, keys, seen = self.fragments, self.keys, self.seen
        for name in FIELDS:
            value = getattr(ctx, name)
            if value is seen.get(name, _UNSEEN):  # an artifact or an immutable scalar
                continue
            key, old = _key(name, value), keys.get(name)
            _remember(seen, name, value)
            if key is not None and old is not None and _unchanged(key, old):
                continue
            if key is None:
                keys.pop(name, None)
            else:
                keys[name] = key
            data = fragment(name, value)
            if fragments.get(name) != data:
                fragments[name] = data
                changed.append(name)
        return changed

    def line(self, seq: int, names: list[str]) -> bytes:
        body = b",".join(self.fragments[name] for name in names)
        return b'{"seq":%d,"set":{%b}}\n' % (seq, body)

    def full_line(self) -> bytes:
        return self.line(0, list(FIELDS))

    def whole(self) -> bytes:
        """The full checkpoint, as ``dump_context`` would write it."""
        return b"{" + b",".join(self.fragments[name] for name in FIELDS) + b"}"

    def size(self) -> int:
        return sum(map(len, self.fragments.values())) + len(FIELDS) + 1


@dataclass(frozen=True)
class Replayed:
    """A journal read back: the checkpoint's JSON object (None when no full line is
    complete), the lines applied, and the bytes of a torn last line that were ignored."""

    raw: dict[str, Any] | None
    lines: int
    torn_bytes: int


def _parse(line: bytes) -> tuple[int, dict[str, Any]]:
    obj = json.loads(line)
    if not isinstance(obj, dict):
        raise ValueError(f"expected a JSON object, got {type(obj).__name__}")
    seq, values = obj.get("seq"), obj.get("set")
    if type(seq) is not int or seq < 0 or not isinstance(values, dict):
        raise ValueError('expected {"seq": <int >= 0>, "set": {...}}')
    return seq, values


def replay(data: bytes) -> Replayed:
    """Apply the journal's lines in order (module docstring); JournalCorrupt if a line
    other than the last cannot be read or the seqs are out of order."""
    *lines, tail = data.split(b"\n")
    torn = len(tail)
    raw: dict[str, Any] | None = None
    last = -1
    for number, line in enumerate(lines, start=1):
        try:
            seq, values = _parse(line)
        except (ValueError, UnicodeDecodeError) as exc:
            if number == len(lines) and not tail:  # the last line: an interrupted write
                torn = len(line) + 1
                lines.pop()
                break
            raise JournalCorrupt(f"line {number} is not a journal line: {exc}") from None
        if seq == 0:
            missing = [name for name in FIELDS if name not in values]
            if missing and values.get("schema_version") == SCHEMA_VERSION:  # else: version error
                raise JournalCorrupt(f"line {number} is full (seq 0) but lacks {missing[0]!r}")
            raw = dict(values)
        elif raw is None:
            raise JournalCorrupt(f"line {number} (seq {seq}) comes before any full line")
        elif seq != last + 1:
            raise JournalCorrupt(f"line {number} has seq {seq}, expected {last + 1}")
        else:
            raw.update(values)
        last = seq
    return Replayed(raw=raw, lines=len(lines), torn_bytes=torn)


def read_journal(path: Path) -> Replayed | None:
    """``path`` replayed, None if there is no such file; a torn last line is logged."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    replayed = replay(data)
    if replayed.torn_bytes:
        log.warning("checkpoint.journal_torn", path=str(path), lines=replayed.lines,
                    ignored_bytes=replayed.torn_bytes)  # fmt: skip
    return replayed


def recover(path: Path, target: Path, request_id: str) -> None:
    """Compact the journal a killed holder left at ``path`` into ``target`` (the caller
    holds the lease). One that cannot be replayed is left for ``load`` to report."""
    try:
        replayed = read_journal(path)
    except (OSError, JournalCorrupt):
        return
    if replayed is None:
        return
    if replayed.raw is None:
        os.unlink(path)  # not one complete line: no save was acknowledged
        return
    try:
        ctx = WorkflowContext.model_validate(replayed.raw)
    except ValidationError:
        return
    if ctx.request_id == request_id:
        atomic_write(target, ctx.model_dump_json().encode("utf-8"))
        os.unlink(path)
        log.info("checkpoint.journal_compacted", request_id=request_id, lines=replayed.lines)


def _datasync(fd: int) -> None:
    # Looked up at call time (a benchmark can stub them); fdatasync where the OS has it.
    getattr(os, "fdatasync", os.fsync)(fd)


class JournalFile:
    """An open journal, appended to by the lease holder only. ``append`` writes a line in
    the caller's thread (in the page cache: it survives a SIGKILL of the process at once);
    ``sync`` makes it durable (and the journal's name, the first time). A write that fails
    is cut off again and the next line is full, so the file never holds a line that was
    not acknowledged followed by more."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self.fd = fd
        self.new = True  # its directory entry is not durable yet
        self.seq = -1
        self.size = 0
        self.tracker = Tracker()

    @classmethod
    def create(cls, path: Path) -> JournalFile:
        """A new, empty journal; FileExistsError if there is one already."""
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            return cls(path, os.open(path, flags, 0o666))
        except FileExistsError:
            raise
        except OSError as exc:
            raise storage_error(path, exc) from None

    def append(self, ctx: WorkflowContext) -> int:
        """Write ``ctx``'s changes as one line (a full one first); the size before it."""
        if self.tracker.complete:
            names, seq = self.tracker.changes(ctx), self.seq + 1
        else:
            self.tracker.changes(ctx)
            names, seq = list(FIELDS), 0
        line = self.tracker.line(seq, names)
        before = self.size
        try:
            append_line(self.fd, self.path, line)  # a short write is cut off again
        except BaseException:
            self.tracker.reset()
            raise
        self.size, self.seq = before + len(line), seq
        return before

    def sync(self, before: int) -> None:
        """Make everything appended durable; on failure cut the file back to ``before``."""
        try:
            _datasync(self.fd)
            if self.new:
                fsync_dir(self.path.parent)
                self.new = False
        except (OSError, StorageError) as exc:
            self.tracker.reset()
            with contextlib.suppress(OSError):
                os.ftruncate(self.fd, before)
            self.size = before
            raise exc if isinstance(exc, StorageError) else storage_error(self.path, exc) from None

    def rewrite(self) -> None:
        """Replace the journal by one full line (it grew past its bound)."""
        line = self.tracker.full_line()
        atomic_write(self.path, line)
        old, self.fd = self.fd, open_append(self.path)
        os.close(old)
        self.size, self.seq, self.new = len(line), 0, False

    def compact(self, target: Path) -> int:
        """Write the full checkpoint to ``target`` atomically, then remove the journal (no
        directory fsync needed: a journal that survives holds the same state); bytes."""
        data = self.tracker.whole()
        atomic_write(target, data)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        self.close()
        return len(data)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


class _Ends(Protocol):
    def end_journal(self, request_id: str) -> None: ...


class HeldLease:
    """A request's lease as ``CheckpointStore.lock`` hands it out: a journal lives as long
    as the lease, so releasing it first compacts the request's journal into
    ``<id>.json`` (``CheckpointStore.end_journal``). Other attributes are the lease's
    (``pipeline.leases.Lease``)."""

    def __init__(self, store: _Ends, lease: Lease) -> None:
        self.store = store
        self.lease = lease

    @property
    def request_id(self) -> str:
        return self.lease.request_id

    def __getattr__(self, name: str) -> object:
        return getattr(self.lease, name)

    def check(self) -> None:
        self.lease.check()

    def release(self) -> None:
        try:
            self.store.end_journal(self.lease.request_id)
        finally:
            self.lease.release()

    def __enter__(self) -> HeldLease:
        return self

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        if kind is None:
            self.release()
            return
        try:  # an error already on its way is the one to report
            self.release()
        except Exception as error:
            log.error("checkpoint.end_journal_failed", request_id=self.request_id, error=str(error))

"""Atomic, exclusive, symlink-refusing writes.

A file is replaced by writing a temporary file created with ``O_CREAT|O_EXCL|O_NOFOLLOW``
under an unpredictable name in the same directory (``tempfile.mkstemp``), fsyncing it
and renaming it over the target; the directory is then fsynced. Nobody who can write to a
shared directory can make the runner write elsewhere: there is no fixed temporary name to
plant a link at, and a target that is itself a symbolic link is refused
(``UnsafePathError``), never written through. Every ``OSError`` on the way becomes a
``StorageError`` naming the path and the reason (no space, read-only, permission), and no
temporary file is left behind.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import tempfile
from pathlib import Path

from agents.errors import StorageError, UnsafePathError

TEMP_SUFFIX = ".tmp"
# tempfile's random part: 8 characters of this alphabet (tempfile._RandomNameSequence).
_RANDOM = r"[a-z0-9_]{8}"

_REASONS = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.ENOTDIR: "a part of the path is not a directory",
    errno.EISDIR: "it is a directory",
}


def _umask() -> int:
    """The process's umask, read without changing it (``os.umask`` would, for a moment,
    for every thread)."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status", "rb") as f:
        for line in f:
            if line.startswith(b"Umask:"):
                return int(line.split()[1], 8)
    old = os.umask(0o022)
    os.umask(old)
    return old


_FILE_MODE = 0o666 & ~_umask()


def storage_error(path: str | Path, exc: OSError) -> StorageError:
    """``exc`` (raised while writing ``path``) as the error a user can act on."""
    if exc.errno == errno.ELOOP:
        return UnsafePathError(path)
    if exc.errno == errno.ENOENT:
        return StorageError(path, "its directory does not exist", "create it, or choose "
                            "another path")  # fmt: skip
    reason = _REASONS.get(exc.errno or 0) or exc.strerror or str(exc)
    return StorageError(path, reason)


def check_target(path: Path) -> None:
    """Refuse a target that is a symbolic link or a directory (nothing written)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise storage_error(path, exc) from None
    if stat.S_ISLNK(st.st_mode):
        raise UnsafePathError(path)
    if stat.S_ISDIR(st.st_mode):
        raise StorageError(path, "it is a directory", "remove it or choose another name")


def _write_temp(path: Path, data: bytes, mode: int) -> Path:
    """A new temporary file beside ``path`` holding ``data``, durable on disk."""
    try:
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMP_SUFFIX)
    except OSError as exc:
        raise storage_error(path.parent, exc) from None
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise storage_error(path, exc) from None
        raise
    return tmp


def atomic_write(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` so that readers never see a partial file."""
    atomic_write_many({path: data}, mode=mode)


def atomic_write_text(path: Path, text: str, *, mode: int | None = None) -> None:
    """``atomic_write`` of ``text`` as UTF-8."""
    atomic_write_many({path: text.encode("utf-8")}, mode=mode)


def atomic_write_many(files: dict[Path, bytes], *, mode: int | None = None) -> None:
    """Replace each file atomically; one directory fsync per directory for the lot. Every
    target is checked before anything is written, so a refused one leaves all as they
    were. ``mode``: the new files' permissions (default: what the umask allows)."""
    for path in files:
        check_target(path)
    written: list[tuple[Path, Path]] = []
    try:
        for path, data in files.items():
            written.append((_write_temp(path, data, _FILE_MODE if mode is None else mode), path))
        for tmp, path in written:
            try:
                os.replace(tmp, path)  # a rename: never follows a link planted meanwhile
            except OSError as exc:
                raise storage_error(path, exc) from None
    except BaseException:
        for tmp, _ in written:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
    for directory in {path.parent for path in files}:
        fsync_dir(directory)


def fsync_dir(directory: Path) -> None:
    """Make renames in ``directory`` durable."""
    try:
        dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise storage_error(directory, exc) from None
    try:
        os.fsync(dfd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP):  # filesystems without dir fsync
            raise storage_error(directory, exc) from None
    finally:
        os.close(dfd)


def remove_temps(path: Path) -> int:
    """Remove the temporary files a killed writer of ``path`` left (only its own: the
    exact ``.<name>.<random>.tmp`` shape); returns how many. Call it while holding what
    makes you ``path``'s only writer (a request's lease)."""
    pattern = re.compile(re.escape(f".{path.name}.") + _RANDOM + re.escape(TEMP_SUFFIX))
    removed = 0
    with contextlib.suppress(OSError), os.scandir(path.parent) as entries:
        for entry in entries:
            if pattern.fullmatch(entry.name):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)
                    removed += 1
    return removed


def open_append(path: Path) -> int:
    """A descriptor appending to ``path`` (created if missing), refusing a symbolic link."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(path, flags, 0o666)
    except OSError as exc:
        raise storage_error(path, exc) from None


def append_line(fd: int, path: Path, line: bytes) -> None:
    """Append ``line`` whole or not at all: a write cut short (disk full) is truncated
    away, so a reader never sees a torn line."""
    try:
        size = os.fstat(fd).st_size
    except OSError as exc:
        raise storage_error(path, exc) from None
    view = memoryview(line)
    try:
        while view:
            view = view[os.write(fd, view) :]
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, size)
        raise storage_error(path, exc) from None


def create_exclusive(path: Path, data: bytes, *, mtime_ns: int | None = None) -> None:
    """Create ``path`` holding ``data``; it must not exist (a link planted there counts).
    On any failure nothing is left behind."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        raise storage_error(path, exc) from None
    try:
        try:
            os.write(fd, data)
            if mtime_ns is not None:
                os.utime(fd, ns=(mtime_ns, mtime_ns))
        finally:
            os.close(fd)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise storage_error(path, exc) from None


def open_nofollow(path: Path, flags: int = os.O_RDONLY) -> int:
    """``os.open`` that refuses a symbolic link (``UnsafePathError``); a missing file is
    still ``FileNotFoundError``, other failures ``StorageError``."""
    try:
        return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise storage_error(path, exc) from None


def ensure_dir(directory: Path) -> Path:
    """Create ``directory`` (and its parents) if missing; StorageError if it cannot be."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise storage_error(directory, exc) from None
    return directory


def check_writable(directory: Path) -> None:
    """Fail now, naming ``directory``, if a file cannot be created and written there (a
    read-only mount, no permission, no space left): a probe file is created exclusively,
    written, fsynced and removed."""
    ensure_dir(directory)
    try:
        fd, name = tempfile.mkstemp(dir=directory, prefix=".write-probe.", suffix=TEMP_SUFFIX)
    except OSError as exc:
        raise storage_error(directory, exc) from None
    try:
        os.write(fd, b"\n")
        os.fsync(fd)
    except OSError as exc:
        raise storage_error(directory, exc) from None
    finally:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(name)

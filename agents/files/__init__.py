"""Files written safely: every write goes through an exclusively created temporary file
with an unpredictable name in the target's directory, is fsynced and renamed into place;
a target that is a symbolic link is refused, never written through; a full, read-only or
forbidden directory is a ``StorageError`` naming the path, with no temporary file left.
"""

from agents.files.atomic import (
    append_line,
    atomic_write,
    atomic_write_many,
    atomic_write_text,
    check_target,
    check_writable,
    create_exclusive,
    ensure_dir,
    fsync_dir,
    open_append,
    open_nofollow,
    remove_temps,
    storage_error,
)

__all__ = [
    "append_line",
    "atomic_write",
    "atomic_write_many",
    "atomic_write_text",
    "check_target",
    "check_writable",
    "create_exclusive",
    "ensure_dir",
    "fsync_dir",
    "open_append",
    "open_nofollow",
    "remove_temps",
    "storage_error",
]

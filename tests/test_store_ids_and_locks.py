"""The checkpoint store's request ids and locks: unsafe and reserved ids are rejected before
touching the filesystem, and a held per-request lock names its holder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pipeline.errors import LockHeldError, UnsafeRequestIdError
from pipeline.store import RESERVED_IDS, CheckpointStore, check_request_id


@pytest.mark.parametrize(
    "bad", ["../etc/passwd", "a/b", "..", ".hidden", "x..y", "", "trailing.", "a b"]
)
def test_unsafe_request_id_is_rejected_before_touching_the_filesystem(
    tmp_path: Path, bad: str
) -> None:
    store = CheckpointStore(tmp_path / "state")
    with pytest.raises(UnsafeRequestIdError) as err:
        store.lock(bad)
    assert str(err.value) == (
        f"unsafe request id {bad!r}: use 1-128 letters, digits, '.', '_' or '-', "
        "starting with a letter or digit, and no '..'"
    )
    assert not (tmp_path / "state").exists()


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ("con", "a device name on Windows"),
        ("CON", "a device name on Windows"),
        ("batch-summary", "the batch summary is out/batch-summary.jsonl"),
        ("index", "the batch index is out/index.html"),
        ("Index", "the batch index is out/index.html"),
    ],
)
def test_reserved_request_id_is_rejected_with_its_reason(
    tmp_path: Path, bad: str, why: str
) -> None:
    store = CheckpointStore(tmp_path / "state")
    with pytest.raises(UnsafeRequestIdError) as err:
        store.lock(bad)
    assert str(err.value) == (
        f"unsafe request id {bad!r}: {bad!r} is a reserved file name ({why}); choose another id"
    )
    assert not (tmp_path / "state").exists()


def test_every_name_the_batch_writes_in_the_output_directory_is_a_reserved_id() -> None:
    from pipeline.index import INDEX_NAME
    from pipeline.summaries import MERGED_NAME, RUNS_DIR

    batch_files = {INDEX_NAME, MERGED_NAME, RUNS_DIR}
    stems = {name.split(".", 1)[0] for name in batch_files}
    assert stems <= RESERVED_IDS.keys()


def test_safe_request_ids_pass() -> None:
    assert check_request_id("is-junior_cs.minor-2") == "is-junior_cs.minor-2"


def test_lock_held_names_the_holder(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path, clock=lambda: 1_700_000_000.0)
    with store.lock("r1"):
        holder = json.loads((tmp_path / "r1.lock").read_text(encoding="utf-8"))
        assert holder["pid"] == os.getpid()
        with pytest.raises(LockHeldError) as err:
            store.lock("r1")
        assert str(err.value) == (
            f"request 'r1' is being worked by another runner (pid {holder['pid']} on "
            f"{holder['host']}, since 2023-11-14T22:13:20+00:00, lease expires "
            "2023-11-14T22:14:20+00:00); wait for it to finish, or stop it - "
            f"the lock {str(tmp_path / 'r1.lock')!r} frees when it exits (a "
            "runner on another host that stopped: when its lease expires)"
        )
    with store.lock("r1"):  # released: free again
        pass

"""The checkpoint store's writes are atomic: a failed write leaves the previous checkpoint and
no temporary file; background saves keep the newest, flush makes them durable and surfaces
write errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agents.errors import StorageError
from pipeline.store import CheckpointStore, load_context
from tests.store_helpers import _ctx


def test_failed_write_leaves_the_previous_checkpoint_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = CheckpointStore(tmp_path)
    ctx = _ctx()
    store.save(ctx)
    before = (tmp_path / "r1.json").read_bytes()

    def broken_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    ctx.round = 2
    with pytest.raises(StorageError, match="no space left on the device"):
        store.save(ctx)
    assert (tmp_path / "r1.json").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r1.json"]


def test_background_saves_keep_the_newest_and_flush_makes_them_durable(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path, background=True)
    ctx = _ctx()
    for round_ in (1, 2, 3):
        ctx.round = round_
        store.save(ctx)
    store.flush()
    assert load_context((tmp_path / "r1.json").read_bytes()) == ctx
    assert store.load("r1") == ctx


def test_background_write_error_surfaces_on_flush(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = CheckpointStore(tmp_path, background=True)

    def broken_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    store.save(_ctx())
    with pytest.raises(StorageError, match="no space left on the device"):
        store.flush()
    assert list(tmp_path.iterdir()) == []

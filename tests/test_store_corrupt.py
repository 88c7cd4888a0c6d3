"""The checkpoint store and bad files: corrupt checkpoints (not JSON, or failing the model) are
reported and moved aside; one from another schema version is left in place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.errors import CheckpointVersionError, CorruptCheckpointError
from pipeline.store import CheckpointStore, dump_context
from tests.store_helpers import _ctx


def test_corrupt_checkpoint_is_reported_and_moved_aside(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    path = tmp_path / "r1.json"
    path.write_text('{"schema_version": 1, "request_id": "r1", "sta', encoding="utf-8")
    with pytest.raises(CorruptCheckpointError) as err:
        store.load("r1")
    assert str(err.value) == (
        f"checkpoint {str(path)!r} is corrupt (not valid JSON: Unterminated string starting "
        f"at: line 1 column 43 (char 42)); moved it aside to {str(path) + '.corrupt-1'!r} - "
        "rerun to start the request from the beginning"
    )
    assert not path.exists()
    assert (tmp_path / "r1.json.corrupt-1").read_text(encoding="utf-8").endswith('"sta')

    path.write_text("[]", encoding="utf-8")  # a second corrupt copy never clobbers the first
    with pytest.raises(CorruptCheckpointError) as err:
        store.load("r1")
    assert err.value.moved_to == tmp_path / "r1.json.corrupt-2"
    assert store.load("r1") is None


def test_checkpoint_failing_the_model_is_corrupt(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    raw = json.loads(dump_context(_ctx()))
    raw["round"] = 0
    (tmp_path / "r1.json").write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(CorruptCheckpointError) as err:
        store.load("r1")
    assert (
        err.value.reason
        == "1 invalid field(s), first round: Input should be greater than or equal to 1"
    )


def test_checkpoint_from_another_schema_version_is_left_in_place(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    (tmp_path / "r1.json").write_text('{"schema_version": 2}', encoding="utf-8")
    with pytest.raises(CheckpointVersionError) as err:
        store.load("r1")
    assert str(err.value) == (
        f"checkpoint {str(tmp_path / 'r1.json')!r} has schema_version 2 but this program "
        "reads version 1; use the matching version of the pipeline or delete the file"
    )
    assert (tmp_path / "r1.json").exists()

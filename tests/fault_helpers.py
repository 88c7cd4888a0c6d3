"""Shared by the input fault suites (tests/test_fault_inputs.py, test_fault_input_files.py)."""

from __future__ import annotations

from pathlib import Path


def sparse_file(path: Path, size: int) -> Path:
    """A file of ``size`` bytes that takes no disk space: limits are checked by size, so a
    test of a 60 MB input writes nothing."""
    with path.open("wb") as f:
        f.truncate(size)
    return path

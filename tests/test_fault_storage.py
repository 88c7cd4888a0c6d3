"""The workspace under attack and out of room (issue #25, items 2, 3 and 6).

- Planted symbolic links: at the fixed temporary names earlier versions wrote through
  (``out/.<id>.json.tmp``, ``.index.html.tmp``, ``.batch-summary.jsonl.tmp``,
  ``state/.<id>.json.tmp``), at a target itself, at a lease, a log, an export, a catalog
  cache entry: nothing outside the workspace is ever written.
- A request named after a batch file (``index``) is refused; the batch index stays.
- A full filesystem and read-only directories (real tmpfs mounts where the machine allows
  it, skipped with the reason otherwise): exit code 5 naming the path, no traceback, no
  temp file, no torn summary line, checkpoints intact, and a rerun after freeing space
  finishes every request.

Fake stages (tests/fake_stages.py), the CLI entry point, 2 workers where it matters.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.catalog.cache import write_entry
from agents.errors import StorageError, UnsafePathError
from agents.files import atomic_write, check_writable
from pipeline.cli import main
from pipeline.errors import ExitCode
from pipeline.logs import configure_logging
from pipeline.store import CheckpointStore
from tests.fake_stages import request_dict, write_catalog

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

FAKE = ["--catalog", "catalog.json", "--stages", "tests.fake_stages:FAKE", "--quiet", "--json"]
VICTIM = b"precious: must never be overwritten\n"


def _workspace(root: Path, ids: list[str]) -> None:
    write_catalog(root)
    lines = "".join(json.dumps(request_dict(rid)) + "\n" for rid in ids)
    (root / "in.jsonl").write_text(lines, "utf-8")


def _batch(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict[str, Any], str]:
    capsys.readouterr()
    code = main(["batch", "in.jsonl", *FAKE, *extra])
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if captured.out.strip() else {}, captured.err


def _temps(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.tmp"))


# ------------------------------------------------------------------ planted links


def test_links_planted_at_the_old_fixed_temp_names_are_never_written_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    monkeypatch.chdir(ws)
    _workspace(ws, ["r1", "r2", "r3"])
    for d in ("out", "state"):
        (ws / d).mkdir()
    planted = [
        *(f"out/.r{i}.{s}.tmp" for i in (1, 2, 3) for s in ("json", "md", "html")),
        *(f"state/.r{i}.json.tmp" for i in (1, 2, 3)),
        "out/.index.html.tmp",
        "out/.batch-summary.jsonl.tmp",
    ]
    victims = []
    for n, name in enumerate(planted):
        victim = outside / f"victim-{n}"
        victim.write_bytes(VICTIM)
        victims.append(victim)
        (ws / name).symlink_to(victim)

    code, report, _ = _batch(capsys, "--workers", "2")

    assert (code, report["status"]) == (0, {"done": 3})
    assert [v.read_bytes() for v in victims] == [VICTIM] * len(victims)
    for rid in ("r1", "r2", "r3"):
        assert not (ws / "out" / f"{rid}.json").is_symlink()
        assert json.loads((ws / "out" / f"{rid}.json").read_text("utf-8"))["request_id"] == rid


def test_a_link_planted_at_a_target_is_refused_and_the_batch_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _workspace(tmp_path, ["r1"])
    (tmp_path / "out").mkdir()
    victim = tmp_path / "victim"
    victim.write_bytes(VICTIM)
    (tmp_path / "out" / "r1.html").symlink_to(victim)

    code, report, _ = _batch(capsys)

    assert code == ExitCode.STORAGE
    assert report["status"] == {"unwritable": 1}
    assert report["storage_error"] == (
        "cannot write 'out/r1.html': it is a symbolic link, and outputs are never written "
        "through one - remove the link ('out/r1.html') or choose another directory"
    )
    assert victim.read_bytes() == VICTIM
    assert not (tmp_path / "out" / "r1.json").exists()  # all of a request's outputs or none
    assert CheckpointStore(tmp_path / "state").load("r1").state.value == "done"  # type: ignore[union-attr]


def test_a_link_planted_at_a_lease_is_refused(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path / "state")
    (tmp_path / "state").mkdir()
    victim = tmp_path / "victim"
    victim.write_bytes(VICTIM)
    (tmp_path / "state" / "r1.lock").symlink_to(victim)
    with pytest.raises(UnsafePathError, match=r"cannot write '.*/state/r1.lock': it is a symb"):
        store.lock("r1")
    assert victim.read_bytes() == VICTIM


def test_a_link_planted_at_a_log_file_is_refused(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(VICTIM)
    (tmp_path / "run.jsonl").symlink_to(victim)
    with pytest.raises(UnsafePathError):
        configure_logging("warning", json_path=tmp_path / "run.jsonl")
    assert victim.read_bytes() == VICTIM


def test_an_export_through_a_link_and_a_catalog_cache_entry_through_a_link_are_refused(
    tmp_path: Path,
) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(VICTIM)
    (tmp_path / "plan.csv").symlink_to(victim)
    with pytest.raises(UnsafePathError):
        atomic_write(tmp_path / "plan.csv", b"term,course\n")
    from agents.catalog import load_catalog

    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "entry.pickle").symlink_to(victim)
    assert write_entry(tmp_path / "cache" / "entry.pickle", load_catalog()) is False
    assert victim.read_bytes() == VICTIM
    assert _temps(tmp_path) == []


# ------------------------------------------------------------------ reserved names


def test_a_request_named_after_a_batch_file_is_refused_and_the_index_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _workspace(tmp_path, ["r1", "index"])

    code, report, _ = _batch(capsys)

    assert code == ExitCode.FAILED
    assert report["status"] == {"done": 1, "invalid": 1}
    assert report["invalid"] == [
        "index (line 2): $.request_id: unsafe request id 'index': 'index' is a reserved file "
        "name (the batch index is out/index.html); choose another id"
    ]
    assert "<title>" in (tmp_path / "out" / "index.html").read_text("utf-8")
    assert not (tmp_path / "out" / "index.json").exists()


# ------------------------------------------------------------------ full and read-only


@contextlib.contextmanager
def _tmpfs(where: Path, size_kb: int) -> Iterator[Path]:
    """A real tmpfs of ``size_kb`` at ``where``, unmounted afterwards; skips the test when
    this machine does not let the tests mount (not root, no mount namespace)."""
    where.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        pytest.skip("mounting a small filesystem needs root (CI runs as root)")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", str(where)],
                          capture_output=True, text=True, check=False)  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _read_only(path: Path) -> None:
    """Make ``path`` (a directory on the test's tmpfs) a read-only bind mount."""
    for args in (["--bind", str(path), str(path)], ["-o", "remount,bind,ro", str(path)]):
        done = subprocess.run(["mount", *args], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            pytest.skip(f"cannot make a read-only bind mount here: {done.stderr.strip()}")


def _fill(fs: Path, leave_kb: int) -> Path:
    """Fill ``fs`` until about ``leave_kb`` KB are free; returns the filler file."""
    filler = fs / "filler"
    st = os.statvfs(fs)
    free = st.f_bavail * st.f_frsize
    filler.write_bytes(b"\0" * max(0, free - leave_kb * 1024))
    return filler


def _lines_whole(out: Path) -> None:
    for path in [out / "batch-summary.jsonl", *(out / "summaries").glob("*.jsonl")]:
        if path.exists():
            for line in path.read_text("utf-8").splitlines():
                json.loads(line)  # never a torn line


def test_a_full_disk_stops_the_batch_with_its_own_exit_code_and_a_rerun_finishes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = [f"r{i:02d}" for i in range(12)]
    with _tmpfs(tmp_path / "fs", 1024) as fs:
        monkeypatch.chdir(fs)
        _workspace(fs, ids)
        filler = _fill(fs, leave_kb=120)

        code, report, err = _batch(capsys, "--workers", "2")

        assert code == ExitCode.STORAGE
        assert "no space left on the device" in report["storage_error"]
        assert "Traceback" not in err
        assert _temps(fs) == []
        _lines_whole(fs / "out")
        store = CheckpointStore(fs / "state")
        for rid in store.ids():
            store.load(rid)  # every checkpoint written is whole
        assert report["status"].get("done", 0) < len(ids)

        filler.unlink()
        code, report, err = _batch(capsys, "--workers", "2")
        assert (code, report["storage_error"]) == (0, None)
        assert set(report["status"]) <= {"done", "skipped"}
        assert sum(report["status"].values()) == len(ids)
        assert _temps(fs) == []
        _lines_whole(fs / "out")


@pytest.mark.parametrize("directory", ["state", "out", "logs"])
def test_a_read_only_directory_is_named_before_any_work_with_its_own_exit_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    directory: str,
) -> None:  # fmt: skip
    with _tmpfs(tmp_path / "fs", 2048) as fs:
        monkeypatch.chdir(fs)
        _workspace(fs, ["r1", "r2"])
        for d in ("state", "out", "logs"):
            (fs / d).mkdir()
        _read_only(fs / directory)
        try:
            code, report, err = _batch(capsys, "--workers", "2")
        finally:
            subprocess.run(["umount", str(fs / directory)], check=False)
        assert code == ExitCode.STORAGE
        assert "Traceback" not in err
        named = re.search(r"cannot write '([^']*)'", err)
        assert named is not None, err
        assert (fs / named.group(1)).resolve().is_relative_to(fs / directory)
        assert "the file system is read-only" in err
        assert _temps(fs) == []
        assert list((fs / "state").glob("*.json")) == []  # nothing ran

        code, report, err = _batch(capsys, "--workers", "2")
        assert (code, report["status"]) == (0, {"done": 2})


def test_check_writable_names_the_directory(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(StorageError) as err:
        check_writable(tmp_path / "file" / "out")
    assert str(err.value) == (
        f"cannot write {str(tmp_path / 'file' / 'out')!r}: a part of the path is not a "
        "directory - free space or fix the permissions, then rerun the same command"
    )

"""One workspace, several catalogs (issue #25, item 1): each checkpoint records where its
catalog came from; ``status``, ``resume`` and a batch rerun use each request's own catalog
unless the command names one; *stale* means that request's own catalog changed; a request
whose catalog is gone is reported, never rerun against a default (real stages, the bundled
sample and a copy of the Harrow Bay catalog directory, the CLI entry point)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pipeline.cli import main
from pipeline.store import CheckpointStore
from pipeline.workspace import BUNDLED

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_ID = json.loads((ROOT / "demos/requests.jsonl").read_text("utf-8").splitlines()[0])[
    "request_id"
]
HB_LINE = (ROOT / "demos/harrow-bay/requests.jsonl").read_text("utf-8").splitlines()[0]
HB_ID = json.loads(HB_LINE)["request_id"]


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A workspace that ran one sample request (bundled catalog) and one Harrow Bay
    request (``--catalog hb``, a copy of the catalog directory)."""
    shutil.copytree(ROOT / "demos/harrow-bay", tmp_path / "hb")
    monkeypatch.chdir(tmp_path)
    sample = (ROOT / "demos/requests.jsonl").read_text("utf-8").splitlines()[0]
    (tmp_path / "sample.jsonl").write_text(sample + "\n", "utf-8")
    (tmp_path / "hb.jsonl").write_text(HB_LINE + "\n", "utf-8")
    assert main(["batch", "sample.jsonl", "--quiet", "--json"]) == 0
    assert main(["batch", "hb.jsonl", "--catalog", "hb", "--quiet", "--json"]) == 0
    return tmp_path


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = main(list(argv))
    return code, json.loads(capsys.readouterr().out)


def _states(capsys: pytest.CaptureFixture[str]) -> dict[str, tuple[str, str]]:
    code, status = _json(capsys, "status", "--json")
    assert code == 0
    return {r["id"]: (r["state"], r["catalog"]) for r in status["requests"]}


def test_each_checkpoint_records_where_its_catalog_came_from(ws: Path) -> None:
    store = CheckpointStore(ws / "state")
    hb, sample = store.load(HB_ID), store.load(SAMPLE_ID)
    assert hb is not None and sample is not None
    assert hb.catalog_source == str(ws / "hb")
    assert sample.catalog_source == BUNDLED


def test_status_and_resume_all_use_each_requests_own_catalog(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _states(capsys) == {
        SAMPLE_ID: ("done", "bundled sample"),
        HB_ID: ("done", str(ws / "hb")),
    }
    code, report = _json(capsys, "resume", "--all", "--quiet", "--json")
    assert (code, report["requests"]) == (0, 0)
    # Rerunning either batch without --catalog skips the finished request: its own catalog.
    for name in ("hb.jsonl", "sample.jsonl"):
        code, report = _json(capsys, "batch", name, "--quiet", "--json")
        assert (code, report["status"]) == (0, {"skipped": 1})
    assert sorted(p.name for p in (ws / "out").glob("*.prev")) == []


def test_stale_means_the_requests_own_catalog_changed_and_reruns_against_it(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with (ws / "hb" / "institution.yaml").open("a", encoding="utf-8") as f:
        f.write("# edited by the registrar\n")
    assert _states(capsys)[HB_ID] == ("stale", str(ws / "hb"))
    assert _states(capsys)[SAMPLE_ID][0] == "done"
    code, report = _json(capsys, "resume", "--all", "--quiet", "--json")
    assert (code, report["status"]) == (0, {"rerun_stale": 1})
    assert _states(capsys)[HB_ID] == ("done", str(ws / "hb"))
    assert (ws / "out" / f"{HB_ID}.json.prev").is_file()


def test_a_request_whose_catalog_is_gone_is_reported_never_rerun_against_a_default(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.move(ws / "hb", ws / "hb-moved")
    assert _states(capsys)[HB_ID] == ("catalog_missing", str(ws / "hb"))
    before = (ws / "out" / f"{HB_ID}.json").read_bytes()
    code, report = _json(capsys, "resume", "--all", "--quiet", "--json")
    assert (code, report["requests"]) == (0, 0)  # finished: left as it is
    code, report = _json(capsys, "batch", "hb.jsonl", "--force", "--quiet", "--json")
    assert (code, report["status"]) == (1, {"catalog_missing": 1})
    assert report["failures"] == [
        f"{HB_ID} (line 1): request {HB_ID!r} ran with the catalog {str(ws / 'hb')!r}, which "
        f"no longer exists; restore it, or name a catalog for this request: advise resume "
        f"{HB_ID} --catalog PATH"
    ]
    assert (ws / "out" / f"{HB_ID}.json").read_bytes() == before
    assert not (ws / "out" / f"{HB_ID}.json.prev").exists()
    # Named, it runs against the named catalog.
    code, report = _json(capsys, "resume", HB_ID, "--catalog", "hb-moved", "--force", "--json")
    assert (code, report["state"]) == (0, "done")
    assert CheckpointStore(ws / "state").load(HB_ID).catalog_source == str(ws / "hb-moved")  # type: ignore[union-attr]

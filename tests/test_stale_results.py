"""Issue #12, defect 1: stale results after a catalog or configuration change.

A finished request whose catalog or configuration fingerprint differs from the current one
is *stale*: ``advise batch``, ``run`` and ``resume --all`` rerun it from the start by
default and keep the previous outputs and checkpoint as ``.prev``; ``--no-rerun-stale``
refuses it naming both fingerprints; ``advise status`` lists it as ``stale``; ``--force``
reruns every request from the start, finished ones included (real files, the CLI entry
point, fake stages).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.catalog import catalog_fingerprint
from pipeline.cli import build_parser, main
from pipeline.logs import configure_logging
from tests.fake_stages import read_side_log, request_dict, write_catalog

FAKE = ["--stages", "tests.fake_stages:FAKE"]
OLD = ["--catalog", "catalog.json", *FAKE]
NEW = ["--catalog", "new/catalog.json", *FAKE]
OUTPUTS = ("r1.json", "r1.md", "r1.html")


@pytest.fixture(autouse=True)
def _reset_logging() -> Iterator[None]:
    yield
    configure_logging("warning", stream=sys.stderr)


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test catalog, a changed copy of it in new/, and a batch of two requests."""
    write_catalog(tmp_path)
    write_catalog(tmp_path / "new", catalog_year="2027-2028")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FAKE_STAGE_LOG", str(tmp_path / "stages.jsonl"))
    lines = [request_dict("r1", "fake:reject=1"), request_dict("r2")]
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    return tmp_path


def _short(path: str) -> str:
    return catalog_fingerprint(path)[:12]


def _intakes(ws: Path, rid: str) -> int:
    return sum(
        1 for e in read_side_log(ws / "stages.jsonl") if e == e | {"id": rid, "stage": "intake"}
    )


def _batch_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["batch", "in.jsonl", *args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def _checkpoint(ws: Path, rid: str, suffix: str = "") -> dict[str, Any]:
    return dict(json.loads((ws / "state" / f"{rid}.json{suffix}").read_text("utf-8")))


def _log_events(ws: Path, event: str) -> list[dict[str, Any]]:
    rows = []
    for log in sorted((ws / "logs").iterdir()):
        rows += [json.loads(x) for x in log.read_text("utf-8").splitlines()]
    return [r for r in rows if r["event"] == event]


def test_batch_reruns_stale_requests_and_keeps_the_previous_outputs(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _batch_json(capsys, *OLD)[0] == 0
    before = {name: (ws / "out" / name).read_bytes() for name in OUTPUTS}
    old_checkpoint = _checkpoint(ws, "r1")

    code, report = _batch_json(capsys, *NEW)
    assert code == 0
    assert report["status"] == {"rerun_stale": 2}  # not "skipped": 2
    assert _intakes(ws, "r1") == 2
    for name in OUTPUTS:
        assert (ws / "out" / f"{name}.prev").read_bytes() == before[name]
        assert (ws / "out" / name).is_file()
    assert _checkpoint(ws, "r1", ".prev") == old_checkpoint
    new_checkpoint = _checkpoint(ws, "r1")
    assert new_checkpoint["catalog_fingerprint"] == catalog_fingerprint("new/catalog.json")
    assert new_checkpoint["state"] == "done"
    [stale, _] = _log_events(ws, "request.stale")
    assert stale["request_id"] == "r1"
    assert stale["saved"].startswith(f"catalog {_short('catalog.json')} / config ")
    assert stale["current"].startswith(f"catalog {_short('new/catalog.json')} / config ")

    code, report = _batch_json(capsys, *NEW)  # now current: skipped
    assert (code, report["status"]) == (0, {"skipped": 2})


def test_batch_table_says_which_requests_were_stale(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["batch", "in.jsonl", *OLD])
    capsys.readouterr()
    assert main(["batch", "in.jsonl", *NEW]) == 0
    out = capsys.readouterr().out
    assert "status rerun_stale" in out
    assert "rerun_stale: finished under another catalog or configuration than the current " in (
        out.replace("\n", " ")
    )
    rows = [json.loads(x) for x in (ws / "out" / "batch-summary.jsonl").read_text().splitlines()]
    assert [(r["id"], r["status"]) for r in rows] == [("r1", "rerun_stale"), ("r2", "rerun_stale")]


def test_no_rerun_stale_refuses_naming_both_fingerprints(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["batch", "in.jsonl", *OLD, "--json"])
    capsys.readouterr()
    before = {name: (ws / "out" / name).read_bytes() for name in OUTPUTS}
    code, report = _batch_json(capsys, *NEW, "--no-rerun-stale")
    assert code == 1
    assert report["status"] == {"stale": 2}
    config = _checkpoint(ws, "r1")["config_fingerprint"][:12]
    assert report["stale"][0] == (
        f"r1 (line 1): request 'r1' finished under catalog {_short('catalog.json')} / config "
        f"{config} but the current fingerprint is catalog {_short('new/catalog.json')} / "
        f"config {config}; its outputs are stale - rerun without --no-rerun-stale (the old "
        "outputs are kept as .prev), or restore the old catalog and configuration"
    )
    assert {name: (ws / "out" / name).read_bytes() for name in OUTPUTS} == before
    assert not list((ws / "out").glob("*.prev"))
    assert _intakes(ws, "r1") == 1


def test_run_reruns_a_request_finished_under_another_configuration(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (ws / "r1.json").write_text(json.dumps(request_dict("r1")), "utf-8")
    assert main(["run", "r1.json", *OLD]) == 0
    saved = _checkpoint(ws, "r1")["config_fingerprint"]
    capsys.readouterr()

    assert main(["run", "r1.json", *OLD, "--max-rounds", "5", "--no-rerun-stale"]) == 1
    err = capsys.readouterr().err
    assert f"finished under catalog {_short('catalog.json')} / config {saved[:12]} but " in err
    assert _intakes(ws, "r1") == 1

    assert main(["run", "r1.json", *OLD, "--max-rounds", "5"]) == 0
    assert _intakes(ws, "r1") == 2
    assert _checkpoint(ws, "r1", ".prev")["config_fingerprint"] == saved
    assert _checkpoint(ws, "r1")["config"]["max_rounds"] == 5
    assert (ws / "out" / "r1.md.prev").is_file()


def test_force_reruns_finished_requests_from_the_start(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["batch", "in.jsonl", *OLD, "--json"])
    capsys.readouterr()
    code, report = _batch_json(capsys, *OLD, "--force")
    assert (code, report["status"]) == (0, {"done": 2})  # not "skipped": 2
    assert _intakes(ws, "r1") == 2
    assert (ws / "state" / "r1.json.prev").is_file()

    (ws / "r1.json").write_text(json.dumps(request_dict("r1", "fake:reject=1")), "utf-8")
    assert main(["run", "r1.json", *OLD, "--force"]) == 0
    assert _intakes(ws, "r1") == 3

    assert main(["resume", "--all", *OLD, "--force", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["status"] == {"done": 2}
    assert _intakes(ws, "r1") == 4


def test_resume_all_reruns_stale_requests(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["batch", "in.jsonl", *OLD, "--json"])
    capsys.readouterr()
    assert main(["resume", "--all", *OLD, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == {}
    assert main(["resume", "--all", *NEW, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == {"rerun_stale": 2}


def test_status_lists_stale_requests_as_their_own_state(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [request_dict("r1"), request_dict("r2", "fake:fail=critique")]
    (ws / "in.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    main(["batch", "in.jsonl", *OLD, "--json"])
    capsys.readouterr()

    assert main(["status", "--json", *OLD]) == 0
    assert json.loads(capsys.readouterr().out)["counts"] == {"done": 1, "failed": 1}
    assert main(["status", "--json", *NEW]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["counts"] == {"failed": 1, "stale": 1}
    assert [(r["id"], r["state"]) for r in status["requests"]] == [
        ("r1", "stale"),
        ("r2", "failed"),
    ]
    assert main(["status", *OLD, "--max-rounds", "5"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 checkpoint(s) in state: failed 1, stale 1\n")
    assert "stale: its catalog or the configuration changed since it finished" in (
        " ".join(out.split())
    )


def test_force_help_says_exactly_what_it_does() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for command in ("run", "batch", "resume"):
        text = " ".join(sub.choices[command].format_help().split())  # type: ignore[attr-defined]
        assert (
            "--force rerun finished requests from the start (previous outputs and checkpoint "
            "kept as .prev); resume an unfinished checkpoint made with another catalog or "
            "configuration; restart a request whose content changed under the same id"
        ) in text
        assert "--no-rerun-stale refuse (status 'stale', exit 1) a request finished" in text


def _runs(ws: Path, rid: str, stage: str) -> int:
    return sum(
        1 for e in read_side_log(ws / "stages.jsonl") if e == e | {"id": rid, "stage": stage}
    )


def test_alternatives_on_a_finished_request_redo_synthesis_alone(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue #30 item 6: ``advise run r.json --alternatives 3`` on a finished request is
    not refused as a changed request: only synthesis, the stage that reads it, runs again."""
    (ws / "r1.json").write_text(json.dumps(request_dict("r1")), "utf-8")
    assert main(["run", "r1.json", *OLD]) == 0
    assert (_runs(ws, "r1", "intake"), _runs(ws, "r1", "synthesis")) == (1, 1)

    assert main(["run", "r1.json", *OLD, "--alternatives", "3"]) == 0
    assert (_runs(ws, "r1", "intake"), _runs(ws, "r1", "synthesis")) == (1, 2)
    assert _checkpoint(ws, "r1")["request"]["alternatives"] == 3
    assert _checkpoint(ws, "r1")["state"] == "done"
    assert _checkpoint(ws, "r1", ".prev")["request"]["alternatives"] == 0
    assert all((ws / "out" / f"{name}.prev").is_file() for name in OUTPUTS)
    assert all((ws / "out" / name).is_file() for name in OUTPUTS)

    assert main(["run", "r1.json", *OLD, "--alternatives", "3"]) == 0  # nothing changed now
    assert _runs(ws, "r1", "synthesis") == 2
    assert main(["run", "r1.json", *NEW, "--alternatives", "1"]) == 0  # stale: a whole rerun
    assert (_runs(ws, "r1", "intake"), _runs(ws, "r1", "synthesis")) == (2, 3)
    assert _checkpoint(ws, "r1")["request"]["alternatives"] == 1

    (ws / "r2.jsonl").write_text(json.dumps(request_dict("r2")) + "\n", "utf-8")
    assert main(["batch", "r2.jsonl", *OLD]) == 0
    capsys.readouterr()
    assert main(["batch", "r2.jsonl", *OLD, "--alternatives", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert report["status"] == {"done": 1}
    assert (_runs(ws, "r2", "intake"), _runs(ws, "r2", "synthesis")) == (1, 2)


def test_any_other_change_to_a_finished_request_is_still_refused(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (ws / "r1.json").write_text(json.dumps(request_dict("r1")), "utf-8")
    assert main(["run", "r1.json", *OLD]) == 0
    changed = request_dict("r1", alternatives=2, text="something else")
    (ws / "r1.json").write_text(json.dumps(changed), "utf-8")
    assert main(["run", "r1.json", *OLD]) == 2
    assert "differs from the one checkpointed" in capsys.readouterr().err
    assert _runs(ws, "r1", "synthesis") == 1

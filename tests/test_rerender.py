"""``advise render`` and ``advise batch --templates``: finished requests' outputs (the
reports, the letter in them, the batch index) written again from their checkpoints with
an office's templates; no stage runs and the checkpoint keeps its bytes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.reports import shipped_template
from pipeline.cli import main
from tests.fake_stages import request_dict, write_catalog

REPO = Path(__file__).resolve().parents[1]
FAKE = ["--stages", "tests.fake_stages:FAKE"]
MARK = "OFFICE-OF-TESTING"


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    yield tmp_path


def _one_demo_request(ws: Path) -> tuple[str, Path]:
    line = (REPO / "demos" / "requests.jsonl").read_text(encoding="utf-8").splitlines()[0]
    path = ws / "requests.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    return json.loads(line)["request_id"], path


def _office(ws: Path) -> Path:
    """Copies of the shipped letter, report and index templates, each edited."""
    office = ws / "office"
    office.mkdir()
    letter = shipped_template("letter.txt.j2").replace(
        "{{ sign_off }}", f"{{{{ sign_off }}}}, {MARK}"
    )
    assert MARK in letter  # the edit took
    (office / "letter.txt.j2").write_text(letter, encoding="utf-8")
    for name in ("report.html.j2", "index.html.j2"):
        page = shipped_template(name).replace("</body>", f"<p>{MARK}</p></body>")
        assert MARK in page
        (office / name).write_text(page, encoding="utf-8")
    return office


def _files(ws: Path, rid: str) -> dict[str, bytes]:
    names = [f"out/{rid}.json", f"out/{rid}.md", f"out/{rid}.html", "out/index.html"]
    return {name: (ws / name).read_bytes() for name in names}


def test_render_rewrites_outputs_with_edited_templates_and_leaves_the_checkpoint(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rid, requests = _one_demo_request(ws)
    assert main(["batch", str(requests), "-q", "--json"]) == 0
    capsys.readouterr()
    checkpoint = (ws / "state" / f"{rid}.json").read_bytes()
    before = _files(ws, rid)
    # The shipped templates give the bytes the run wrote, the letter included.
    assert main(["render", "--all", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["requests"] == [{"id": rid, "status": "unchanged", "files": [], "message": ""}]
    assert got["index"] == "out/index.html"
    assert _files(ws, rid) == before

    office = _office(ws)
    assert main(["render", rid, "--templates", str(office)]) == 0
    assert capsys.readouterr().out == (
        f"{rid}: rendered out/{rid}.html, out/{rid}.json, out/{rid}.md\nindex: out/index.html\n"
    )
    after = _files(ws, rid)
    letter = json.loads(after[f"out/{rid}.json"])["letter"]
    assert f"Office of Undergraduate Advising, {MARK}" in letter
    assert f"Office of Undergraduate Advising, {MARK}" in after[f"out/{rid}.md"].decode()
    assert f"<p>{MARK}</p>" in after[f"out/{rid}.html"].decode()
    assert f"<p>{MARK}</p>" in after["out/index.html"].decode()
    assert (ws / "state" / f"{rid}.json").read_bytes() == checkpoint
    # Without the edits the run's outputs come back, byte for byte.
    assert main(["render", "--all"]) == 0
    assert _files(ws, rid) == before
    assert (ws / "state" / f"{rid}.json").read_bytes() == checkpoint


def test_batch_with_templates_rerenders_the_finished_requests_it_skips(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rid, requests = _one_demo_request(ws)
    assert main(["batch", str(requests), "-q"]) == 0
    checkpoint = (ws / "state" / f"{rid}.json").read_bytes()
    office = _office(ws)
    capsys.readouterr()
    assert main(["batch", str(requests), "-q", "--json", "--templates", str(office)]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == {"skipped": 1}  # nothing ran
    assert f"<p>{MARK}</p>" in (ws / "out" / f"{rid}.html").read_text(encoding="utf-8")
    assert MARK in json.loads((ws / "out" / f"{rid}.json").read_bytes())["letter"]
    assert (ws / "state" / f"{rid}.json").read_bytes() == checkpoint


def test_unknown_and_unfinished_ids_are_named_and_the_others_rendered(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_catalog(ws)
    lines = [request_dict("r1"), request_dict("r2", "fake:fail=synthesis")]
    (ws / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    assert main(["batch", "in.jsonl", "-q", "--catalog", "catalog.json", *FAKE]) == 1
    (ws / "out" / "r1.md").unlink()
    capsys.readouterr()
    assert main(["status", "--catalog", "catalog.json", *FAKE]) == 0
    assert ("outputs missing: 1 finished request(s) have no report in out; 'advise render "
            "--all' writes them from their checkpoints") in capsys.readouterr().out  # fmt: skip
    assert main(["render", "nope", "r2", "r1", "r1", *FAKE]) == 1
    assert capsys.readouterr().out == (
        "nope: unknown: no checkpoint 'nope' in 'state': check the id with 'advise status', "
        "or pass the --state-dir it ran with\n"
        "r2: unfinished: failed: nothing to render; see 'advise show r2', fix and 'advise "
        "resume r2'\n"
        "r1: rendered out/r1.md\n"
        "index: out/index.html\n"
    )
    assert main(["render", "--all", *FAKE, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["requests"] == [{"id": "r1", "status": "unchanged", "files": [], "message": ""}]
    assert got["unfinished_skipped"] == 1


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["render"], "error: give request ids or --all (not both); see 'advise status'\n"),
        (["render", "r1", "--all"],
         "error: give request ids or --all (not both); see 'advise status'\n"),
        (["render", "--all", "--templates", "no-such-dir"],
         "error: template no-such-dir: not a directory of templates\n"),
    ],
)  # fmt: skip
def test_render_usage_errors_exit_2_before_writing(
    ws: Path, argv: list[str], error: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert capsys.readouterr().err == error
    assert not (ws / "out").exists() and not (ws / "logs").exists()

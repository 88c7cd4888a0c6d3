"""Small things the ``advise`` command line gets right: ``--version``, help examples that
name demo files and request ids that exist, test-only options kept out of help, and
usage errors that list the valid values."""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.cli import build_parser, main
from pipeline.logs import configure_logging
from tests.fake_stages import request_dict, write_catalog

REPO = Path(__file__).resolve().parents[1]
FAKE = ["--stages", "tests.fake_stages:FAKE"]


@pytest.fixture(autouse=True)
def _reset_logging() -> Iterator[None]:
    yield
    configure_logging("warning", stream=sys.stderr)


def _usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The last line of the usage error ``argv`` gives (argparse exits 2)."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    return capsys.readouterr().err.splitlines()[-1]


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"advise {project['version']}\n"


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["status", "--state", "bogus"],
         "advise status: error: argument --state: unknown state 'bogus'; choose from intake, "
         "requirements, scheduling, critique, refinement, synthesis, done, awaiting_approval, "
         "failed, stale, catalog_missing, unreadable"),
        (["batch", "in.jsonl", "--progress-every", "0"],
         "advise batch: error: argument --progress-every: expected a number of seconds > 0, "
         "got '0'"),
        (["resume", "--all", "--progress-every", "soon"],
         "advise resume: error: argument --progress-every: expected a number of seconds > 0, "
         "got 'soon'"),
    ],
)  # fmt: skip
def test_bad_option_values_are_usage_errors_that_list_what_is_valid(
    argv: list[str], error: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _usage_error(argv, capsys) == error


@pytest.mark.parametrize("state", ["done", "failed", "awaiting_approval", "stale", "unreadable"])
def test_status_accepts_every_listed_state(
    state: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["status", "--state", state, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "counts": {},
        "requests": [],
        "outputs_missing": [],
    }


def _subparsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                yield from _subparsers(child)


def _parser(command: str) -> argparse.ArgumentParser:
    return next(p for p in _subparsers(build_parser()) if p.prog == f"advise {command}")


@pytest.mark.parametrize("command", ["run", "batch", "resume", "status"])
def test_test_only_stages_option_is_not_in_help(command: str) -> None:
    assert "--stages" not in _parser(command).format_help()


def test_stages_option_is_still_accepted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_catalog(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r1.json").write_text(json.dumps(request_dict("r1")), encoding="utf-8")
    assert main(["run", "r1.json", "--catalog", "catalog.json", *FAKE]) == 0
    assert capsys.readouterr().out == "r1: approved after 1 round(s) -> out/r1.json\n"
    assert main(["status", *FAKE, "--catalog", "catalog.json", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["counts"] == {"done": 1}


def _example_commands() -> Iterator[tuple[str, list[str]]]:
    """(parser, words) of every ``advise ...`` line in an examples block of any help."""
    for parser in _subparsers(build_parser()):
        text = parser.description or ""
        for block in re.findall(r"examples?:\n((?:  .*\n?)+)", text):
            for line in block.splitlines():
                for command in line.split("|"):
                    words = shlex.split(command)
                    if "advise" in words:
                        yield parser.prog, words[words.index("advise") + 1 :]
                    else:
                        yield parser.prog, words


def test_help_examples_name_demo_files_and_request_ids_that_exist() -> None:
    demo_ids = {
        json.loads(line)["request_id"]
        for line in (REPO / "demos" / "requests.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    }
    checked = 0
    for prog, words in _example_commands():
        for word in words:
            if word.startswith("demos/"):
                assert (REPO / word).exists(), f"{prog} help names a missing file {word!r}"
                checked += 1
        takes_id = words[:1] in (["resume"], ["show"], ["approve"], ["deny"])
        if takes_id and len(words) > 1 and not words[1].startswith("-"):
            assert words[1] in demo_ids, f"{prog} help names an unknown id {words[1]!r}"
            checked += 1
    assert checked >= 8  # the examples really were found

"""Workspace settings (``pipeline.config``): ``advise.toml``, ``ADVISE_*`` variables and
flags with the precedence flag > env > file > default; the errors a bad file or variable
gives; ``advise config``; and every command taking the same flags and ``--json``."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from agents.catalog.limits import LIMITS
from pipeline.cli import build_parser, main
from pipeline.config import KEYS, WORKSPACE, env_typos, resolve
from pipeline.errors import ConfigError
from tests.fake_stages import request_dict, write_catalog

FAKE = ["--stages", "tests.fake_stages:FAKE"]


def _toml(directory: Path, text: str, name: str = "advise.toml") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- resolving


@pytest.mark.parametrize(
    ("flag", "env", "in_file", "value", "source"),
    [
        (None, None, None, "state", "default"),
        (None, None, "from-file", "FILE/from-file", "file"),
        (None, "from-env", "from-file", "from-env", "env"),
        ("from-flag", "from-env", "from-file", "from-flag", "flag"),
        ("from-flag", None, None, "from-flag", "flag"),
    ],
)
def test_flag_beats_env_beats_file_beats_default(
    tmp_path: Path, flag: str | None, env: str | None, in_file: str | None, value: str, source: str
) -> None:
    if in_file is not None:
        _toml(tmp_path, f'state_dir = "{in_file}"\n')
    environ = {"ADVISE_STATE_DIR": env} if env is not None else {}
    got = resolve({"state_dir": flag}, ["state_dir"], env=environ, cwd=tmp_path)["state_dir"]
    assert (got.value, got.source) == (value.replace("FILE", str(tmp_path)), source)


def test_paths_in_the_file_are_relative_to_the_file_and_config_names_it(tmp_path: Path) -> None:
    _toml(
        tmp_path / "office", 'out_dir = "reports"\ncatalog = "../cat/catalog.json"\nworkers = 3\n'
    )
    got = resolve({}, ["out_dir", "catalog", "workers", "backend"], config="office/advise.toml",
                  env={}, cwd=tmp_path)  # fmt: skip
    assert {k: (r.value, r.source, r.where) for k, r in got.items()} == {
        "out_dir": (str(tmp_path / "office" / "reports"), "file",
                    f"{tmp_path / 'office' / 'advise.toml'}:1"),
        "catalog": (str(tmp_path / "cat" / "catalog.json"), "file",
                    f"{tmp_path / 'office' / 'advise.toml'}:2"),
        "workers": (3, "file", f"{tmp_path / 'office' / 'advise.toml'}:3"),
        "backend": ("offline", "default", ""),
    }  # fmt: skip
    by_env = resolve({}, ["workers"], env={"ADVISE_CONFIG": "office/advise.toml"}, cwd=tmp_path)
    assert by_env["workers"].value == 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('backend = "offline"\nstate-dir = "s"\n',
         "{file}:2: unknown key 'state-dir' (did you mean 'state_dir'?); known keys: catalog, "
         "state_dir, out_dir, log_dir, backend, model, max_rounds, templates, exceptions, "
         "workers, engine, ray_address, console"),
        ("workers = 0\n", "{file}:1: workers = 0: expected a number >= 1, got 0"),
        ('console = "on"\n', "{file}:1: console must be a table ([console]); the web console's "
         "settings, e.g. [console.oidc] (docs/console.md)"),
        ('workers = "two"\n', "{file}:1: workers = 'two': expected a whole number, got 'two'"),
        ('backend = "gemni"\n', "{file}:1: backend = 'gemni': expected one of offline, gemini"),
        ("out_dir = 3\n",
         "{file}:1: out_dir = 3: expected a path in quotes, e.g. out_dir = \"...\""),
    ],
)  # fmt: skip
def test_a_bad_file_names_the_file_line_key_value_and_fix(
    tmp_path: Path, text: str, message: str
) -> None:
    path = _toml(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        resolve({}, ["state_dir"], env={}, cwd=tmp_path)
    assert str(caught.value) == message.format(file=path)


def test_not_toml_and_a_missing_named_file_are_clear_errors(tmp_path: Path) -> None:
    path = _toml(tmp_path, "state_dir = \n")
    with pytest.raises(ConfigError, match=rf"^{path}: not valid TOML: .*line 1.*'Workspace"):
        resolve({}, ["state_dir"], env={}, cwd=tmp_path)
    with pytest.raises(ConfigError) as caught:
        resolve({}, ["state_dir"], env={"ADVISE_CONFIG": "nope.toml"}, cwd=tmp_path)
    assert str(caught.value) == (
        "ADVISE_CONFIG 'nope.toml': no such file; pass the path of an advise.toml settings file"
    )


def test_a_settings_file_over_its_size_limit_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(LIMITS, "settings_bytes", replace(LIMITS["settings_bytes"], value=64))
    path = _toml(tmp_path, "# " + "x" * 80 + "\nstate_dir = 'ok'\n")
    with pytest.raises(ConfigError) as caught:
        resolve({}, ["state_dir"], env={}, cwd=tmp_path)
    assert str(caught.value) == (
        f"{path}: a workspace settings file (`advise.toml`): 100 bytes, over the limit of 64 "
        "bytes; is this the settings file?"
    )
    path.write_text("state_dir = 'ok'\n", encoding="utf-8")
    assert resolve({}, ["state_dir"], env={}, cwd=tmp_path)["state_dir"].source == "file"


def test_a_bad_environment_value_names_the_variable(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        resolve({}, ["max_rounds"], env={"ADVISE_MAX_ROUNDS": "many"}, cwd=tmp_path)
    assert str(caught.value) == (
        "environment variable ADVISE_MAX_ROUNDS='many': expected a whole number, got 'many'; "
        "fix or unset it"
    )


def test_a_misspelled_variable_is_warned_about_and_others_are_not() -> None:
    env = {"ADVISE_STATEDIR": "x", "ADVISE_OUT_DIR": "o", "ADVISE_WORKER_ID": "w", "ADVISE_ZZZ": ""}
    assert env_typos(env) == [
        "warning: environment variable ADVISE_STATEDIR is not a setting; did you mean "
        "ADVISE_STATE_DIR? (it is ignored)"
    ]


# --------------------------------------------------------------------------- commands


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    write_catalog(tmp_path)
    monkeypatch.chdir(tmp_path)
    yield tmp_path


def test_commands_use_the_workspace_file_and_env(
    ws: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _toml(ws, 'catalog = "catalog.json"\nstate_dir = "work/state"\nlog_dir = "work/logs"\n')
    monkeypatch.setenv("ADVISE_OUT_DIR", "reports")
    (ws / "r1.json").write_text(json.dumps(request_dict("r1")), encoding="utf-8")
    assert main(["run", "r1.json", *FAKE]) == 0
    assert capsys.readouterr().out == "r1: approved after 1 round(s) -> reports/r1.json\n"
    assert [p.name for p in (ws / "work" / "state").glob("*.json")] == ["r1.json"]
    assert len(list((ws / "work" / "logs").iterdir())) == 1
    assert main(["status", *FAKE, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["counts"] == {"done": 1}
    assert main(["status", *FAKE, "--json", "--state-dir", "elsewhere"]) == 0  # flag wins
    assert json.loads(capsys.readouterr().out)["counts"] == {}
    assert main(["export", "r1", "--format", "csv", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "id": "r1", "format": "csv", "output": "reports/r1.csv", "note": ""
    }  # fmt: skip


def test_advise_config_says_where_each_value_came_from(
    ws: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _toml(ws, 'state_dir = "st"\n\nworkers = 2\n')
    monkeypatch.setenv("ADVISE_BACKEND", "gemini")
    assert main(["config", "--json", "--workers", "4"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["file"] == {"path": str(path), "named_by": "advise.toml"}
    assert got["settings"]["state_dir"] == {"value": str(ws / "st"), "source": "file",
                                            "where": f"{path}:1"}  # fmt: skip
    assert got["settings"]["workers"] == {"value": 4, "source": "flag", "where": "--workers"}
    assert got["settings"]["backend"] == {"value": "gemini", "source": "env",
                                          "where": "ADVISE_BACKEND"}  # fmt: skip
    assert got["settings"]["out_dir"] == {"value": "out", "source": "default", "where": ""}
    assert set(got["settings"]) == set(KEYS)
    assert main(["config"]) == 0
    text = capsys.readouterr().out
    assert f"settings file: {path} (advise.toml)\n" in text
    assert f"  state_dir    {ws / 'st'}  [file {path}:1]\n" in text
    assert "  backend      gemini  [env ADVISE_BACKEND]\n" in text


def test_a_bad_setting_stops_the_command_with_exit_2(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _toml(ws, 'log_dirs = "logs"\n')
    assert main(["status"]) == 2
    assert capsys.readouterr().err == (
        f"error: {path}:1: unknown key 'log_dirs' (did you mean 'log_dir'?); known keys: "
        "catalog, state_dir, out_dir, log_dir, backend, model, max_rounds, templates, "
        "exceptions, workers, engine, ray_address, console\n"
    )


def test_catalog_commands_read_the_workspace_catalog(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["catalog", "show", "--json"]) == 0
    bundled = json.loads(capsys.readouterr().out)["courses"]
    _toml(ws, 'catalog = "catalog.json"\n')
    assert main(["catalog", "show", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["courses"] != bundled


# --------------------------------------------------------------------------- parsers


def _leaves(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield parser
    for action in subs:
        for child in dict.fromkeys(action.choices.values()):
            yield from _leaves(child)


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {s: a for a in parser._actions for s in a.option_strings}


LEAVES = {p.prog: p for p in _leaves(build_parser())}


def test_every_command_is_walked() -> None:
    assert {"advise run", "advise render", "advise config", "advise export",
            "advise catalog build", "advise student import"} <= set(LEAVES)  # fmt: skip
    # 13 commands, 8 catalog subcommands, student import, users add/list/remove
    assert len(LEAVES) == 25


@pytest.mark.parametrize("prog", sorted(LEAVES))
def test_every_command_has_json(prog: str) -> None:
    action = _options(LEAVES[prog]).get("--json")
    assert action is not None, f"{prog} has no --json"
    assert action.nargs == 0 and action.default is False


@pytest.mark.parametrize("prog", sorted(LEAVES))
def test_commands_that_touch_the_workspace_take_all_its_flags(prog: str) -> None:
    options = _options(LEAVES[prog])
    places = [KEYS[k].flag for k in WORKSPACE]
    if any(flag in options for flag in places[1:]):  # a state, out or log directory
        assert [f for f in places if f not in options] == [], prog
    if "--catalog" in options or any(flag in options for flag in places):
        assert "--config" in options, prog


def test_a_setting_flag_is_the_same_option_on_every_command() -> None:
    """One definition (``add_settings``): same dest, default (None: resolved later),
    choices and help wherever a setting's flag appears."""
    seen: dict[str, tuple[object, ...]] = {}
    for prog, parser in LEAVES.items():
        for flag, action in _options(parser).items():
            key = next((k for k in KEYS.values() if k.flag == flag), None)
            if key is None or action.dest != key.name:  # catalog PATH commands: --catalog
                continue
            shape = (action.dest, action.default, action.choices, action.help)
            assert seen.setdefault(flag, shape) == shape, (prog, flag)
    assert set(seen) == {k.flag for k in KEYS.values()}


def test_a_ray_address_from_the_file_without_ray_says_where_it_came_from(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _toml(ws, 'ray_address = "auto"\n')
    (ws / "in.jsonl").write_text(json.dumps(request_dict("r1")) + "\n", encoding="utf-8")
    assert main(["batch", "in.jsonl", *FAKE]) == 2
    assert capsys.readouterr().err == (
        f"error: ray_address 'auto' ({path}:1) needs engine ray: --engine ray, "
        'ADVISE_ENGINE=ray or engine = "ray" in advise.toml\n'
    )
    assert not (ws / "state").exists()


def test_the_console_table_is_left_to_the_console_and_its_runs_get_the_settings(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pipeline.console.jobs import Job, Workspace, command

    path = _toml(ws, 'state_dir = "st"\n\n[console.oidc]\nissuer = "https://idp.example"\n')
    assert main(["config", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["state_dir"]["value"] == str(ws / "st")
    where = Workspace(Path("st"), Path("out"), Path("logs"), catalog="cat", settings_file=path)
    argv = command(where, Job(request_id="r1", kind="resume", by="rivera"))
    assert argv[argv.index("--config") + 1] == str(path)
    assert argv[argv.index("--catalog") + 1] == "cat"

"""One workspace, set once: where each setting of an ``advise`` command comes from.

A setting (the catalog, the state, output and log directories, the LLM backend, the
templates, the number of workers...) is taken from, in this order:

1. the command's flag (``--state-dir``),
2. an environment variable (``ADVISE_STATE_DIR``),
3. the workspace file: ``advise.toml`` in the current directory, or the file named by
   ``--config FILE`` or ``ADVISE_CONFIG`` (``state_dir = "state"``; a relative path in the
   file is relative to the file's directory),
4. the default the command always had.

``add_settings`` gives a parser the flags of the settings it uses (one definition, so
commands cannot drift apart); ``resolve_args`` fills them in after parsing; ``resolve``
says each value and its source (``advise config``). A key the file does not know, a value
of the wrong type and a bad environment value are ``ConfigError``: the file (and line) or
the variable, the key, the value and the fix.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pipeline.errors import ConfigError

FILE_NAME = "advise.toml"
CONFIG_ENV = "ADVISE_CONFIG"

Kind = Literal["path", "text", "int"]
Source = Literal["flag", "env", "file", "default"]


@dataclass(frozen=True)
class Key:
    """One setting: its name in ``advise.toml``, its flag, its environment variable."""

    name: str
    kind: Kind
    help: str
    default: Any = None
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    metavar: str | None = None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def env(self) -> str:
        return "ADVISE_" + self.name.upper()


KEYS: dict[str, Key] = {
    k.name: k
    for k in (
        Key(
            "catalog",
            "path",
            "catalog JSON file or directory (default: each request's own "
            "- the one its checkpoint was made with - else the bundled sample)",
            metavar="PATH",
        ),
        Key("state_dir", "path", "checkpoint directory (default: state)", "state", metavar="DIR"),
        Key("out_dir", "path", "output directory (default: out)", "out", metavar="DIR"),
        Key("log_dir", "path", "JSON-lines log directory (default: logs)", "logs", metavar="DIR"),
        Key("backend", "text", "LLM backend (default: offline)", "offline", ("offline", "gemini")),
        Key("model", "text", "LLM model name (gemini backend)", metavar="NAME"),
        Key("max_rounds", "int", "negotiation rounds (default: 3)", 3, minimum=1, metavar="N"),
        Key(
            "templates",
            "path",
            "directory of report templates (letter.txt.j2, "
            "report.html.j2, ...) overriding the shipped ones; see 'Report templates' in "
            "docs/outputs.md",
            metavar="DIR",
        ),
        Key(
            "exceptions",
            "path",
            "directory of advisor exceptions files: DIR/<student "
            "id>.json is merged into that student's record",
            metavar="DIR",
        ),
        Key(
            "workers",
            "int",
            "worker processes, or Ray actors with --engine ray (default: 1)",
            1,
            minimum=1,
            metavar="N",
        ),
        Key(
            "engine",
            "text",
            "where requests run: 'process' (worker processes on this "
            "machine) or 'ray' (needs the ray extra) (default: process)",
            "process",
            ("process", "ray"),
        ),
        Key(
            "ray_address",
            "text",
            "with --engine ray: the Ray cluster to connect to (e.g. ray://head:10001 or 'auto')",
            metavar="ADDR",
        ),
    )
}

# The settings groups commands take (``add_settings``): a command that reads or writes the
# workspace takes all its places, so one alias or script line works for every command.
WORKSPACE = ("catalog", "state_dir", "out_dir", "log_dir")
CONFIGURATION = ("backend", "model", "max_rounds")
RUNNING = (*WORKSPACE, *CONFIGURATION, "templates", "exceptions")
ENGINE = ("workers", "engine", "ray_address")

# Tables of advise.toml that one command reads and checks itself (not settings).
TABLES = {"console": "the web console's settings, e.g. [console.oidc] (docs/console.md)"}

# Other ADVISE_* variables the project reads (not workspace settings): never "typos".
OTHER_ENV = frozenset(
    {"ADVISE_CATALOG_CACHE", "ADVISE_CATALOG_CACHE_DIR", "ADVISE_INDEX_DIR", "ADVISE_WORKER_ID"}
)


@dataclass(frozen=True)
class Resolved:
    """A setting's value and where it came from (``where``: the flag, the variable, or
    the file and line)."""

    key: str
    value: Any
    source: Source
    where: str

    def as_json(self) -> dict[str, Any]:
        return {"value": self.value, "source": self.source, "where": self.where}


# --------------------------------------------------------------------------- parsers


def add_config_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--config",
        metavar="FILE",
        help=f"workspace settings file (default: ${CONFIG_ENV}, else ./{FILE_NAME} if present)",
    )


def add_settings(
    p: argparse.ArgumentParser, names: Iterable[str], *, title: str = "workspace options"
) -> argparse._ArgumentGroup:
    """``--config`` and the flags of ``names`` (default None: ``resolve_args`` fills in
    the environment's, the file's or the default value)."""
    g = p.add_argument_group(title, f"flag > ADVISE_* environment variable > {FILE_NAME} > "
                             "default (see 'advise config')")  # fmt: skip
    add_config_flag(g)  # type: ignore[arg-type]
    names = tuple(names)
    for name in names:
        key = KEYS[name]
        kwargs: dict[str, Any] = {"dest": name, "default": None, "help": key.help}
        if key.choices:
            kwargs["choices"] = key.choices
        else:
            kwargs["metavar"] = key.metavar
        if key.kind == "int":
            kwargs["type"] = _int_type(key)
        g.add_argument(key.flag, **kwargs)
    p.set_defaults(settings_keys=names)
    return g


def _int_type(key: Key) -> Any:
    def parse(text: str) -> int:
        try:
            return _checked_int(key, text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = key.name
    return parse


def _checked_int(key: Key, value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError(f"expected a whole number, got {value!r}")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"expected a whole number, got {value!r}") from None
    if isinstance(value, float) and number != value:
        raise ValueError(f"expected a whole number, got {value!r}")
    if key.minimum is not None and number < key.minimum:
        raise ValueError(f"expected a number >= {key.minimum}, got {value!r}")
    return number


# --------------------------------------------------------------------------- the file


def config_path(named: str | None, env: Mapping[str, str], cwd: Path) -> tuple[Path | None, str]:
    """The settings file to read and what named it: ``--config``, ``ADVISE_CONFIG``, or
    ``./advise.toml`` when present (else None). A named file that is missing is an error."""
    for value, what in ((named, "--config"), (env.get(CONFIG_ENV), CONFIG_ENV)):
        if value:
            path = cwd / value
            if not path.is_file():
                raise ConfigError(f"{what} {value!r}: no such file; pass the path of an "
                                  f"{FILE_NAME} settings file")  # fmt: skip
            return path, what
    found = cwd / FILE_NAME
    return (found, FILE_NAME) if found.is_file() else (None, "")


def read_file(path: Path) -> dict[str, tuple[Any, str]]:
    """The file's settings, checked and with relative paths made relative to the file:
    ``{key: (value, "FILE:LINE")}``."""
    from agents.catalog.limits import size_problem  # the catalog package: only with a file

    too_big = size_problem(path, "settings_bytes", "is this the settings file?")
    if too_big is not None:
        raise ConfigError(f"{path}: {too_big}")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the settings file: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}; see docs/running.md, "
                          "'Workspace settings'") from None  # fmt: skip
    lines = text.splitlines()
    found: dict[str, tuple[Any, str]] = {}
    for name, value in data.items():
        where = f"{path}:{_line_of(lines, name)}"
        if name in TABLES:
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: {name} must be a table ([{name}]); "
                                  f"{TABLES[name]}")  # fmt: skip
            continue  # read and checked by its own command
        key = KEYS.get(name)
        if key is None:
            raise ConfigError(f"{where}: unknown key {name!r}{_did_you_mean(name, KEYS)}; "
                              f"known keys: {', '.join([*KEYS, *TABLES])}")  # fmt: skip
        try:
            checked = check_value(key, value)
        except ValueError as exc:
            raise ConfigError(f"{where}: {name} = {value!r}: {exc}") from None
        if key.kind == "path":
            checked = os.path.normpath(path.parent / os.path.expanduser(checked))
        found[name] = (checked, where)
    return found


def _line_of(lines: list[str], name: str) -> int | str:
    pattern = re.compile(rf"^\s*[\"']?{re.escape(name)}[\"']?\s*=")
    for number, line in enumerate(lines, start=1):
        if pattern.match(line):
            return number
    return "?"


def _did_you_mean(name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name.replace("-", "_").lower(), list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def check_value(key: Key, value: Any) -> Any:
    """``value`` as ``key`` takes it, or ValueError saying what was expected."""
    if key.kind == "int":
        return _checked_int(key, value)
    if not isinstance(value, str) or not value:
        kind = "a path" if key.kind == "path" else "a text value"
        raise ValueError(f'expected {kind} in quotes, e.g. {key.name} = "..."')
    if key.choices and value not in key.choices:
        raise ValueError(f"expected one of {', '.join(key.choices)}")
    return value


# --------------------------------------------------------------------------- resolving


def resolve(
    flags: Mapping[str, Any],
    names: Iterable[str],
    *,
    config: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> dict[str, Resolved]:
    """Each of ``names`` resolved: flag > environment > file > default."""
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else cwd
    path, _named = config_path(config, env, cwd)
    in_file = read_file(path) if path is not None else {}
    out: dict[str, Resolved] = {}
    for name in names:
        key = KEYS[name]
        if flags.get(name) is not None:
            out[name] = Resolved(name, flags[name], "flag", key.flag)
        elif env.get(key.env):
            try:
                value = check_value(key, env[key.env])
            except ValueError as exc:
                raise ConfigError(f"environment variable {key.env}={env[key.env]!r}: {exc}; "
                                  f"fix or unset it") from None  # fmt: skip
            out[name] = Resolved(name, value, "env", key.env)
        elif name in in_file:
            value, where = in_file[name]
            out[name] = Resolved(name, value, "file", where)
        else:
            out[name] = Resolved(name, key.default, "default", "")
    return out


def env_typos(env: Mapping[str, str]) -> list[str]:
    """Warnings for ``ADVISE_*`` variables that are no setting but look like one."""
    known = {k.env for k in KEYS.values()} | OTHER_ENV | {CONFIG_ENV}
    notes = []
    for name in sorted(env):
        if name.startswith("ADVISE_") and name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.8)
            if close:
                notes.append(f"warning: environment variable {name} is not a setting; did "
                             f"you mean {close[0]}? (it is ignored)")  # fmt: skip
    return notes


def resolve_args(args: argparse.Namespace) -> dict[str, Resolved]:
    """Fill in the settings the command's parser declared (``add_settings``) from the
    environment, the file or the defaults; returns them with their sources."""
    names: tuple[str, ...] = getattr(args, "settings_keys", ())
    if not names:
        return {}
    for note in env_typos(os.environ):
        print(note, file=sys.stderr)
    resolved = resolve(vars(args), names, config=getattr(args, "config", None))
    for name, item in resolved.items():
        setattr(args, name, item.value)
    args.settings_resolved = resolved  # with the sources, for 'advise config'
    return resolved


def configured_catalog(config: str | None) -> str | None:
    """The workspace's catalog (environment or file), for commands that take it as
    ``PATH`` (``advise catalog ...``); None: the bundled sample."""
    value = resolve({}, ("catalog",), config=config)["catalog"].value
    return None if value is None else str(value)


__all__ = [
    "CONFIG_ENV",
    "ENGINE",
    "FILE_NAME",
    "KEYS",
    "RUNNING",
    "TABLES",
    "WORKSPACE",
    "Key",
    "Resolved",
    "add_config_flag",
    "add_settings",
    "config_path",
    "configured_catalog",
    "env_typos",
    "read_file",
    "resolve",
    "resolve_args",
]

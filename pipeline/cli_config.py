"""``advise config``: each workspace setting, its value and where it came from (a flag, an
``ADVISE_*`` environment variable, the settings file with its line, or the default);
``pipeline.config`` resolves them."""

from __future__ import annotations

import argparse
import json

from pipeline.cli_common import EXIT_OK, Formatter
from pipeline.config import ENGINE, FILE_NAME, KEYS, RUNNING, add_settings


def add_config(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "config",
        help=f"show the workspace settings and where each comes from ({FILE_NAME}, ADVISE_*)",
        formatter_class=Formatter,
        description="Show every workspace setting as the other commands resolve it: the "
        "command's flag, else\nits environment variable (ADVISE_STATE_DIR, ...), else "
        f"{FILE_NAME} in the current directory\n(or the file --config or ADVISE_CONFIG "
        "names; its relative paths are relative to it),\nelse the default. The flags given "
        "here are shown as a command given them would use them.\n\n"
        "examples:\n  advise config\n  advise config --json\n"
        "  advise config --state-dir /srv/advising/state",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_settings(p, (*RUNNING, *ENGINE))
    p.set_defaults(handler=_cmd_config)


def _cmd_config(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    from pipeline.config import Resolved, config_path

    # Resolved before this handler ran (pipeline.cli), with where each value came from.
    resolved: dict[str, Resolved] = args.settings_resolved
    path, named_by = config_path(args.config, os.environ, Path.cwd())
    file = {"path": str(path) if path else None, "named_by": named_by or None}
    if args.json:
        settings = {name: item.as_json() for name, item in resolved.items()}
        print(json.dumps({"file": file, "settings": settings}))
        return EXIT_OK
    print(f"settings file: {path} ({named_by})" if path else
          f"settings file: none ({FILE_NAME} is not in the current directory)")  # fmt: skip
    width = max(map(len, KEYS))
    for name, item in resolved.items():
        value = "(none)" if item.value is None else str(item.value)
        source = item.source + (f" {item.where}" if item.where else "")
        print(f"  {name:<{width}}  {value}  [{source}]")
    return EXIT_OK

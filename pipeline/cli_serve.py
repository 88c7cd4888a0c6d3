"""``advise serve`` (the web console, ``pipeline.console``) and ``advise users`` (its
accounts). The console's packages are the ``console`` extra; without them ``serve`` says how
to install them."""

from __future__ import annotations

import argparse
import getpass
import importlib.util
import ipaddress
import json
import os
import sys
from pathlib import Path

from pipeline.cli_common import EXIT_OK, EXIT_USAGE, Formatter
from pipeline.config import WORKSPACE, add_settings, config_path

# import name -> the package that provides it
CONSOLE_PACKAGES = {
    "starlette": "starlette",
    "uvicorn": "uvicorn",
    "argon2": "argon2-cffi",
    "itsdangerous": "itsdangerous",
    "multipart": "python-multipart",
}
TLS_NOTE = (
    "the console speaks plain HTTP: put a TLS reverse proxy (nginx, Caddy) in front of it "
    "and pass --https (see docs/console.md)"
)


def _check_packages() -> None:
    from pipeline.console.errors import ConsoleDepsError

    for module, package in CONSOLE_PACKAGES.items():
        if importlib.util.find_spec(module) is None:
            raise ConsoleDepsError(package)


def add_serve(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "serve",
        help="the advising office's web console over this workspace",
        formatter_class=Formatter,
        description="Serve the web console: the batch dashboard, each request's report, "
        "approvals and runs,\nthe access log. Needs an account ('advise users add NAME "
        "--role admin') and the console\nextra (pip install -e '.[console]'). Listens on "
        "127.0.0.1 unless --host names another\naddress and --allow-remote is given.\n\n"
        "examples:\n  advise users add rivera --role advisor\n  advise serve\n"
        "  advise serve --host 0.0.0.0 --allow-remote --https   # behind a TLS proxy",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="port (default: 8765)")
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host other than loopback (TLS belongs in a proxy in front)",
    )
    p.add_argument(
        "--https",
        action="store_true",
        help="the console is reached over HTTPS (a proxy): secure cookies only",
    )
    add_settings(p, (*WORKSPACE, "templates", "workers"))
    p.add_argument(
        "--json",
        action="store_true",
        help="print where the console listens as one JSON object before serving",
    )
    p.set_defaults(handler=_cmd_serve)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _cmd_serve(args: argparse.Namespace) -> int:
    if not is_loopback(args.host) and not args.allow_remote:
        print(
            f"error: --host {args.host!r} is not a loopback address; the console listens "
            f"elsewhere only with --allow-remote ({TLS_NOTE})",
            file=sys.stderr,
        )
        return EXIT_USAGE
    _check_packages()
    import uvicorn

    from pipeline.console import ConsoleConfig, create_app
    from pipeline.console.oidc import oidc_settings
    from pipeline.console.users import UserStore

    state_dir = Path(args.state_dir)
    settings_file, _ = config_path(args.config, os.environ, Path.cwd())
    # The [console.oidc] table of the workspace's settings file (advise.toml).
    oidc = oidc_settings(settings_file) if settings_file is not None else None
    if oidc is not None and importlib.util.find_spec("authlib") is None:
        from pipeline.console.errors import ConsoleDepsError

        raise ConsoleDepsError("authlib")
    if not UserStore(state_dir).list() and oidc is None:
        print(
            f"note: no console accounts in {state_dir}; add one: advise users add NAME "
            "--role admin",
            file=sys.stderr,
        )
    if not is_loopback(args.host):
        print(f"warning: listening on {args.host}; {TLS_NOTE}", file=sys.stderr)
    config = ConsoleConfig(
        state_dir=state_dir,
        out_dir=Path(args.out_dir),
        log_dir=Path(args.log_dir),
        workers=args.workers,
        https=args.https,
        oidc=oidc,
        templates=_templates(args.templates),
        catalog=args.catalog,
        settings_file=settings_file,
    )
    app = create_app(config)
    url = f"http://{args.host}:{args.port}/"
    if args.json:
        print(json.dumps({"url": url, "state_dir": str(state_dir), "oidc": oidc is not None}))
    print(f"advise console on {url} (Ctrl-C stops it)", file=sys.stderr)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    finally:
        app.state.jobs.drain()
    return EXIT_OK


def _templates(directory: str | None) -> Path | None:
    """``--templates DIR``, checked before the server starts (a broken template: exit 2)."""
    if directory is None:
        return None
    from agents.reports import check_templates

    check_templates(Path(directory))
    return Path(directory)


def add_users(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "users",
        help="the web console's accounts: add, list, remove",
        formatter_class=Formatter,
        description="Manage the console's local accounts, kept with argon2 password hashes "
        "in\n<state-dir>/.console/users.json. Roles: viewer (reads), advisor (also decides "
        "and runs),\nadmin (also reads the access log and manages accounts).\n\nexamples:\n"
        "  advise users add rivera --role advisor\n"
        "  printf '%s' \"$PW\" | advise users add ops --role admin --password-stdin\n"
        "  advise users list\n  advise users remove rivera",
    )
    s = p.add_subparsers(dest="users_command", required=True, metavar="ACTION")
    add = s.add_parser("add", help="add an account (or --replace one)")
    add.add_argument("name")
    add.add_argument("--role", required=True, choices=("viewer", "advisor", "admin"))
    add.add_argument(
        "--password-stdin",
        action="store_true",
        help="read the password from stdin instead of a prompt",
    )
    add.add_argument("--replace", action="store_true", help="replace an existing account")
    listing = s.add_parser("list", help="list accounts and roles")
    rm = s.add_parser("remove", help="remove an account")
    rm.add_argument("name")
    for leaf in (add, listing, rm):
        # The accounts live in the state directory: the workspace's flags, as everywhere.
        add_settings(leaf, WORKSPACE)
        leaf.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler=_cmd_users)


def _password(args: argparse.Namespace) -> str:
    from pipeline.console.errors import UserError

    if args.password_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass(f"password for {args.name}: ")
    if first != getpass.getpass("again: "):
        raise UserError("the two passwords differ; nothing saved")
    return first


def _cmd_users(args: argparse.Namespace) -> int:
    _check_packages()
    from pipeline.console.users import UserStore

    store = UserStore(Path(args.state_dir))
    if args.users_command == "list":
        users = store.list()
        if args.json:
            print(json.dumps([{"name": u.name, "role": u.role} for u in users]))
        for user in users if not args.json else []:
            print(f"{user.name}\t{user.role}")
    elif args.users_command == "remove":
        store.remove(args.name)
        said = {"removed": args.name}
        print(json.dumps(said) if args.json else f"removed {args.name}")
    else:
        user = store.add(args.name, args.role, _password(args), replace=args.replace)
        said = {"saved": user.name, "role": user.role, "file": str(store.path)}
        print(json.dumps(said) if args.json else f"saved {user.name} ({user.role}) in {store.path}")
    return EXIT_OK

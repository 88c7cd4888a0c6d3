"""Console accounts: ``<state_dir>/.console/users.json``, one entry per user with a role
and an argon2 password hash (``argon2-cffi``), rewritten atomically with 0600 permissions;
and the session secret, ``<state_dir>/.console/secret``, made once (0600).

Roles are ordered: a ``viewer`` reads, an ``advisor`` also decides and runs requests, an
``admin`` also reads the access log and manages accounts.
"""

from __future__ import annotations

import json
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast, get_args

import structlog

from agents.files import atomic_write, ensure_dir
from pipeline.console.errors import ConsoleError, UserError

log = structlog.get_logger(__name__)

Role = Literal["viewer", "advisor", "admin"]
ROLES: tuple[Role, ...] = get_args(Role)
CONSOLE_DIR = ".console"
USERS_NAME = "users.json"
SECRET_NAME = "secret"
PRIVATE = 0o600
MIN_PASSWORD = 8
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")


def console_dir(state_dir: Path) -> Path:
    """Where the console keeps its files: inside the workspace's checkpoint directory."""
    return state_dir / CONSOLE_DIR


def role_allows(role: Role, needed: Role) -> bool:
    return ROLES.index(role) >= ROLES.index(needed)


def check_role(text: str) -> Role:
    if text not in ROLES:
        raise UserError(f"unknown role {text!r}; choose one of {', '.join(ROLES)}")
    return cast(Role, text)


def check_name(name: str) -> str:
    if not _NAME_RE.fullmatch(name):
        raise UserError(
            f"user name {name!r} is not allowed; use 1-64 letters, digits, '.', '_', '@' or "
            "'-', starting with a letter or digit"
        )
    return name


@dataclass(frozen=True)
class User:
    name: str
    role: Role


class UserStore:
    """The accounts file of one workspace; read again whenever it changed on disk."""

    def __init__(self, state_dir: Path) -> None:
        self.path = console_dir(state_dir) / USERS_NAME
        self._seen: tuple[int, int] | None = None
        self._users: dict[str, dict[str, str]] = {}

    def _load(self) -> dict[str, dict[str, str]]:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            self._seen, self._users = None, {}
            return self._users
        key = (st.st_mtime_ns, st.st_size)
        if key == self._seen:
            return self._users
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConsoleError(
                f"{self.path}: cannot read the console's accounts ({exc}); restore it or "
                "remove it and add the accounts again with 'advise users add'"
            ) from None
        users = data.get("users") if isinstance(data, dict) else None
        if not isinstance(users, dict):
            raise ConsoleError(f"{self.path}: field 'users' must be an object of accounts")
        self._seen, self._users = key, users
        return users

    def _save(self, users: dict[str, dict[str, str]]) -> None:
        ensure_dir(self.path.parent)
        os.chmod(self.path.parent, 0o700)
        body = json.dumps({"users": users}, indent=2, sort_keys=True) + "\n"
        atomic_write(self.path, body.encode("utf-8"), mode=PRIVATE)

    def list(self) -> list[User]:
        users = self._load()
        return [User(name, check_role(u.get("role", ""))) for name, u in sorted(users.items())]

    def get(self, name: str) -> User | None:
        entry = self._load().get(name)
        if not isinstance(entry, dict) or entry.get("role") not in ROLES:
            return None
        return User(name, cast(Role, entry["role"]))

    def add(self, name: str, role: str, password: str, *, replace: bool = False) -> User:
        from argon2 import PasswordHasher

        check_name(name)
        checked = check_role(role)
        if len(password) < MIN_PASSWORD:
            raise UserError(
                f"the password for {name!r} is too short; use at least {MIN_PASSWORD} characters"
            )
        users = dict(self._load())
        if name in users and not replace:
            raise UserError(f"user {name!r} exists; pass --replace to set a new role/password")
        users[name] = {"role": checked, "hash": PasswordHasher().hash(password)}
        self._save(users)
        log.info("console.user_added", user=name, role=checked)
        return User(name, checked)

    def remove(self, name: str) -> None:
        users = dict(self._load())
        if name not in users:
            raise UserError(f"no user {name!r}; see 'advise users list'")
        del users[name]
        self._save(users)
        log.info("console.user_removed", user=name)

    def verify(self, name: str, password: str) -> User | None:
        """The user if ``password`` is theirs, else None (same work for an unknown name)."""
        from argon2 import PasswordHasher
        from argon2.exceptions import InvalidHashError, VerificationError

        entry = self._load().get(name)
        hasher = PasswordHasher()
        stored = entry.get("hash", "") if isinstance(entry, dict) else ""
        try:
            hasher.verify(stored or _DUMMY_HASH.get(hasher), password)
        except (VerificationError, InvalidHashError):
            return None
        return self.get(name) if stored else None


class _Dummy:
    """A hash of nothing, verified against for unknown names so they take as long."""

    value: str | None = None

    def get(self, hasher: object) -> str:
        from argon2 import PasswordHasher

        if self.value is None:
            self.value = PasswordHasher().hash(secrets.token_hex(16))
        return self.value


_DUMMY_HASH = _Dummy()


def session_secret(state_dir: Path) -> str:
    """The key that signs session cookies: made once per workspace, kept 0600."""
    path = console_dir(state_dir) / SECRET_NAME
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        text = ""
    except OSError as exc:
        raise ConsoleError(f"{path}: cannot read the session secret ({exc})") from None
    if len(text) >= 32:
        return text
    ensure_dir(path.parent)
    os.chmod(path.parent, 0o700)
    text = secrets.token_urlsafe(48)
    atomic_write(path, (text + "\n").encode("ascii"), mode=PRIVATE)
    return text

"""Signing in with the university's identity provider: OpenID Connect (``authlib``), beside
the local accounts.

Settings: ``oidc_settings(path)`` reads the ``[console.oidc]`` table of the workspace's
configuration file (``advise.toml``; Python's ``tomllib``)::

    [console.oidc]
    issuer = "https://login.example.edu/realms/staff"  # discovery: <issuer>/.well-known/...
    client_id = "advising-console"
    client_secret_env = "ADVISE_OIDC_CLIENT_SECRET"   # the secret stays in the environment
    groups_claim = "groups"                           # the ID token claim listing groups
    username_claim = "preferred_username"
    [console.oidc.roles]                              # allowed groups -> console roles
    "advising-staff" = "viewer"
    "advisors" = "advisor"
    "registrar-admins" = "admin"

Only members of a listed group may sign in; one in several gets the highest of their roles.
The ID token is checked by authlib (signature against the provider's keys, issuer,
audience, expiry, nonce); the role is fixed at sign-in, for the session's lifetime.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.console.errors import ConsoleError
from pipeline.console.users import ROLES, Role, check_role

SECTION = ("console", "oidc")
DEFAULT_SECRET_ENV = "ADVISE_OIDC_CLIENT_SECRET"


@dataclass(frozen=True)
class OIDCSettings:
    issuer: str
    client_id: str
    client_secret: str = field(repr=False)
    roles: dict[str, Role]
    groups_claim: str = "groups"
    username_claim: str = "preferred_username"

    @property
    def metadata_url(self) -> str:
        return self.issuer.rstrip("/") + "/.well-known/openid-configuration"

    def role_of(self, claims: dict[str, Any]) -> Role | None:
        """The highest role the token's groups map to; None when no group is allowed."""
        groups = claims.get(self.groups_claim)
        if isinstance(groups, str):
            groups = [groups]
        mapped = [self.roles[g] for g in groups or [] if isinstance(g, str) and g in self.roles]
        return max(mapped, key=ROLES.index) if mapped else None


def oidc_settings(path: Path) -> OIDCSettings | None:
    """The ``[console.oidc]`` settings of the configuration file at ``path``; None when the
    file or the table is absent. A bad value is a ConsoleError naming the key and the fix."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConsoleError(f"{path}: cannot read the configuration ({exc})") from None
    table: Any = data
    for key in SECTION:
        table = table.get(key) if isinstance(table, dict) else None
    if table is None:
        return None
    where = f"{path}: [{'.'.join(SECTION)}]"
    if not isinstance(table, dict):
        raise ConsoleError(f"{where} must be a table")

    def text(key: str, default: str | None = None) -> str:
        value = table.get(key, default)
        if not isinstance(value, str) or not value.strip():
            raise ConsoleError(f"{where} {key}: expected a non-empty string, got {value!r}")
        return value.strip()

    issuer = text("issuer")
    if not issuer.startswith(("https://", "http://127.0.0.1", "http://localhost")):
        raise ConsoleError(f"{where} issuer: {issuer!r} must be an https:// URL")
    env = text("client_secret_env", DEFAULT_SECRET_ENV)
    secret = os.environ.get(env, "")
    if not secret:
        raise ConsoleError(
            f"{where}: the client secret is read from ${env}, which is not set; "
            "export it before 'advise serve'"
        )
    roles = table.get("roles")
    if not isinstance(roles, dict) or not roles:
        raise ConsoleError(f"{where}.roles: map at least one group to a role ({', '.join(ROLES)})")
    try:
        mapped = {str(group): check_role(str(role)) for group, role in roles.items()}
    except ConsoleError as exc:
        raise ConsoleError(f"{where}.roles: {exc}") from None
    return OIDCSettings(
        issuer=issuer,
        client_id=text("client_id"),
        client_secret=secret,
        roles=mapped,
        groups_claim=text("groups_claim", "groups"),
        username_claim=text("username_claim", "preferred_username"),
    )

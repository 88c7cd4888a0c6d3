"""Signing in to the console with an OpenID Connect provider: a fake provider on loopback
(discovery, keys, token endpoint; ID tokens signed with a key made for the test) and the
console's real authlib client. Groups map to roles; a forged or foreign token is refused."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

pytest.importorskip("authlib", reason="the console's OIDC sign-in needs authlib")

from joserfc import jwt
from joserfc.jwk import RSAKey
from starlette.testclient import TestClient

from pipeline.console import ConsoleConfig, create_app
from pipeline.console.errors import ConsoleError
from pipeline.console.oidc import OIDCSettings, oidc_settings

CLIENT_ID = "advising-console"
ROLES = {"advising-staff": "viewer", "advisors": "advisor"}


class Provider:
    """The identity provider: hands out a code per sign-in, and for it an ID token with the
    claims the test chose (signed with ``key``, which may be a stranger's)."""

    def __init__(self) -> None:
        self.key = RSAKey.generate_key(2048, parameters={"kid": "k1"})
        self.signing_key = self.key
        self.claims: dict[str, Any] = {}
        self.nonces: dict[str, str] = {}
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.issuer = f"http://127.0.0.1:{self.server.server_address[1]}"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _json(self, body: object) -> None:
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path == "/.well-known/openid-configuration":
                    self._json(
                        {
                            "issuer": provider.issuer,
                            "authorization_endpoint": f"{provider.issuer}/authorize",
                            "token_endpoint": f"{provider.issuer}/token",
                            "jwks_uri": f"{provider.issuer}/jwks",
                            "response_types_supported": ["code"],
                            "subject_types_supported": ["public"],
                            "id_token_signing_alg_values_supported": ["RS256"],
                        }
                    )
                elif self.path == "/jwks":
                    self._json({"keys": [provider.key.as_dict(private=False)]})
                else:
                    self.send_error(404)

            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length", 0))
                form = parse_qs(self.rfile.read(size).decode())
                code = form.get("code", [""])[0]
                now = int(time.time())
                claims = {
                    "iss": provider.issuer,
                    "aud": CLIENT_ID,
                    "iat": now,
                    "exp": now + 300,
                    "nonce": provider.nonces.get(code, ""),
                    **provider.claims,
                }
                token = jwt.encode({"alg": "RS256", "kid": "k1"}, claims, provider.signing_key)
                self._json(
                    {
                        "access_token": "at",
                        "token_type": "Bearer",
                        "expires_in": 300,
                        "id_token": token,
                    }
                )

        return Handler


@pytest.fixture
def provider() -> Iterator[Provider]:
    p = Provider()
    thread = threading.Thread(target=p.server.serve_forever, daemon=True)
    thread.start()
    yield p
    p.server.shutdown()
    p.server.server_close()
    thread.join()


def _app(tmp_path: Path, provider: Provider) -> Any:
    settings = OIDCSettings(
        issuer=provider.issuer, client_id=CLIENT_ID, client_secret="s3cret", roles=dict(ROLES)
    )  # type: ignore[arg-type]
    return create_app(
        ConsoleConfig(
            state_dir=tmp_path / "state",
            out_dir=tmp_path / "out",
            log_dir=tmp_path / "logs",
            oidc=settings,
        )
    )


def _sign_in(client: TestClient, provider: Provider, claims: dict[str, Any]) -> Any:
    """The browser's round trip: the console sends it to the provider, which sends it back
    with a code (the provider remembers the nonce the console asked for)."""
    provider.claims = claims
    r = client.get("/login/oidc?next=/catalogs", follow_redirects=False)
    assert r.status_code == 302
    asked = parse_qs(urlparse(r.headers["location"]).query)
    assert asked["client_id"] == [CLIENT_ID] and asked["response_type"] == ["code"]
    assert asked["redirect_uri"] == ["http://testserver/auth/oidc"]
    code = f"code-{len(provider.nonces)}"
    provider.nonces[code] = asked["nonce"][0]
    return client.get(f"/auth/oidc?code={code}&state={asked['state'][0]}", follow_redirects=False)


def test_a_member_of_an_allowed_group_signs_in_with_the_groups_role(
    tmp_path: Path, provider: Provider
) -> None:
    app = _app(tmp_path, provider)
    client = TestClient(app)
    assert "Sign in with your university account" in client.get("/login").text
    r = _sign_in(
        client,
        provider,
        {
            "sub": "u1",
            "preferred_username": "lee",
            "groups": ["advising-staff", "advisors", "other"],
        },
    )
    assert (r.status_code, r.headers["location"]) == (303, "/catalogs")
    page = client.get("/").text
    assert "lee (advisor)" in page
    assert client.get("/access").status_code == 403  # advisor, not admin
    [login] = [e for e in app.state.access.entries() if e["action"] == "login"]
    assert (login["user"], login["role"], login["detail"]) == ("lee", "advisor", "oidc")


def test_someone_in_no_allowed_group_is_refused(tmp_path: Path, provider: Provider) -> None:
    client = TestClient(_app(tmp_path, provider))
    r = _sign_in(
        client, provider, {"sub": "u2", "preferred_username": "sam", "groups": ["students"]}
    )
    assert r.status_code == 403
    assert "sam is in none of the groups allowed to use the console" in r.text
    assert client.get("/", follow_redirects=False).status_code == 303


@pytest.mark.parametrize("forgery", ["stranger's key", "other audience", "expired"])
def test_a_token_the_provider_did_not_issue_for_us_is_refused(
    tmp_path: Path, provider: Provider, forgery: str
) -> None:
    claims: dict[str, Any] = {"sub": "u3", "preferred_username": "eve", "groups": ["advisors"]}
    if forgery == "stranger's key":
        provider.signing_key = RSAKey.generate_key(2048, parameters={"kid": "k1"})
    elif forgery == "other audience":
        claims["aud"] = "another-app"
    else:
        claims["exp"] = int(time.time()) - 3600
    client = TestClient(_app(tmp_path, provider))
    r = _sign_in(client, provider, claims)
    assert r.status_code == 401
    assert "the identity provider&#39;s answer was refused" in r.text
    assert client.get("/", follow_redirects=False).status_code == 303


def test_a_callback_without_the_state_we_sent_is_refused(
    tmp_path: Path, provider: Provider
) -> None:
    client = TestClient(_app(tmp_path, provider))
    r = client.get("/auth/oidc?code=x&state=made-up", follow_redirects=False)
    assert r.status_code == 401
    assert client.get("/", follow_redirects=False).status_code == 303


def test_without_oidc_settings_there_is_no_oidc_route(tmp_path: Path) -> None:
    client = TestClient(create_app(ConsoleConfig(state_dir=tmp_path / "state")))
    assert client.get("/login/oidc", follow_redirects=False).status_code == 404
    assert "university account" not in client.get("/login").text


def test_settings_are_read_from_the_configuration_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "advise.toml"
    assert oidc_settings(path) is None
    path.write_text(
        '[console.oidc]\nissuer = "https://login.example.edu"\nclient_id = "c"\n'
        '[console.oidc.roles]\nadvisors = "advisor"\n',
        encoding="utf-8",
    )
    with pytest.raises(ConsoleError, match=r"\$ADVISE_OIDC_CLIENT_SECRET, which is not set"):
        oidc_settings(path)
    monkeypatch.setenv("ADVISE_OIDC_CLIENT_SECRET", "s")
    settings = oidc_settings(path)
    assert settings is not None
    assert (settings.issuer, settings.client_id, settings.roles) == (
        "https://login.example.edu",
        "c",
        {"advisors": "advisor"},
    )
    assert settings.metadata_url == "https://login.example.edu/.well-known/openid-configuration"
    path.write_text(
        '[console.oidc]\nissuer = "http://evil.example"\nclient_id = "c"\n'
        '[console.oidc.roles]\nadvisors = "root"\n',
        encoding="utf-8",
    )
    with pytest.raises(ConsoleError, match="must be an https:// URL"):
        oidc_settings(path)

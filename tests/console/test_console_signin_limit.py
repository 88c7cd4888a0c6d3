"""The limit on sign-in attempts: N failures for one account name, or from one address,
within the window lock further attempts for the cool-down - the same message whether or
not the account exists, the password not even checked; a success clears the account's
count. The clock is the test's: time moves without sleeping."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from pipeline.console.throttle import LoginLimit, LoginThrottle
from tests.console.helpers import PASSWORD, csrf_of, make_app

LIMIT = LoginLimit(per_account=3, per_address=5, window=600.0, cooldown=900.0)
LOCKED = "too many failed sign-ins for this account or from this address"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def app(root: Path, clock: Clock) -> Any:
    return make_app(root, login_limit=LIMIT, clock=clock)


def _try(app: Any, name: str, password: str, address: str = "10.0.0.1") -> Any:
    client = TestClient(app, client=(address, 50000))
    token = csrf_of(client.get("/login").text)
    return client.post(
        "/login", data={"name": name, "password": password, "csrf": token}, follow_redirects=False
    )


@pytest.mark.parametrize("name", ["advisor", "nobody-here"])
def test_an_account_name_is_locked_after_n_failures_whether_or_not_it_exists(
    app: Any, name: str
) -> None:
    for n in range(LIMIT.per_account):
        r = _try(app, name, "wrong", address=f"10.0.1.{n}")
        assert r.status_code == 401 and "unknown user or wrong password" in r.text
    r = _try(app, name, PASSWORD if name == "advisor" else "wrong", address="10.0.2.1")
    assert r.status_code == 429
    assert f"{LOCKED}; try again in 15 minutes, or ask an admin" in r.text
    locked = [e for e in app.state.access.entries() if e["action"] == "login_locked"]
    assert locked[-1]["user"] == name and locked[-1]["detail"] == "from 10.0.2.1"


def test_the_lock_ends_after_the_cool_down(app: Any, clock: Clock) -> None:
    for _ in range(LIMIT.per_account):
        _try(app, "viewer", "wrong")
    clock.now += LIMIT.cooldown - 60
    r = _try(app, "viewer", PASSWORD, address="10.0.3.1")
    assert r.status_code == 429 and "try again in 1 minute," in r.text
    clock.now += 61
    assert _try(app, "viewer", PASSWORD, address="10.0.3.1").status_code == 303


def test_failures_outside_the_window_do_not_count(app: Any, clock: Clock) -> None:
    for _ in range(LIMIT.per_account - 1):
        _try(app, "admin", "wrong")
    clock.now += LIMIT.window + 1
    assert _try(app, "admin", "wrong").status_code == 401  # 1 in the window, not 3
    assert _try(app, "admin", "wrong").status_code == 401  # 2: not locked yet
    assert _try(app, "admin", PASSWORD).status_code == 303


def test_a_successful_sign_in_clears_the_accounts_count(app: Any) -> None:
    for _ in range(LIMIT.per_account - 1):
        _try(app, "advisor", "wrong", address="10.0.4.1")
    assert _try(app, "advisor", PASSWORD, address="10.0.4.2").status_code == 303
    for _ in range(LIMIT.per_account - 1):
        assert _try(app, "advisor", "wrong", address="10.0.4.3").status_code == 401
    assert _try(app, "advisor", PASSWORD, address="10.0.4.4").status_code == 303


def test_one_address_is_locked_after_n_failures_over_many_names(app: Any) -> None:
    for n in range(LIMIT.per_address):
        assert _try(app, f"guess-{n}", "wrong", address="10.9.9.9").status_code == 401
    r = _try(app, "viewer", PASSWORD, address="10.9.9.9")
    assert r.status_code == 429 and LOCKED in r.text
    assert _try(app, "viewer", PASSWORD, address="10.9.9.8").status_code == 303


def test_a_restart_clears_the_counts(root: Path, clock: Clock) -> None:
    app = make_app(root, login_limit=LIMIT, clock=clock)
    for _ in range(LIMIT.per_account):
        _try(app, "viewer", "wrong")
    assert _try(app, "viewer", PASSWORD).status_code == 429
    fresh = make_app(root, login_limit=LIMIT, clock=clock)
    assert _try(fresh, "viewer", PASSWORD).status_code == 303


def test_names_differing_only_in_case_share_a_count() -> None:
    clock = Clock()
    throttle = LoginThrottle(LIMIT, clock)
    for name in ("Rivera", "RIVERA", "rivera "):
        throttle.failed(name, "a")
    assert throttle.refused("rivera", "b") is not None
    assert throttle.refused("someone", "b") is None


def test_the_counts_kept_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pipeline.console.throttle.KEPT", 10)
    clock = Clock()
    throttle = LoginThrottle(LIMIT, clock)
    for n in range(20):
        throttle.failed(f"n{n}", f"a{n}")
    clock.now += LIMIT.window + 1
    throttle.failed("late", "z")
    assert len(throttle._counts) == 2

"""A limit on sign-in attempts: after ``per_account`` failed sign-ins for one account name,
or ``per_address`` from one client address, within ``window`` seconds, further attempts for
that name or from that address are refused for ``cooldown`` seconds - with the same message
whether or not the account exists, and without checking the password.

A successful sign-in clears the account's count (not the address's: one valid account must
not reset the count of guesses at others). The counts are kept in memory: a restart of the
console clears them, and a reverse proxy may add limits of its own. The clock is injectable
so tests move time without sleeping."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import structlog

log = structlog.get_logger(__name__)

KEPT = 10_000  # counts kept at most; past that, those whose window is over are dropped


@dataclass(frozen=True)
class LoginLimit:
    per_account: int = 5
    per_address: int = 20
    window: float = 15 * 60.0
    cooldown: float = 15 * 60.0


@dataclass
class _Count:
    failures: list[float] = field(default_factory=list)
    locked_until: float = 0.0


class LoginThrottle:
    def __init__(
        self, limit: LoginLimit | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit = limit or LoginLimit()
        self.clock = clock
        self._counts: dict[tuple[str, str], _Count] = {}

    @staticmethod
    def _keys(name: str, address: str) -> list[tuple[str, str]]:
        return [("account", name.strip().casefold()), ("address", address)]

    def refused(self, name: str, address: str) -> str | None:
        """The message to answer with while the name or the address is cooling down."""
        now = self.clock()
        waits = [
            c.locked_until - now
            for k in self._keys(name, address)
            if (c := self._counts.get(k)) is not None and c.locked_until > now
        ]
        if not waits:
            return None
        minutes = max(1, math.ceil(max(waits) / 60))
        return (
            "too many failed sign-ins for this account or from this address; try again in "
            f"{minutes} minute{'' if minutes == 1 else 's'}, or ask an admin"
        )

    def failed(self, name: str, address: str) -> None:
        now = self.clock()
        if len(self._counts) > KEPT:
            self._prune(now)
        for key in self._keys(name, address):
            count = self._counts.setdefault(key, _Count())
            count.failures = [t for t in count.failures if now - t < self.limit.window] + [now]
            most = self.limit.per_account if key[0] == "account" else self.limit.per_address
            if len(count.failures) >= most:
                count.locked_until, count.failures = now + self.limit.cooldown, []
                log.warning("console.login_locked", kind=key[0], cooldown=self.limit.cooldown)

    def succeeded(self, name: str) -> None:
        self._counts.pop(self._keys(name, "")[0], None)

    def _prune(self, now: float) -> None:
        self._counts = {
            k: c
            for k, c in self._counts.items()
            if c.locked_until > now or any(now - t < self.limit.window for t in c.failures)
        }

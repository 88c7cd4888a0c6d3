"""The HTTP layer under google-genai: every call has a total deadline, and a 2xx body that
is not JSON is a fault to retry, not a crash.

httpx's timeouts bound one socket operation each (connect, one write, one read), never a
whole request: a server that drips its reply one byte every few seconds holds a call for
as long as it likes. So the Gemini backend's HTTP client (``client_args``) gets a
transport whose connection pool's network backend is wrapped: every socket operation -
connect, TLS handshake, each write and each read - is clamped to the time left before the
deadline of the call in progress (``call_deadline``; a context variable, so pooled
keep-alive connections, which outlive one call, carry no per-call state). At the deadline
the operation is cut wherever the request stood (sending, waiting for the headers, in the
middle of the body), ``LLMDeadlineError`` is raised and the connection is dropped. The
deadline is wall-clock time (``time.monotonic``).

A response hook reads the body of every 2xx ``generateContent`` response and raises
``LLMResponseError`` when it is not a JSON object - a proxy's or gateway's HTML error page
served with status 200, an empty or cut body - which the retry layer
(``agents.llm.retry``) treats like a 503. A JSON object the SDK cannot read as a Gemini
reply becomes the same error (``unreadable_reply``).

Passing a transport switches httpx's own proxy lookup off, so ``client_args`` looks the
proxy up the same way (``HTTPS_PROXY``, ``ALL_PROXY``, ``NO_PROXY``). Private parts
touched: an httpx transport keeps its pool in ``_pool`` and the pool its network backend
in ``_network_backend`` (httpx/httpcore and their httpx2 fork alike);
``DeadlineTransport`` refuses to start if a new version moves them, rather than run
without a deadline.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from types import ModuleType
from typing import Any, TypeVar

from agents.errors import LLMConfigError, LLMDeadlineError, LLMResponseError

__all__ = [
    "PUBLIC_ENDPOINT",
    "call_deadline",
    "check_reply_body",
    "client_args",
    "httpx_module",
    "proxy_for",
    "unreadable_reply",
]

T = TypeVar("T")

PUBLIC_ENDPOINT = "https://generativelanguage.googleapis.com"
# A socket timeout that fires this close to the deadline is the deadline's doing.
_SLACK_S = 0.01


@dataclass(frozen=True)
class _Deadline:
    at: float  # time.monotonic() when the call must be over
    total_s: float
    setting: str  # what the user changes to wait longer, for the message

    def left(self) -> float:
        return self.at - time.monotonic()

    def error(self) -> LLMDeadlineError:
        return LLMDeadlineError(self.total_s, self.setting)


_DEADLINE: ContextVar[_Deadline | None] = ContextVar("agents_llm_call_deadline", default=None)
# The last 2xx JSON body the hook let through in this context: (status, type, body).
_REPLY: ContextVar[tuple[int, str, bytes] | None] = ContextVar("agents_llm_reply", default=None)


@contextmanager
def call_deadline(seconds: float, *, setting: str) -> Iterator[None]:
    """Every socket operation in the block ends by ``seconds`` from now, or raises
    ``LLMDeadlineError`` (whose message names ``setting``)."""
    token = _DEADLINE.set(_Deadline(time.monotonic() + seconds, seconds, setting))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def _guarded(op: Callable[[float | None], T], timeout: float | None) -> T:
    """``op(timeout)`` with the timeout clamped to the time the current call has left."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return op(timeout)
    left = deadline.left()
    if left <= 0:
        raise deadline.error()
    try:
        return op(left if timeout is None else min(timeout, left))
    except Exception:
        if deadline.left() <= _SLACK_S:
            raise deadline.error() from None
        raise


class _DeadlineStream:
    """A network stream whose every operation is clamped to the call's deadline."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return _guarded(lambda t: self._inner.read(max_bytes, t), timeout)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        _guarded(lambda t: self._inner.write(buffer, t), timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> _DeadlineStream:
        tls = _guarded(lambda t: self._inner.start_tls(ssl_context, server_hostname, t), timeout)
        return _DeadlineStream(tls)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend:
    """An httpcore network backend whose connections are ``_DeadlineStream``s."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> _DeadlineStream:
        def connect(t: float | None) -> Any:
            return self._inner.connect_tcp(host, port, t, local_address, socket_options)

        return _DeadlineStream(_guarded(connect, timeout))

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> _DeadlineStream:
        def connect(t: float | None) -> Any:
            return self._inner.connect_unix_socket(path, t, socket_options)

        return _DeadlineStream(_guarded(connect, timeout))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def httpx_module() -> ModuleType:
    """The httpx google-genai runs on: httpx2 when installed (its default), else httpx;
    ``GOOGLE_GENAI_HTTP_CLIENT`` chooses, as it does for the SDK."""
    chosen = os.environ.get("GOOGLE_GENAI_HTTP_CLIENT", "").strip().lower()
    names = [chosen] if chosen in ("httpx", "httpx2") else ["httpx2", "httpx"]
    for name in names:
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise LLMConfigError(f"google-genai needs {' or '.join(names)}; reinstall the package")


@functools.cache
def _transport_class(module: str) -> type:
    base: type = importlib.import_module(module).HTTPTransport

    class DeadlineTransport(base):  # type: ignore[misc, valid-type]
        """httpx's transport, its pool's sockets clamped to the call's deadline."""

        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            pool = getattr(self, "_pool", None)
            inner = getattr(pool, "_network_backend", None)
            if pool is None or inner is None:
                raise LLMConfigError(
                    f"{module} {getattr(importlib.import_module(module), '__version__', '?')} "
                    "keeps its connection pool where the call deadline cannot reach it; "
                    "install the versions in pyproject.toml or pass --backend offline"
                )
            pool._network_backend = _DeadlineBackend(inner)

    return DeadlineTransport


def proxy_for(url: str) -> str | None:
    """The proxy the environment names for ``url``, or None (none, or ``NO_PROXY``)."""
    parts = urllib.parse.urlsplit(url)
    proxies = urllib.request.getproxies()
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    if proxy and parts.hostname and urllib.request.proxy_bypass(parts.hostname):
        return None
    return proxy


def check_reply_body(response: Any) -> None:
    """httpx response hook: a 2xx reply to ``generateContent`` must be a JSON object."""
    if not 200 <= response.status_code < 300:
        return
    if not response.request.url.path.endswith(":generateContent"):
        return
    body = response.read()
    try:
        value = json.loads(body)
    except ValueError:  # not JSON, not text, or empty
        value = None
    content_type = response.headers.get("content-type", "")
    if not isinstance(value, dict):
        raise LLMResponseError(response.status_code, content_type, body)
    _REPLY.set((response.status_code, content_type, body))


@contextmanager
def unreadable_reply() -> Iterator[None]:
    """Inside the block (one SDK call), a ``ValueError`` raised after a 2xx JSON object
    came in - the SDK could not read it as a Gemini reply - becomes ``LLMResponseError``;
    before any reply came, it is a bug of ours and stays what it is."""
    token = _REPLY.set(None)
    try:
        yield
    except ValueError as exc:  # pydantic's ValidationError among them
        reply = _REPLY.get()
        if reply is None:
            raise
        problem = f"is not a Gemini reply ({' '.join(str(exc).split())[:160]})"
        raise LLMResponseError(*reply, problem=problem) from exc
    finally:
        _REPLY.reset(token)


def client_args(base_url: str | None) -> dict[str, Any]:
    """``HttpOptions.client_args`` for the SDK's httpx client: the deadline transport and
    the body check."""
    module = httpx_module()
    proxy = proxy_for(base_url or PUBLIC_ENDPOINT)
    transport = _transport_class(module.__name__)(proxy=proxy)
    return {"transport": transport, "event_hooks": {"response": [check_reply_body]}}

"""A fake Gemini API server for tests: real request and response shapes, scripted replies.

``FakeGemini`` is a ``ThreadingHTTPServer`` on 127.0.0.1 (a free port) that serves
``POST /{version}/models/{model}:generateContent`` the way the Gemini API does, so the
real google-genai client can be pointed at it with ``HttpOptions(base_url=...)``:

- replies come from a queue of ``Reply`` objects (status, JSON or raw body, content type,
  headers such as ``Retry-After``, a delay to provoke client timeouts, and a drip: the
  body sent one byte at a time, ``drip_s`` apart, as a stalling proxy sends it); helpers
  build the real shapes: ``text_reply`` (``candidates[0].content.parts[0].text`` plus
  ``usageMetadata``) and ``error_reply`` (``{"error": {code, message, status, details}}``
  with an optional ``google.rpc.RetryInfo`` ``retryDelay``);
- every request is recorded (method, path, version, model, headers, JSON body) before it
  is answered, so a test can assert what the SDK sent and how often;
- with the queue empty it answers 400 (not retryable) with a message saying so, so a test
  that under-scripts fails fast instead of spinning through retries;
- any other path gets a Google-shaped 404.

It never touches the network beyond the loopback interface.
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

_ROUTE = re.compile(r"^/(?P<version>[^/]+)/models/(?P<model>[^/:]+):generateContent$")

_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    502: "UNAVAILABLE",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


@dataclass
class Reply:
    """One scripted answer. ``body`` is sent as JSON unless it is ``str`` or ``bytes``."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    drip_s: float = 0.0  # > 0: the body goes out one byte at a time, this far apart
    content_type: str = "application/json; charset=UTF-8"


@dataclass
class RecordedRequest:
    """A request as the server received it."""

    method: str
    path: str
    version: str | None
    model: str | None
    headers: dict[str, str]
    body: Any

    @property
    def prompt(self) -> str:
        """The text of every part of every content, joined - what the model was asked."""
        parts = [
            p.get("text", "")
            for c in (self.body or {}).get("contents", [])
            for p in c.get("parts", [])
        ]
        return "\n".join(parts)


def text_reply(
    text: str,
    *,
    prompt_tokens: int = 100,
    output_tokens: int = 20,
    model_version: str = "gemini-2.5-flash",
    finish_reason: str = "STOP",
    delay_s: float = 0.0,
) -> Reply:
    """A successful ``generateContent`` response whose only part is ``text``; ``delay_s``
    holds the answer back (longer than the client's timeout, it provokes one)."""
    body = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": text}]},
                "finishReason": finish_reason,
                "index": 0,
            }
        ],
        "usageMetadata": {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": output_tokens,
            "totalTokenCount": prompt_tokens + output_tokens,
        },
        "modelVersion": model_version,
        "responseId": "fake-response",
    }
    return Reply(body=body, delay_s=delay_s)


def json_reply(value: Any, **kwargs: Any) -> Reply:
    """A successful response whose text is ``value`` dumped as JSON (structured output)."""
    return text_reply(json.dumps(value), **kwargs)


def error_reply(
    status: int,
    message: str = "",
    *,
    retry_delay: str | None = None,
    retry_after: str | None = None,
    delay_s: float = 0.0,
) -> Reply:
    """A Google API error body; ``retry_delay`` ('2s') adds RetryInfo, ``retry_after`` the
    HTTP header."""
    details: list[dict[str, Any]] = []
    if retry_delay is not None:
        details.append(
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retry_delay}
        )
    error: dict[str, Any] = {
        "code": status,
        "message": message or f"fake error {status}",
        "status": _STATUS_NAMES.get(status, "UNKNOWN"),
    }
    if details:
        error["details"] = details
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return Reply(status=status, body={"error": error}, headers=headers, delay_s=delay_s)


class FakeGemini:
    """The server. Use as a context manager, or ``start()`` / ``stop()``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: deque[Reply] = deque()
        self._stopping = threading.Event()
        self.requests: list[RecordedRequest] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    @property
    def pending(self) -> int:
        """Scripted replies not used yet."""
        with self._lock:
            return len(self._queue)

    def generate_requests(self) -> list[RecordedRequest]:
        """Recorded requests that hit the generateContent route."""
        with self._lock:
            return [r for r in self.requests if r.model is not None]

    def start(self) -> FakeGemini:
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping on a scripted delay
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeGemini:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # ------------------------------------------------------------------ used by the handler

    def _record(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            if request.model is None:
                return error_reply(404, f"fake_gemini: no route for {request.path!r}")
            if not self._queue:
                return error_reply(
                    400, "fake_gemini: no scripted reply left; enqueue() one per request"
                )
            return self._queue.popleft()

    def _wait(self, seconds: float) -> bool:
        """Wait (in the server's handler thread only); False once the server is stopping."""
        return not self._stopping.wait(seconds)


def _make_handler(fake: FakeGemini) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else None
            except json.JSONDecodeError:
                body = raw.decode("utf-8", "replace")
            path = self.path.split("?", 1)[0]
            match = _ROUTE.match(path)
            reply = fake._record(
                RecordedRequest(
                    method="POST",
                    path=self.path,
                    version=match["version"] if match else None,
                    model=match["model"] if match else None,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                )
            )
            if reply.delay_s:
                fake._wait(reply.delay_s)
            self._send(reply)

        def do_GET(self) -> None:
            fake._record(
                RecordedRequest(
                    "GET",
                    self.path,
                    None,
                    None,
                    {k.lower(): v for k, v in self.headers.items()},
                    None,
                )
            )
            self._send(error_reply(404, f"fake_gemini: no route for {self.path!r}"))

        def _send(self, reply: Reply) -> None:
            if isinstance(reply.body, bytes):
                data = reply.body
            elif isinstance(reply.body, str):
                data = reply.body.encode("utf-8")
            else:
                data = json.dumps(reply.body).encode("utf-8")
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                if reply.drip_s:
                    self._drip(data, reply.drip_s)
                else:
                    self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up first (a timeout test); nothing to answer

        def _drip(self, data: bytes, every_s: float) -> None:
            for i in range(len(data)):
                self.wfile.write(data[i : i + 1])
                if not fake._wait(every_s):
                    return  # the server is stopping

        def log_message(self, format: str, *args: Any) -> None:
            pass  # tests stay quiet; the recorded requests are the log

    return Handler

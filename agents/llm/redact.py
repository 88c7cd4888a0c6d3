"""Masking secrets before anything is logged, checkpointed or written out.

Three things are masked, wherever they appear in a string, a mapping or a list:

- the values of the key variables in the environment (``GEMINI_API_KEY``, and the SDK's
  own ``GOOGLE_API_KEY``) and every value handed to ``register_secret`` (a backend
  registers the key it was built with, even when the key did not come from the
  environment);
- anything shaped like a Google API key (``AIza`` + 35 characters) and ``key=...`` query
  parameters, so a key we were never told about still does not leak through a URL;
- the value of any field whose name says it holds a secret (``api_key``,
  ``x-goog-api-key``, ``authorization``, ``password``, ``secret`` ...). Token *counts*
  (``input_tokens``) are not secrets and are left alone.

``redact_processor`` is the same step as a structlog processor, for the log configuration.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping, MutableMapping
from typing import Any

MASK = "***"
KEY_ENV_VARS = ("GEMINI_API_KEY", "GOOGLE_API_KEY")

# Shorter values are not masked: a one-letter "key" would blank out half the output.
_MIN_SECRET_LEN = 8
_GOOGLE_KEY = re.compile(r"AIza[0-9A-Za-z_\-]{35}")
_KEY_PARAM = re.compile(r"(?i)([?&](?:key|api_key)=)[^&\s\"']+")
_SECRET_NAME = re.compile(
    r"(?i)^(?:x[-_]goog[-_])?(?:.*[-_])?(?:api[-_]?key|authorization|password|passwd|secret"
    r"|client[-_]secret|access[-_]token|refresh[-_]token|bearer)$"
)

_lock = threading.Lock()
_registered: set[str] = set()


def register_secret(value: str | None) -> None:
    """Remember ``value`` so every later ``redact`` masks it."""
    if value and len(value.strip()) >= _MIN_SECRET_LEN:
        with _lock:
            _registered.add(value.strip())


def _secrets() -> list[str]:
    found = {os.environ.get(name, "").strip() for name in KEY_ENV_VARS}
    with _lock:
        found |= _registered
    # Longest first, so a secret that contains another is masked whole.
    return sorted((s for s in found if len(s) >= _MIN_SECRET_LEN), key=len, reverse=True)


def is_secret_name(name: str) -> bool:
    """Whether a field or header called ``name`` holds a secret."""
    return bool(_SECRET_NAME.match(name))


def redact_text(text: str, secrets: list[str] | None = None) -> str:
    """``text`` with every known secret, key-shaped string and ``key=`` parameter masked."""
    for secret in _secrets() if secrets is None else secrets:
        text = text.replace(secret, MASK)
    text = _GOOGLE_KEY.sub(MASK, text)
    return _KEY_PARAM.sub(lambda m: m.group(1) + MASK, text)


def redact(obj: Any) -> Any:
    """A copy of ``obj`` (str, mapping, list, tuple, nested) with secrets masked.

    Other values (numbers, None, models) are returned as they are; dump a Pydantic model
    with ``model_dump(mode="json")`` first to redact it.
    """
    return _redact(obj, _secrets())


def _redact(obj: Any, secrets: list[str]) -> Any:
    if isinstance(obj, str):
        return redact_text(obj, secrets)
    if isinstance(obj, Mapping):
        return {
            k: (MASK if isinstance(k, str) and is_secret_name(k) and v else _redact(v, secrets))
            for k, v in obj.items()
        }
    if isinstance(obj, list):
        return [_redact(v, secrets) for v in obj]
    if isinstance(obj, tuple):
        return tuple(_redact(v, secrets) for v in obj)
    return obj


def redact_processor(
    logger: Any, method_name: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """structlog processor: put it before the renderer so no sink ever sees a key."""
    del logger, method_name
    secrets = _secrets()
    for name, value in list(event_dict.items()):
        if is_secret_name(name) and value:
            event_dict[name] = MASK
        elif isinstance(value, str | Mapping | list | tuple):
            event_dict[name] = _redact(value, secrets)
        elif isinstance(value, BaseException):
            event_dict[name] = redact_text(f"{type(value).__name__}: {value}", secrets)
    return event_dict

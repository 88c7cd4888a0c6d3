"""Choosing a backend by name (``--backend``). Gemini is imported only when asked for:
google-genai is heavy, and the offline path must run without it."""

from __future__ import annotations

from agents.errors import LLMConfigError
from agents.llm.boundary import LLMBackend
from agents.llm.offline import OfflineBackend

__all__ = ["make_backend"]


def make_backend(name: str, *, model: str | None = None) -> LLMBackend:
    """The backend called ``name``; unknown names are a clear error."""
    if name == "offline":
        return OfflineBackend()
    if name == "gemini":
        from agents.llm.gemini import GeminiBackend

        return GeminiBackend.from_env(model=model)
    raise LLMConfigError(f"unknown backend {name!r}; choose 'offline' or 'gemini'")

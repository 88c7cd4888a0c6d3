"""The LLM boundary's public names; see ``agents.llm.boundary`` for the design.

The Gemini backend is not imported here (google-genai is heavy): ``make_backend("gemini")``
loads it, or import ``agents.llm.gemini`` by its own path.
"""

from __future__ import annotations

from agents.llm.boundary import (
    IntakeExtraction,
    LLMBackend,
    LLMCall,
    LLMLedger,
    LLMResult,
    Source,
)
from agents.llm.fake import RecordingBackend
from agents.llm.letters import check_letter, letter_mentions, template_letter
from agents.llm.offline import OfflineBackend
from agents.llm.prompts import INTAKE_SYSTEM, LETTER_SYSTEM, response_schema
from agents.llm.registry import make_backend
from agents.llm.textparse import (
    is_relative_target,
    parse_request_text,
    resolve_target_phrase,
    unresolved_field,
)

__all__ = [
    "INTAKE_SYSTEM",
    "LETTER_SYSTEM",
    "IntakeExtraction",
    "LLMBackend",
    "LLMCall",
    "LLMLedger",
    "LLMResult",
    "OfflineBackend",
    "RecordingBackend",
    "Source",
    "check_letter",
    "is_relative_target",
    "letter_mentions",
    "make_backend",
    "parse_request_text",
    "resolve_target_phrase",
    "response_schema",
    "template_letter",
    "unresolved_field",
]

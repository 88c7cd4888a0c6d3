"""The offline backend: the rule-based text parser and the template letter, behind the
``LLMBackend`` interface. The default backend, and the path every other backend falls back
to, so a fallback reads the text and writes the letter exactly as ``--backend offline``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents.catalog import Catalog
from agents.llm.boundary import IntakeExtraction, LLMLedger, LLMResult
from agents.llm.letters import template_letter
from agents.llm.textparse import parse_request_text

if TYPE_CHECKING:
    from agents.artifacts import Recommendation

__all__ = ["OfflineBackend"]


class OfflineBackend:
    """Deterministic: the rule-based text parser and the template letter. Needs nothing."""

    name = "offline"
    model = "rules"

    def extract_intake(
        self, text: str, *, catalog: Catalog, ledger: LLMLedger
    ) -> LLMResult[IntakeExtraction]:
        return LLMResult(value=parse_request_text(text, catalog), source="offline")

    def write_letter(self, draft: Recommendation, *, ledger: LLMLedger) -> LLMResult[str]:
        return LLMResult(value=template_letter(draft), source="offline")

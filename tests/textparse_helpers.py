"""Shared pieces for the offline free-text reader tests: the sample catalog and ``parse``,
which reads request text against it."""

from __future__ import annotations

from typing import Any

from agents.catalog import Catalog, load_catalog
from agents.llm import IntakeExtraction, parse_request_text

CAT: Catalog = load_catalog()


def parse(text: str, **kw: Any) -> IntakeExtraction:
    return parse_request_text(text, CAT, **kw)

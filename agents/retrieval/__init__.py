from __future__ import annotations

from agents.retrieval.index import Hit, Retriever, default_index_dir, index_fingerprint

__all__ = [
    "Hit",
    "Retriever",
    "default_index_dir",
    "index_fingerprint",
]

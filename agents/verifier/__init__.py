from __future__ import annotations

from agents.verifier.verify import Defect, verify_plan

__all__ = [
    "Defect",
    "verify_plan",
]

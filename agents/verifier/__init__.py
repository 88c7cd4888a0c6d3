"""The independent plan verifier: a term-by-term simulation of a plan against the catalog.
Code outside the package imports these names from here."""

from __future__ import annotations

from agents.verifier.defects import Defect
from agents.verifier.verify import verify_plan

__all__ = [
    "Defect",
    "verify_plan",
]

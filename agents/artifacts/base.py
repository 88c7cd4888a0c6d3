"""Shared vocabulary of the artifacts: the strict base model and the fixed value sets."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

REQUEST_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"

Intent = Literal[
    "plan_degree",
    "plan_next_term",
    "add_program",
    "switch_program",
    "check_progress",
    "policy_question",
]
Weekday = Literal["M", "T", "W", "R", "F", "S", "U"]
StageStatus = Literal["done", "not_needed"]
Outcome = Literal[
    "approved",
    "approved_with_risks",
    "unresolved_after_max_rounds",
    "infeasible",
    "needs_input",
    "answered",
]


class Artifact(BaseModel):
    """Base of every artifact: strict, so a typo in a field name is an error."""

    model_config = ConfigDict(extra="forbid")

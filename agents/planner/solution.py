"""What one solve of the planner returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

SolveStatus = Literal["optimal", "feasible", "infeasible", "unknown"]


@dataclass
class Solution:
    """A solved plan: positions of planned courses and what each course counts toward."""

    status: SolveStatus
    placement: dict[str, int] = field(default_factory=dict)
    counts: dict[str, list[str]] = field(default_factory=dict)  # record courses included
    graduation: int = -1
    stages: list[str] = field(default_factory=list)
    # With "unknown": the step whose time limit ran out first, and that limit in seconds.
    limit: tuple[Literal["course_selection", "placement"], float] | None = None
    retried: bool = False  # solved again on the full pool after the pruned one had no plan
    # With standard loads below the caps: the graduation (position) the caps allowed before
    # the overload stage traded it for fewer terms above the standard loads (-1: no trade).
    caps_graduation: int = -1

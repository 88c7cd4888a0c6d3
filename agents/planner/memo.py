"""Each planning problem of a request solved once, however many stages ask it.

Stages ask the planner the same question more than once: the close-programs baseline at
synthesis is the plan scheduling made for the final constraint set; a program planned
alone for the counter-proposal's blockers is the request's own plan when it is the only
program. ``PlanMemo.plan`` answers a repeated question with (a copy of) the first answer.

A question is the canonical JSON of everything ``plan()`` reads: the content digest of the
catalog (``catalog_digest``, once per catalog object), the calendar terms are read in when
it is not the catalog's own, the student record, the programs in order and the
constraints. The planner is deterministic (one worker, a fixed seed, deterministic time
budgets), so the answer kept is the one a fresh solve gives - except where a wall-clock
limit cut a step short: such a result (``time_limits`` not empty) is never kept, the next
asker solves again as before. ``solve_ms`` of a reused answer is that of the solve that
made it.

The memo belongs to one request: ``Toolbox.plans`` starts a new one whenever the toolbox
is handed another request's ledger, so a batch that meets the same student twice solves
twice (each request costs what it costs, and the suite's determinism re-run re-solves).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence

import structlog

from agents.catalog import Catalog, StudentRecord, active_calendar
from agents.planner import PlanConstraints, PlanResult

log = structlog.get_logger(__name__)

__all__ = ["PLAN_MEMO_SIZE", "PlanFn", "PlanMemo", "catalog_digest", "problem_key"]

PlanFn = Callable[[Catalog, StudentRecord, Sequence[str], PlanConstraints], PlanResult]
"""``agents.planner.plan``'s signature; callers pass the one they import, so a test that
replaces a stage's ``plan`` still sees every solve."""

PLAN_MEMO_SIZE = 32
"""Problems kept per request: a request asks a few (a plan per round, clash re-plans, a
counter-proposal and its blockers, a plan per program close by)."""

_DIGEST = "content.sha256"


def catalog_digest(catalog: Catalog) -> str:
    """sha256 of the catalog's content (its JSON), computed once per catalog object and
    kept with it (``Catalog.derived``; the model is frozen, so it never goes stale)."""
    digest: str | None = catalog.derived.get(_DIGEST)
    if digest is None:
        digest = hashlib.sha256(catalog.model_dump_json().encode("utf-8")).hexdigest()
        catalog.derived[_DIGEST] = digest
    return digest


def problem_key(
    catalog: Catalog,
    student: StudentRecord,
    programs: Sequence[str],
    constraints: PlanConstraints,
) -> str:
    """The canonical dump of one ``plan()`` call's inputs, hashed."""
    calendar = active_calendar()
    own = calendar is catalog.calendar or calendar == catalog.calendar
    payload = {
        "catalog": catalog_digest(catalog),
        "calendar": None if own else calendar.model_dump(mode="json"),
        "student": student.model_dump(mode="json"),
        "programs": list(programs),
        "constraints": constraints.model_dump(mode="json"),
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class PlanMemo:
    """The plans one request has solved, by problem (``problem_key``); bounded."""

    def __init__(self, owner: object | None = None, size: int | None = None) -> None:
        self.owner = owner
        """What the memo belongs to (a request's ledger, see ``Toolbox.plans``)."""
        self.size = PLAN_MEMO_SIZE if size is None else size
        """Problems kept (0: none, every question is solved)."""
        self.solved = 0
        """Problems solved through this memo."""
        self.reused = 0
        """Questions answered without solving."""
        self._results: dict[str, PlanResult] = {}

    def plan(
        self,
        solve: PlanFn,
        catalog: Catalog,
        student: StudentRecord,
        programs: Sequence[str],
        constraints: PlanConstraints,
    ) -> PlanResult:
        """``solve(catalog, student, programs, constraints)``, or the kept answer to it.
        Every caller gets its own copy: results are mutable models."""
        key = problem_key(catalog, student, programs, constraints)
        kept = self._results.get(key)
        if kept is not None:
            self.reused += 1
            log.debug("plan_memo.reused", student=student.id, programs=list(programs))
            return kept.model_copy(deep=True)
        result = solve(catalog, student, programs, constraints)
        self.solved += 1
        if not result.time_limits and self.size > 0:
            while len(self._results) >= self.size:
                self._results.pop(next(iter(self._results)))
            self._results[key] = result.model_copy(deep=True)
        return result

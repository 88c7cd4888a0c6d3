"""The audit's memo: a question asked twice gets the first (frozen) answer, whichever stage
asks it - the planner audits its final plan, and so do the critique and the verifier.

A question is everything an audit reads, by content: the student record as JSON (its
courses, its advisor exceptions and the catalog years it follows, which decide the
student's effective catalog, ``agents.catalog.overrides``), the programs in the order
asked, the what-if programs, the planned courses, and the calendar terms are read in when
it is not the catalog's own. One bounded memo per base catalog holds every student's
answers: the planner passes the student's effective catalog and the stages the base one,
and both ask the same question of the same memo. Nothing is keyed on ``id()``: the memo
lives and dies with its catalog (``Catalog.derived``), and a record whose exceptions or
catalog years differ is another question. The ``AUDIT_MEMO_SIZE`` questions asked last
are kept (least recently asked out first).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agents.audit.report import AuditReport
from agents.catalog import Catalog, StudentRecord, active_calendar
from agents.catalog.overrides import base_catalog

__all__ = ["AUDIT_MEMO_SIZE", "AuditKey", "audit_key", "kept", "recall", "remember"]

AUDIT_MEMO_SIZE = 128
"""Audits kept per base catalog (about 100 KiB each on the sample catalog). A request asks
a handful (the record; each plan it checks) and up to 20 with programs close by."""

AuditKey = tuple[str, tuple[str, ...] | None, tuple[str, ...], tuple[tuple[str, str], ...], str]

_MEMO = "audit.reports"


def audit_key(
    catalog: Catalog,
    student: StudentRecord,
    programs: Sequence[str] | None,
    add_programs: Sequence[str],
    planned: Mapping[str, str],
) -> AuditKey:
    """The question, by content (``catalog``: the catalog the audit reads)."""
    calendar = active_calendar()
    # Terms are read in the calendar in use: the catalog's own, unless a caller reads them
    # in another (then that calendar is part of the question).
    own = calendar is catalog.calendar or calendar == catalog.calendar
    reading = "" if own else calendar.model_dump_json()
    return (
        student.model_dump_json(),
        None if programs is None else tuple(programs),
        tuple(add_programs),
        tuple(sorted(planned.items())),
        reading,
    )


def _memo(catalog: Catalog) -> dict[AuditKey, AuditReport]:
    memo: dict[AuditKey, AuditReport] = base_catalog(catalog).derived.setdefault(_MEMO, {})
    return memo


def recall(catalog: Catalog, key: AuditKey) -> AuditReport | None:
    """The answer to ``key`` if it is kept (it becomes the most recently asked)."""
    memo = _memo(catalog)
    report = memo.pop(key, None)
    if report is not None:
        memo[key] = report
    return report


def remember(catalog: Catalog, key: AuditKey, report: AuditReport) -> None:
    """Keep ``report`` as the answer to ``key``, dropping the least recently asked."""
    memo = _memo(catalog)
    while len(memo) >= AUDIT_MEMO_SIZE:
        memo.pop(next(iter(memo)))
    memo[key] = report


def kept(catalog: Catalog) -> int:
    """How many answers ``catalog`` keeps (for tests)."""
    return len(_memo(catalog))

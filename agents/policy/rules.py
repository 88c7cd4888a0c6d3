"""Which catalog rules apply to a student, and the unit load each planned term may carry
(the checks that use them are in ``agents.policy.checks``).

Applicability (``PolicyRule.applies_when``): every condition given must hold.

- ``gpa_min``: GPA >= gpa_min; ``gpa_max``: GPA < gpa_max. A student without a GPA (no
  graded course yet) meets neither, so a GPA-conditioned rule never applies to them.
- ``standing_in`` / ``status_in``: the standing / academic status is one of those listed
  (empty: any). A ``probation_max_units`` rule applies only to students on probation even
  when the catalog leaves ``status_in`` empty - that is what the kind means.
- Future grades are unknown, so the current GPA and status hold for every planned term.
  Class standing is re-evaluated per planned term from the units earned, in progress and
  planned before it (in-progress and planned courses assumed passed): a first-year becomes
  a sophomore once 90 units are behind them.

Unit load of a planned term (``load_limit``): the *standard* maximum is the smallest limit
among the ``max_units_per_term`` and ``probation_max_units`` rules that apply (ties go to
the rule with more conditions, so a first-year is cited FIRST-YEAR-MAX rather than
LOAD-MAX). Unless a probation rule applies, an ``overload`` rule that applies raises the
*allowed* maximum to its limit, and every term above the standard maximum needs the
rule's approval. Above the allowed maximum is a hard violation citing the rule that sets
it; in the overload band it is a soft violation (a risk once the approval is assumed).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import structlog

from agents.artifacts import (
    CitationRef,
    ScheduledTerm,
    StudentProfile,
)
from agents.catalog import AcademicStatus, Catalog, ClassStanding, PolicyRule, Term

log = structlog.get_logger(__name__)

Cite = Callable[[str], CitationRef]

NOT_ATTEMPTS = frozenset({"W"})
LOAD_KINDS = frozenset({"max_units_per_term", "probation_max_units", "overload"})
STANDING_WORDS: dict[ClassStanding, str] = {
    "first_year": "a first-year student",
    "sophomore": "a sophomore",
    "junior": "a junior",
    "senior": "a senior",
}
STATUS_WORDS: dict[AcademicStatus, str] = {
    "good": "in good academic standing",
    "warning": "on academic warning",
    "probation": "on academic probation",
    "suspended": "while suspended",
}


def num(x: float) -> str:
    """63.0 -> '63', 10.5 -> '10.5': units read as the catalog writes them."""
    return f"{x:g}"


def label(term: str) -> str:
    return Term.parse(term).label()


def join(items: Sequence[str]) -> str:
    """'A', 'A and B', 'A, B and C'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


# --------------------------------------------------------------------------- applicability


def condition_failure(
    rule: PolicyRule, *, gpa: float | None, standing: ClassStanding, status: AcademicStatus
) -> str | None:
    """Why ``rule`` does not apply, as a phrase ('with a GPA of 2.60'); None if it applies."""
    when = rule.applies_when
    no_gpa = "without a GPA on record"
    if when.gpa_min is not None and (gpa is None or gpa < when.gpa_min):
        return no_gpa if gpa is None else f"with a GPA of {gpa:.2f}"
    if when.gpa_max is not None and (gpa is None or gpa >= when.gpa_max):
        return no_gpa if gpa is None else f"with a GPA of {gpa:.2f}"
    if when.standing_in and standing not in when.standing_in:
        return f"as {STANDING_WORDS[standing]}"
    if when.status_in and status not in when.status_in:
        return STATUS_WORDS[status]
    if rule.kind == "probation_max_units" and not when.status_in and status != "probation":
        return STATUS_WORDS[status]
    return None


def rule_applies(
    rule: PolicyRule, *, gpa: float | None, standing: ClassStanding, status: AcademicStatus
) -> bool:
    return condition_failure(rule, gpa=gpa, standing=standing, status=status) is None


def applicable_rules(
    catalog: Catalog, profile: StudentProfile, *, standing: ClassStanding | None = None
) -> list[PolicyRule]:
    """Rules that apply to the student now (or at ``standing``), in catalog order."""
    st = standing or profile.class_standing
    return [
        r
        for r in catalog.policies
        if rule_applies(r, gpa=profile.gpa, standing=st, status=profile.academic_status)
    ]


def standings_by_term(
    catalog: Catalog, profile: StudentProfile, terms: Sequence[ScheduledTerm]
) -> dict[str, ClassStanding]:
    """Class standing at the start of each planned term."""
    units = profile.units_earned + profile.units_in_progress
    out: dict[str, ClassStanding] = {}
    for t in sorted(terms, key=lambda t: Term.parse(t.term).index):
        out[t.term] = catalog.standing_for_units(units)
        units += t.units
    return out


def _specificity(rule: PolicyRule) -> int:
    w = rule.applies_when
    return sum(
        [w.gpa_min is not None, w.gpa_max is not None, bool(w.standing_in), bool(w.status_in)]
    )


@dataclass(frozen=True)
class LoadLimit:
    """The most units one term may carry, and which rules say so."""

    standard: float
    standard_rule: PolicyRule
    allowed: float
    overload_rule: PolicyRule | None
    why: str  # why the allowed maximum is what it is: 'with a GPA of 2.60'
    applied: tuple[str, ...]  # every load rule that applies, superseded ones included

    @property
    def binding_rule(self) -> PolicyRule:
        return self.overload_rule or self.standard_rule


@dataclass(frozen=True)
class LoadCaps:
    """The catalog's load caps before any student is known: ``standard`` is the smallest
    per-term cap a rule sets for students in any status (rules limited to a status, e.g.
    probation, do not lower it); ``ceiling`` is the highest any rule allows anyone (the
    largest overload). Without any load rule both are ``unbounded``: the units of every
    course in the catalog, a cap that never binds."""

    standard: float
    ceiling: float


def catalog_load_caps(catalog: Catalog) -> LoadCaps:
    """The one home of the catalog-wide load caps (the planner's round-1 caps)."""
    standard = [
        r.limit
        for r in catalog.policies
        if r.kind == "max_units_per_term" and r.limit is not None and not r.applies_when.status_in
    ]
    overload = [r.limit for r in catalog.policies if r.kind == "overload" and r.limit is not None]
    unbounded = sum(c.units for c in catalog.courses)
    std = min(standard) if standard else unbounded
    return LoadCaps(standard=std, ceiling=max([std, *overload]))


def load_limit(
    catalog: Catalog, *, gpa: float | None, standing: ClassStanding, status: AcademicStatus
) -> LoadLimit | None:
    """The load limit for a term (see the module docstring); None if no rule caps load."""
    applying = [
        r
        for r in catalog.policies
        if r.limit is not None and rule_applies(r, gpa=gpa, standing=standing, status=status)
    ]
    caps = [r for r in applying if r.kind in ("max_units_per_term", "probation_max_units")]
    if not caps:
        return None
    std = min(caps, key=lambda r: (r.limit, -_specificity(r)))
    assert std.limit is not None
    probation = any(r.kind == "probation_max_units" for r in caps)
    overloads = [
        r
        for r in applying
        if not probation and r.kind == "overload" and r.limit is not None and r.limit > std.limit
    ]
    over = max(overloads, key=lambda r: r.limit or 0) if overloads else None
    if over is not None:
        why = f"even with {over.requires_approval or 'advisor'} approval"
    elif std.kind == "probation_max_units":
        why = STATUS_WORDS["probation"]
    elif std.applies_when.status_in:
        why = STATUS_WORDS[status]
    else:
        why = _why_no_overload(catalog, std, gpa=gpa, standing=standing, status=status)
    allowed = over.limit if over is not None and over.limit is not None else std.limit
    applied = tuple(r.id for r in applying if r.kind in LOAD_KINDS)
    return LoadLimit(std.limit, std, allowed, over, why, applied)


def _why_no_overload(
    catalog: Catalog,
    std: PolicyRule,
    *,
    gpa: float | None,
    standing: ClassStanding,
    status: AcademicStatus,
) -> str:
    higher = [
        r
        for r in catalog.policies
        if r.kind == "overload" and r.limit is not None and r.limit > (std.limit or 0)
    ]
    if higher:
        best = max(higher, key=lambda r: r.limit or 0)
        why = condition_failure(best, gpa=gpa, standing=standing, status=status)
        if why:
            return why
    if std.applies_when.standing_in:
        return f"as {STANDING_WORDS[standing]}"
    return ""

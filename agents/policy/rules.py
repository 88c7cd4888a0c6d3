"""Which catalog rules apply to a student, and the unit load each planned term may carry
(the checks that use them are in ``agents.policy.checks``; conditions, limit tables and
term kinds in ``agents.policy.conditions``; the status academic_standing rules give in
``agents.policy.standing``).

Applicability (``PolicyRule.applies_when``): every condition given must hold (see
``conditions``). A ``probation_max_units`` rule applies only to students on probation even
when the catalog leaves ``status_in`` empty - that is what the kind means. Future grades
are unknown, so the current GPA, recent GPA and status hold for every planned term. Class
standing is re-evaluated per planned term from the units earned, in progress and planned
before it (in-progress and planned courses assumed passed): a first-year becomes a
sophomore once 90 units are behind them.

Unit load of a planned term (``term_load_limit``): each load rule that covers the term
(``conditions.governs``: plain rules cover regular terms, and optional terms no rule names;
rules with ``term_kinds`` cover their kinds) and applies has its effective limit (the first
``limit_table`` row that holds, else ``limit``). The *standard* maximum is the smallest
limit among the ``max_units_per_term`` and ``probation_max_units`` rules (ties go to the
rule with more conditions, so a first-year is cited FIRST-YEAR-MAX rather than LOAD-MAX).
Unless a probation rule applies, an ``overload`` rule that applies raises the *allowed*
maximum to its limit, and every term above the standard maximum needs the rule's approval.
A standard maximum that names who may approve more (``requires_approval``: "more than 20
units needs the dean's approval") is its own overload: the allowed maximum is the next
maximum that names no one (none: no limit).
Above the allowed maximum is a hard violation citing the rule that sets it; in the overload
band it is a soft violation (a risk once the approval is assumed).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import structlog

from agents.artifacts import CitationRef, ScheduledTerm, StudentProfile
from agents.catalog import (
    AcademicStatus,
    Catalog,
    ClassStanding,
    PolicyRule,
    StudentRecord,
    Term,
    credit_sum,
)
from agents.catalog.policies import LimitRow
from agents.policy.conditions import (
    STANDING_WORDS,
    Facts,
    condition_gap,
    condition_words,
    governs,
    matching_row,
    named_kinds,
    specificity,
)
from agents.policy.standing import student_facts

log = structlog.get_logger(__name__)

Cite = Callable[[str], CitationRef]

NOT_ATTEMPTS = frozenset({"W"})
LOAD_KINDS = frozenset({"max_units_per_term", "probation_max_units", "overload"})
CAP_KINDS = frozenset({"max_units_per_term", "probation_max_units"})


def num(x: float) -> str:
    """63.0 -> '63', 10.5 -> '10.5': units read as the catalog writes them."""
    return f"{x:g}"


def label(term: str) -> str:
    return Term.parse(term).label()


def join(items: Sequence[str]) -> str:
    """'A', 'A and B', 'A, B and C'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


# --------------------------------------------------------------------------- applicability


def failure(rule: PolicyRule, facts: Facts) -> str | None:
    """Why ``rule`` does not apply, as a phrase ('with a GPA of 2.60'); None if it applies."""
    gap = condition_gap(rule.applies_when, facts)
    if gap is not None:
        return gap
    if rule.kind == "probation_max_units" and not rule.applies_when.status_in:
        return None if facts.status == "probation" else facts.status_words
    return None


def condition_failure(
    rule: PolicyRule, *, gpa: float | None, standing: ClassStanding, status: AcademicStatus
) -> str | None:
    """``failure`` for a student known by GPA, standing and status only."""
    return failure(rule, Facts(gpa=gpa, standing=standing, status=status))


def rule_applies(
    rule: PolicyRule, *, gpa: float | None, standing: ClassStanding, status: AcademicStatus
) -> bool:
    return condition_failure(rule, gpa=gpa, standing=standing, status=status) is None


def applicable_rules(
    catalog: Catalog,
    profile: StudentProfile,
    *,
    standing: ClassStanding | None = None,
    record: StudentRecord | None = None,
    facts: Facts | None = None,
) -> list[PolicyRule]:
    """Rules that apply to the student now (or at ``standing``), in catalog order. The
    facts come from ``profile`` (and ``record`` for recent-term GPAs) unless given."""
    base = facts or student_facts(catalog, profile, record)
    at = base.at(standing=standing)
    return [r for r in catalog.policies if failure(r, at) is None]


def standings_by_term(
    catalog: Catalog,
    profile: StudentProfile,
    terms: Sequence[ScheduledTerm],
    record: StudentRecord | None = None,
) -> dict[str, ClassStanding]:
    """Class standing at the start of each planned term: the units earned and in progress
    (assumed passed), then the credit each earlier planned term adds. With the record, a
    planned retake of a course already earned (not repeatable for credit) adds none - the
    units the planner and the verifier count, so a plan within the caps they apply by
    standing is within these too."""
    units = credit_sum([profile.units_earned, profile.units_in_progress])
    have = record.earned_courses(catalog, include_in_progress=True) if record else set()
    out: dict[str, ClassStanding] = {}
    for t in sorted(terms, key=lambda t: Term.parse(t.term).index):
        out[t.term] = catalog.standing_for_units(units)
        if record is None:
            units = credit_sum([units, t.units])
            continue
        for sc in t.courses:
            course = catalog.course_by_code.get(sc.course)
            if (course is not None and course.repeatable) or sc.course not in have:
                units = credit_sum([units, sc.units])
                have.add(sc.course)
    return out


# --------------------------------------------------------------------------- load limits


@dataclass(frozen=True)
class LoadLimit:
    """The most units one term may carry, and which rules say so."""

    standard: float
    standard_rule: PolicyRule
    allowed: float
    overload_rule: PolicyRule | None
    why: str  # why the allowed maximum is what it is: 'with a GPA of 2.60'
    applied: tuple[str, ...]  # every load rule that applies, superseded ones included
    kind_specific: bool = False  # the standard maximum is one for the term's kind only
    ceiling_rule: PolicyRule | None = None  # sets ``allowed`` above an approvable maximum

    @property
    def binding_rule(self) -> PolicyRule:
        return self.ceiling_rule or self.overload_rule or self.standard_rule


def load_limit(
    catalog: Catalog,
    *,
    gpa: float | None,
    standing: ClassStanding,
    status: AcademicStatus,
    term: str | None = None,
) -> LoadLimit | None:
    """``term_load_limit`` for a student known by GPA, standing and status only."""
    when = Term.parse(term) if term is not None else None
    return term_load_limit(catalog, Facts(gpa=gpa, standing=standing, status=status, term=when))


Entry = tuple[PolicyRule, float, LimitRow | None]


def term_load_limit(catalog: Catalog, facts: Facts) -> LoadLimit | None:
    """The load limit of a term (``facts.term``; None: any term the plain rules cover), as
    the module docstring says; None if no rule caps it."""
    family = [r for r in catalog.policies if r.kind in LOAD_KINDS]
    named = named_kinds(family)
    entries: list[Entry] = []
    for r in family:
        if facts.term is None and r.applies_when.term_kinds:
            continue  # no term: the plain rules speak for a term in general
        if facts.term is not None and not governs(r, facts.term, named, optional_terms=True):
            continue
        if failure(r, facts) is not None:
            continue
        row = matching_row(r, facts)
        limit = row.limit if row is not None else r.limit
        if limit is not None:
            entries.append((r, limit, row))
    caps = [e for e in entries if e[0].kind in CAP_KINDS]
    if not caps:
        return None
    std, std_limit, std_row = min(caps, key=lambda e: (e[1], -_specificity(e)))
    probation = any(e[0].kind == "probation_max_units" for e in caps)
    overloads = [e for e in entries if not probation and e[0].kind == "overload"]
    overloads = [e for e in overloads if e[1] > std_limit]
    over = max(overloads, key=lambda e: e[1]) if overloads else None
    status_rule = std.kind == "probation_max_units" or bool(std.applies_when.status_in)
    if over is not None:
        why = f"even with {over[0].requires_approval or 'advisor'} approval"
    elif status_rule:
        why = facts.status_words
    elif std.applies_when.term_kinds:
        why = condition_words(std.applies_when, facts)
    else:
        why = _why_no_overload(catalog, std, std_limit, facts, named)
    if over is None and std_row is not None:
        row_words = condition_words(std_row.when, facts)
        why = f"{why}, {row_words}" if status_rule and row_words else row_words or why
    allowed = over[1] if over is not None else std_limit
    applied = tuple(e[0].id for e in entries)
    kind_specific = bool(std.applies_when.term_kinds) or bool(std_row and std_row.when.term_kinds)
    if over is None and approvable(std):
        # A maximum that names who may approve more is its own overload: above it, that
        # approval; the next maximum that names no one, if any, is the most allowed.
        above = [e for e in caps if e[1] > std_limit and e[0].requires_approval is None]
        top = min(above, key=lambda e: e[1]) if above else None
        return LoadLimit(
            std_limit,
            std,
            top[1] if top is not None else math.inf,
            std,
            f"even with {std.requires_approval} approval",
            applied,
            kind_specific,
            top[0] if top is not None else None,
        )
    return LoadLimit(
        std_limit, std, allowed, over[0] if over else None, why, applied, kind_specific
    )


def approvable(rule: PolicyRule) -> bool:
    """Whether a per-term maximum (units or courses) may be exceeded with the approval of
    the person it names (``requires_approval``): not a probation cap, nor one for a status
    (suspended), which no approval lifts."""
    kinds = ("max_units_per_term", "max_courses_per_term")
    named = rule.requires_approval is not None
    return rule.kind in kinds and named and not rule.applies_when.status_in


def _specificity(entry: Entry) -> int:
    rule, _, row = entry
    return specificity(rule.applies_when) + (specificity(row.when) if row is not None else 0)


def _why_no_overload(
    catalog: Catalog, std: PolicyRule, std_limit: float, facts: Facts, named: frozenset[str]
) -> str:
    def top(r: PolicyRule) -> float:
        return max([x for x in [r.limit, *(w.limit for w in r.limit_table)] if x is not None])

    higher = [
        r
        for r in catalog.policies
        if r.kind == "overload"
        and (r.limit is not None or r.limit_table)
        and top(r) > std_limit
        and (
            governs(r, facts.term, named, optional_terms=True)
            if facts.term is not None
            else not r.applies_when.term_kinds
        )
    ]
    if higher:
        why = failure(max(higher, key=top), facts)
        if why:
            return why
    if std.applies_when.standing_in:
        return f"as {STANDING_WORDS[facts.standing]}"
    return ""

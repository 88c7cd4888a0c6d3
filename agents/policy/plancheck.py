"""What every policy check works on: the schedule and the student (``PlanCheck``), and what
the checks find (``Findings``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import structlog

from agents.artifacts import (
    ApprovalItem,
    ApprovalUse,
    Modification,
    Risk,
    Schedule,
    ScheduledTerm,
    StudentProfile,
    Violation,
)
from agents.audit import AuditReport, audit
from agents.catalog import Catalog, ClassStanding, PolicyRule, StudentRecord, Term
from agents.policy.conditions import Facts, threshold
from agents.policy.rules import Cite, standings_by_term
from agents.policy.standing import student_facts

log = structlog.get_logger(__name__)


@dataclass
class Findings:
    """What the checks found; ``checked`` lists the ids of the rules that were applied."""

    violations: list[Violation] = field(default_factory=list)
    risks: list[Risk] = field(default_factory=list)
    suggestions: list[Modification] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    approvals: list[ApprovalUse] = field(default_factory=list)

    def mark(self, rule_id: str) -> None:
        if rule_id not in self.checked:
            self.checked.append(rule_id)

    def suggest(self, mod: Modification) -> None:
        if mod not in self.suggestions:
            self.suggestions.append(mod)


@dataclass(frozen=True)
class PlanCheck:
    """Everything a check reads: the student, the plan, and how to cite a rule."""

    catalog: Catalog
    profile: StudentProfile
    record: StudentRecord | None
    programs: list[str]
    schedule: Schedule
    cite: Cite
    decisions: tuple[ApprovalItem, ...] = ()

    @property
    def enrolled_terms(self) -> list[ScheduledTerm]:
        """Planned terms with courses, in order."""
        terms = [t for t in self.schedule.terms if not t.away and t.courses]
        return sorted(terms, key=lambda t: Term.parse(t.term).index)

    @property
    def approvals(self) -> frozenset[str]:
        """Rule ids a constraint set of an older run assumed approved (no longer set: a
        person decides, see ``decision``)."""
        c = self.schedule.constraints
        return frozenset(c.approvals_assumed if c else ())

    def decision(self, rule_id: str, term: str) -> ApprovalUse | None:
        """The decision on ``rule_id`` for planned ``term``: an advisor's on this run (the
        latest wins), else an approve exception in the record covering the term."""
        for item in reversed(self.decisions):
            if item.rule_id == rule_id and term in item.terms and item.decision != "pending":
                return ApprovalUse(
                    rule_id=rule_id,
                    term=term,
                    decision=item.decision,
                    by=item.by or "",
                    date=item.decided_on or "",
                    reason=item.reason or "",
                    source=item.source or "advisor",
                    citation=self.cite(rule_id),
                )
        index = Term.parse(term).index
        for grant in self.record.approvals() if self.record is not None else []:
            first = Term.parse(grant.term).index
            last = Term.parse(grant.through or grant.term).index
            if grant.rule == rule_id and first <= index <= last:
                return ApprovalUse(
                    rule_id=rule_id,
                    term=term,
                    decision="approved",
                    by=grant.by,
                    date=grant.date.isoformat(),
                    reason=grant.reason,
                    source="record",
                    citation=self.cite(rule_id),
                )
        return None

    @cached_property
    def facts(self) -> Facts:
        """The student now: GPA, standing, the status academic_standing rules give, and
        recent-term GPAs from the record."""
        return student_facts(self.catalog, self.profile, self.record)

    @cached_property
    def standings(self) -> dict[str, ClassStanding]:
        """Class standing at the start of each planned term, from the units earned before
        it (``rules.standings_by_term``, counted as the planner counts them)."""
        return standings_by_term(self.catalog, self.profile, self.schedule.terms, self.record)

    def term_facts(self, term: str, standing: ClassStanding | None = None) -> Facts:
        """The student in planned ``term`` (at ``standing``, the standing then)."""
        return self.facts.at(standing=standing, term=Term.parse(term))

    def threshold(self, rule: PolicyRule, facts: Facts | None = None) -> tuple[float | None, str]:
        """The limit of ``rule`` for the student (or ``facts``) and why, in words."""
        return threshold(rule, facts or self.facts)

    @property
    def unit_name(self) -> str:
        """What the catalog's texts call units ('units', 'credits')."""
        return self.catalog.institution.unit_name

    @cached_property
    def plan_audit(self) -> AuditReport | None:
        """The degree audit of the record with the plan's courses (the audit memoizes the
        question, so every check asking it shares one answer); None without a record or a
        program of the catalog."""
        programs = [c for c in self.programs if c in self.catalog.program_by_code]
        if self.record is None or not programs:
            return None
        planned = {sc.course: t.term for t in self.enrolled_terms for sc in t.courses}
        return audit(self.catalog, self.record, programs, planned=planned)

    def violation(self, rule: PolicyRule, message: str, term: str | None = None) -> Violation:
        return Violation(
            rule_id=rule.id,
            severity=rule.severity,
            term=term,
            message=message,
            citation=self.cite(rule.id),
        )


def add_violation(f: Findings, v: Violation) -> None:
    """Record ``v`` once."""
    if v not in f.violations:
        f.violations.append(v)

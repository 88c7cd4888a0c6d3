"""What every policy check works on: the schedule and the student (``PlanCheck``), and what
the checks find (``Findings``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import structlog

from agents.artifacts import (
    Modification,
    Risk,
    Schedule,
    ScheduledTerm,
    StudentProfile,
    Violation,
)
from agents.catalog import Catalog, PolicyRule, StudentRecord, Term
from agents.policy.rules import Cite

log = structlog.get_logger(__name__)


@dataclass
class Findings:
    """What the checks found; ``checked`` lists the ids of the rules that were applied."""

    violations: list[Violation] = field(default_factory=list)
    risks: list[Risk] = field(default_factory=list)
    suggestions: list[Modification] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)

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

    @property
    def enrolled_terms(self) -> list[ScheduledTerm]:
        """Planned terms with courses, in order."""
        terms = [t for t in self.schedule.terms if not t.away and t.courses]
        return sorted(terms, key=lambda t: Term.parse(t.term).index)

    @property
    def approvals(self) -> frozenset[str]:
        c = self.schedule.constraints
        return frozenset(c.approvals_assumed if c else ())

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

"""Rule conditions evaluated for one student (and, for per-term rules, one planned term),
the limit a rule's table gives, and the words that say why.

``Facts`` is what a condition reads: the cumulative GPA, the class standing (re-evaluated
per planned term by the load checks), the academic status, the GPA over the last N
completed regular terms (from the record; unknown without one) and the planned term.

A ``RuleCondition`` holds when every field given holds:

- ``gpa_min``: GPA >= gpa_min; ``gpa_max``: GPA < gpa_max; ``recent_gpa_min``: the GPA
  over the last ``recent_terms`` completed regular terms >= recent_gpa_min. A GPA that is
  unknown (no graded course, no record) meets none of them.
- ``standing_in`` / ``status_in``: the standing / status is one of those listed.
- ``term_kinds``: the planned term is of one of these kinds. With no term (a question about
  the student, not about a term) a rule's is not evaluated (the rule applies to some
  terms), and a ``limit_table`` row with term kinds never matches.

A rule's limit is the limit of the first ``limit_table`` row whose condition holds, else
its ``limit`` (``effective_limit``). Which planned terms a per-term rule covers
(``governs``): a rule whose ``applies_when`` names term kinds covers terms of those kinds
only; a plain rule covers every regular term, and an optional term (summer) only when no
rule of its family names that kind (``optional_terms=True``: the maximum-load and
course-count families, as before term kinds existed) or one of its own rows does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from agents.catalog import AcademicStatus, Catalog, ClassStanding, PolicyRule, StudentRecord, Term
from agents.catalog.policies import LimitRow, RuleCondition

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
NO_GPA = "without a GPA on record"


def _unknown(terms: int) -> float | None:
    return None


@dataclass(frozen=True)
class Facts:
    """What rule conditions are evaluated against."""

    gpa: float | None
    standing: ClassStanding
    status: AcademicStatus
    recent: Callable[[int], float | None] = field(default=_unknown, compare=False)
    term: Term | None = None
    status_note: str = ""  # why the status is what it is, when a rule set it

    def at(self, *, standing: ClassStanding | None = None, term: Term | None = None) -> Facts:
        """The same student at another standing or in a planned term."""
        return replace(self, standing=standing or self.standing, term=term or self.term)

    @property
    def status_words(self) -> str:
        base = STATUS_WORDS[self.status]
        return f"{base} ({self.status_note})" if self.status_note else base


def recent_gpas(catalog: Catalog, record: StudentRecord | None) -> Callable[[int], float | None]:
    """The record's GPA over its last N regular terms, computed once per N."""
    if record is None:
        return _unknown
    memo: dict[int, float | None] = {}

    def recent(terms: int) -> float | None:
        if terms not in memo:
            memo[terms] = record.recent_gpa(catalog, terms)
        return memo[terms]

    return recent


def _gpa_words(gpa: float | None) -> str:
    return NO_GPA if gpa is None else f"with a GPA of {gpa:.2f}"


def _recent_words(gpa: float | None, terms: int) -> str:
    span = "regular term" if terms == 1 else f"{terms} regular terms"
    if gpa is None:
        return f"without a GPA over the last {span}"
    return f"with a GPA of {gpa:.2f} over the last {span}"


def _kind_words(term: Term) -> str:
    return f"in a {term.kind_info.name} term"


def condition_gap(when: RuleCondition, facts: Facts) -> str | None:
    """Why ``when`` does not hold, as a phrase ('with a GPA of 2.60'); None if it holds."""
    gpa = facts.gpa
    if when.gpa_min is not None and (gpa is None or gpa < when.gpa_min):
        return _gpa_words(gpa)
    if when.gpa_max is not None and (gpa is None or gpa >= when.gpa_max):
        return _gpa_words(gpa)
    if when.standing_in and facts.standing not in when.standing_in:
        return f"as {STANDING_WORDS[facts.standing]}"
    if when.status_in and facts.status not in when.status_in:
        return facts.status_words
    if when.recent_gpa_min is not None:
        recent = facts.recent(when.recent_terms)
        if recent is None or recent < when.recent_gpa_min:
            return _recent_words(recent, when.recent_terms)
    if when.term_kinds and facts.term is not None and facts.term.kind not in when.term_kinds:
        return _kind_words(facts.term)
    return None


def holds(when: RuleCondition, facts: Facts) -> bool:
    return condition_gap(when, facts) is None


def condition_words(when: RuleCondition, facts: Facts) -> str:
    """A condition that holds, in words: 'as a first-year student, in a Summer term'."""
    parts: list[str] = []
    if when.standing_in:
        parts.append(f"as {STANDING_WORDS[facts.standing]}")
    if when.status_in:
        parts.append(facts.status_words)
    if when.gpa_min is not None or when.gpa_max is not None:
        parts.append(_gpa_words(facts.gpa))
    if when.recent_gpa_min is not None:
        parts.append(_recent_words(facts.recent(when.recent_terms), when.recent_terms))
    if when.term_kinds and facts.term is not None:
        parts.append(_kind_words(facts.term))
    return ", ".join(parts)


def specificity(when: RuleCondition) -> int:
    """How many conditions ``when`` sets (the more, the more specific)."""
    return sum(
        [
            when.gpa_min is not None,
            when.gpa_max is not None,
            bool(when.standing_in),
            bool(when.status_in),
            when.recent_gpa_min is not None,
            bool(when.term_kinds),
        ]
    )


def matching_row(rule: PolicyRule, facts: Facts) -> LimitRow | None:
    """The first ``limit_table`` row whose condition holds."""
    return next((r for r in rule.limit_table if _row_holds(r, facts)), None)


def _row_holds(row: LimitRow, facts: Facts) -> bool:
    return holds(row.when, facts) and (facts.term is not None or not row.when.term_kinds)


def effective_limit(rule: PolicyRule, facts: Facts) -> float | None:
    """The limit that applies: the first matching row's, else the rule's ``limit``."""
    row = matching_row(rule, facts)
    return row.limit if row is not None else rule.limit


def threshold(rule: PolicyRule, facts: Facts) -> tuple[float | None, str]:
    """The limit that applies and why, in words ('' when it is the rule's plain limit)."""
    row = matching_row(rule, facts)
    if row is None:
        return rule.limit, ""
    return row.limit, condition_words(row.when, facts)


def because(why: str) -> str:
    """' (as a sophomore)' to follow a number; '' for no reason."""
    return f" ({why})" if why else ""


def named_kinds(rules: Iterable[PolicyRule]) -> frozenset[str]:
    """The term kinds any of ``rules`` (or their rows) names."""
    return frozenset(k for r in rules for k in r.term_kinds_named)


def governs(rule: PolicyRule, term: Term, named: frozenset[str], *, optional_terms: bool) -> bool:
    """Whether per-term ``rule`` covers planned ``term`` (see the module docstring)."""
    kinds = rule.applies_when.term_kinds
    if kinds:
        return term.kind in kinds
    if term.regular or term.kind in rule.term_kinds_named:
        return True
    return optional_terms and term.kind not in named

"""Cross-reference checks of policy rules: what a JSON Schema cannot see about a rule.

Called by ``agents.catalog.crossref.reference_problems``. Each problem names the rule's
JSON path and id, and says how to fix it:

- fields that only one kind reads (``grade_ceiling`` for ``repeat_limit``; ``measure``,
  ``scope`` and ``program_kinds`` for ``pass_fail_limit``) on a rule of another kind;
- a ``grade_ceiling`` that is not in the grade scale, a program kind that does not exist;
- ``term_kinds`` (in ``applies_when`` or a ``limit_table`` row) on a rule that is not
  checked per planned term, or naming a kind the calendar does not have;
- ``recent_terms`` without ``recent_gpa_min``; ``program_kinds`` without scope 'program';
- a ``limit_table`` on a kind that has no limit, and rows that can never apply because an
  earlier row has no condition;
- an ``academic_standing`` rule without a threshold (``limit`` or ``limit_table``).
"""

from __future__ import annotations

from typing import get_args

from agents.catalog.model import Catalog
from agents.catalog.policies import PolicyRule, RuleCondition
from agents.catalog.programs import ProgramKind

# Rules checked term by term: the only ones a term kind can narrow.
PER_TERM_KINDS = frozenset(
    {
        "max_units_per_term",
        "min_units_per_term",
        "overload",
        "probation_max_units",
        "max_courses_per_term",
        "max_units_per_session",
    }
)
NO_LIMIT_KINDS = frozenset({"minor_eligibility", "program_sharing"})
PASS_FAIL_FIELDS = ("measure", "scope", "program_kinds")


def rule_problems(cat: Catalog) -> list[str]:
    """Every problem of every policy rule's kind-specific fields and conditions."""
    problems: list[str] = []
    for i, rule in enumerate(cat.policies):
        problems.extend(_rule(cat, rule, f"$.policies[{i}] ({rule.id})"))
    return problems


def _rule(cat: Catalog, rule: PolicyRule, at: str) -> list[str]:
    out: list[str] = []
    if rule.grade_ceiling is not None:
        if rule.kind != "repeat_limit":
            out.append(
                f"{at}.grade_ceiling: only repeat_limit rules have a grade ceiling; this "
                f"rule is {rule.kind} - remove the field or change the kind"
            )
        elif rule.grade_ceiling not in cat.grade_by_symbol:
            out.append(
                f"{at}.grade_ceiling: unknown grade {rule.grade_ceiling!r}; the grade scale "
                f"has {', '.join(g.grade for g in cat.grade_scale)}"
            )
    if rule.of_last is not None and rule.kind != "residency":
        out.append(
            f"{at}.of_last: only residency rules count the last units of the degree; this "
            f"rule is {rule.kind!r} - remove of_last"
        )
    elif rule.of_last is not None and rule.limit is not None and rule.limit > rule.of_last:
        out.append(
            f"{at}.of_last: {rule.of_last:g} is below the limit {rule.limit:g}; no plan can "
            "earn more units here than the last units counted - raise of_last or lower limit"
        )
    if rule.kind != "pass_fail_limit":
        for name in PASS_FAIL_FIELDS:
            if name in rule.model_fields_set and getattr(rule, name):
                out.append(
                    f"{at}.{name}: only pass_fail_limit rules have {name!r}; this rule is "
                    f"{rule.kind} - remove the field or change the kind"
                )
    elif rule.program_kinds and rule.pass_fail_scope != "program":
        out.append(
            f"{at}.program_kinds: program kinds limit a pass/fail rule of scope 'program' "
            f"only; this rule's scope is {rule.pass_fail_scope!r} - add scope: program or "
            "remove program_kinds"
        )
    kinds = get_args(ProgramKind)
    for kind in rule.program_kinds:
        if kind not in kinds:
            out.append(
                f"{at}.program_kinds: unknown program kind {kind!r}; the kinds are "
                f"{', '.join(kinds)}"
            )
    if rule.limit_table and rule.kind in NO_LIMIT_KINDS:
        out.append(
            f"{at}.limit_table: {rule.kind} rules have no limit to look up - remove the table"
        )
    if rule.kind == "academic_standing" and rule.limit is None and not rule.limit_table:
        out.append(
            f"{at}: an academic_standing rule needs the GPA threshold: give limit, "
            "limit_table or both"
        )
    out += _condition(cat, rule, rule.applies_when, f"{at}.applies_when")
    always: int | None = None
    for j, row in enumerate(rule.limit_table):
        where = f"{at}.limit_table[{j}]"
        if always is not None:
            out.append(
                f"{where}: this row can never apply: row {always} has no condition and "
                "always holds - move it last or give it a condition"
            )
        elif row.when.is_empty:
            always = j
        out += _condition(cat, rule, row.when, f"{where}.when")
    return out


def _condition(cat: Catalog, rule: PolicyRule, cond: RuleCondition, at: str) -> list[str]:
    out: list[str] = []
    if "recent_terms" in cond.model_fields_set and cond.recent_gpa_min is None:
        out.append(
            f"{at}.recent_terms: recent_terms says how many terms recent_gpa_min covers; "
            "give recent_gpa_min or remove recent_terms"
        )
    if not cond.term_kinds:
        return out
    if rule.kind not in PER_TERM_KINDS:
        out.append(
            f"{at}.term_kinds: term kinds narrow rules checked per planned term "
            f"({', '.join(sorted(PER_TERM_KINDS))}); {rule.kind} is not one - remove "
            "term_kinds"
        )
        return out
    cal = cat.calendar
    known = ", ".join(f"{k.code} ({k.name})" for k in cal.terms)
    for kind in cond.term_kinds:
        if kind in cal.kind_by_code:
            continue
        code = cal.kind_code(kind)
        fix = f"write {code!r}" if code is not None else "use a kind code of the calendar"
        out.append(
            f"{at}.term_kinds: unknown term kind {kind!r}; the calendar's kinds are {known} - {fix}"
        )
    return out

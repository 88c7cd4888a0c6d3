"""Policy rules applied to one student's record: what a rule's data concludes for them.

A policy question is answered with the section that states the rule and, for the rules
found here *by kind*, what the rule says about this student (``apply_rules``):

- ``academic_standing``: the cumulative GPA against the probation threshold of the
  student's class standing ("With a 1.84 GPA as a sophomore you are below the 1.90
  threshold: on academic probation.");
- ``pass_fail_limit``: the record's pass/fail elections against the limit, by the rule's
  scope and measure ("You have used 2 of your 4 pass/fail courses (...); 80-180 would be
  your 3rd.") - see ``agents.policy.applied_records``;
- ``overload`` and ``probation_max_units``: whether each condition of the rule holds -
  GPA, GPA over recent terms, class standing, status (the one an academic_standing rule
  gives) - which do not, and the limit when they all do;
- ``repeat_limit``: for each course the question names (else the record's courses that
  were repeated or may be), whether it may be repeated (``agents.policy.applied_records``).

What the record lacks (no GPA yet, no record at all) is said, never guessed. Nothing here
knows a rule id or a course code: rules are found by kind, courses come from the question.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from agents.artifacts import StudentProfile
from agents.catalog import Catalog, PolicyRule, StudentRecord
from agents.catalog.policies import RuleCondition, RuleKind
from agents.policy.applied_records import Asker, pass_fail_conclusion, repeat_conclusion
from agents.policy.conditions import STANDING_WORDS, STATUS_WORDS, Facts, holds, threshold
from agents.policy.rules import join, num
from agents.policy.standing import student_facts


@dataclass(frozen=True)
class Applied:
    """One rule's conclusion for the student."""

    rule: PolicyRule
    text: str


def apply_rules(
    catalog: Catalog,
    profile: StudentProfile,
    record: StudentRecord | None,
    kinds: Collection[RuleKind],
    courses: Sequence[str] = (),
) -> list[Applied]:
    """The conclusion of every catalog rule of ``kinds`` for the student, in catalog order;
    ``courses`` are the catalog courses the question names."""
    known = [c for c in courses if c in catalog.course_by_code]
    who = Asker(catalog, profile, record, student_facts(catalog, profile, record), known)
    out: list[Applied] = []
    for rule in catalog.policies:
        conclude = _BY_KIND.get(rule.kind)
        if rule.kind in kinds and conclude is not None and (text := conclude(who, rule)):
            out.append(Applied(rule, text))
    return out


def _or(items: Sequence[str]) -> str:
    """'A', 'A or B', 'A, B or C'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def _gpa(x: float) -> str:
    return f"{x:.2f}"


# --------------------------------------------------------------------------- standing


def _standing(who: Asker, rule: PolicyRule) -> str | None:
    p = who.profile
    recorded = Facts(gpa=p.gpa, standing=p.class_standing, status=p.academic_status)
    if not holds(rule.applies_when, recorded):
        return None
    limit, why = threshold(rule, recorded)
    if limit is None:
        return None
    if not why and any(r.when.standing_in for r in rule.limit_table):
        why = f"as {STANDING_WORDS[p.class_standing]}"  # the rule's own limit, for the rest
    as_who = f" {why}" if why else ""
    if p.gpa is None:
        return (
            f"You have no GPA on record yet, so whether you are below the probation "
            f"threshold cannot be decided; the threshold{as_who} is {_gpa(limit)}."
        )
    said = f" (your record says {STATUS_WORDS[p.academic_status]})"
    if p.gpa < limit:
        tail = "" if p.academic_status in ("probation", "suspended") else said
        return (
            f"With a {_gpa(p.gpa)} GPA{as_who} you are below the {_gpa(limit)} threshold: "
            f"on academic probation{tail}."
        )
    tail = said if p.academic_status == "probation" else ""
    return (
        f"With a {_gpa(p.gpa)} GPA{as_who} you are at or above the {_gpa(limit)} threshold: "
        f"not on academic probation by it{tail}."
    )


# --------------------------------------------------------------------------- overload


def _conditions(when: RuleCondition) -> list[tuple[str, RuleCondition]]:
    """Each condition ``when`` sets, in words, with a condition that sets only it."""
    out: list[tuple[str, RuleCondition]] = []
    if when.gpa_min is not None:
        out.append((f"a GPA of at least {_gpa(when.gpa_min)}", RuleCondition(gpa_min=when.gpa_min)))
    if when.gpa_max is not None:
        out.append((f"a GPA below {_gpa(when.gpa_max)}", RuleCondition(gpa_max=when.gpa_max)))
    if when.recent_gpa_min is not None:
        span = f"the last {when.recent_terms} regular terms"
        recent = RuleCondition(recent_gpa_min=when.recent_gpa_min, recent_terms=when.recent_terms)
        out.append((f"a GPA of at least {_gpa(when.recent_gpa_min)} over {span}", recent))
    if when.standing_in:
        names = [s.replace("_", "-") for s in when.standing_in]
        out.append((f"{_or(names)} standing", RuleCondition(standing_in=when.standing_in)))
    if when.status_in:
        words = _or([STATUS_WORDS[s] for s in when.status_in])
        out.append((f"being {words}", RuleCondition(status_in=when.status_in)))
    return out


def _yours(when: RuleCondition, facts: Facts) -> str:
    """The student's fact behind a single-field condition that does not hold."""
    if when.gpa_min is not None or when.gpa_max is not None:
        return "you have no GPA yet" if facts.gpa is None else f"your GPA is {_gpa(facts.gpa)}"
    if when.recent_gpa_min is not None:
        recent = facts.recent(when.recent_terms)
        span = f"the last {when.recent_terms} regular terms"
        return f"you have no GPA over {span}" if recent is None else (
            f"your GPA over {span} is {_gpa(recent)}"
        )  # fmt: skip
    if when.standing_in:
        return f"you are {STANDING_WORDS[facts.standing]}"
    return f"you are {facts.status_words}"


def _eligibility(who: Asker, rule: PolicyRule) -> tuple[bool, str]:
    """Whether the rule's conditions hold for the student, and why: the conditions that do
    not hold (all of them when every one does) and the student's facts behind them."""
    checks = _conditions(rule.applies_when)
    unmet = [(req, cond) for req, cond in checks if not holds(cond, who.facts)]
    shown = unmet or checks
    if not shown:
        return True, ""
    needs = join([req for req, _ in shown])
    facts = "; ".join(_yours(cond, who.facts) for _, cond in shown)
    return not unmet, f"it requires {needs}, and {facts}"


def _overload(who: Asker, rule: PolicyRule) -> str:
    limit, _ = threshold(rule, who.facts)
    up_to = f" up to {num(limit)} {who.unit} a term" if limit is not None else ""
    ok, why = _eligibility(who, rule)
    if not ok:
        return f"You are not eligible for an overload{up_to}: {why}."
    approval = f" with {rule.requires_approval} approval" if rule.requires_approval else ""
    return f"You are eligible for an overload{up_to}{approval}" + (f": {why}." if why else ".")


def _probation_load(who: Asker, rule: PolicyRule) -> str:
    limit, _ = threshold(rule, who.facts)
    ok, why = _eligibility(who, rule)
    if not ok:
        return f"It does not apply to you: {why}."
    at_most = f": at most {num(limit)} {who.unit} a term" if limit is not None else ""
    return f"It applies to you{at_most}" + (f"; {why}." if why else ".")


_BY_KIND: dict[str, Callable[[Asker, PolicyRule], str | None]] = {
    "academic_standing": _standing,
    "pass_fail_limit": pass_fail_conclusion,
    "overload": _overload,
    "probation_max_units": _probation_load,
    "repeat_limit": repeat_conclusion,
}

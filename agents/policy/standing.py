"""Academic standing from the GPA, and the facts every rule is evaluated against.

An ``academic_standing`` rule sets the probation threshold: a student whose cumulative GPA
is below the rule's limit (``limit_table`` rows give it by class standing, e.g. 1.80 /
1.90 / 2.00) is on academic probation whatever the record's status says (a record that
says good or warning may predate the grades), so every rule that depends on the status
(the probation load cap, overloads for students in good standing) is evaluated with
'probation', and its messages say why: "on academic probation (the probation threshold for
a sophomore is 1.90; cumulative GPA 1.85)". A status already worse (probation,
suspended) is kept. Without a GPA the rule says nothing.

The critique reports the rule as a ``gpa`` risk (``agents.policy.records``: the plan
cannot change the GPA behind it); the rules it switches on report the violations.
"""

from __future__ import annotations

from dataclasses import replace

from agents.artifacts import StudentProfile
from agents.catalog import AcademicStatus, Catalog, PolicyRule, StudentRecord
from agents.policy.conditions import Facts, condition_gap, recent_gpas, threshold

KEPT: frozenset[AcademicStatus] = frozenset({"probation", "suspended"})


def probation_note(rule: PolicyRule, facts: Facts) -> str | None:
    """'the probation threshold for a sophomore is 1.90; cumulative GPA 1.85' when
    ``rule`` (an academic_standing rule) puts the student on probation; else None."""
    if facts.gpa is None or condition_gap(rule.applies_when, facts) is not None:
        return None
    limit, why = threshold(rule, facts)
    if limit is None or facts.gpa >= limit:
        return None
    who = f"for {why[3:]}" if why.startswith("as ") else why
    head = f"the probation threshold {who}" if who else "the probation threshold"
    return f"{head} is {limit:.2f}; cumulative GPA {facts.gpa:.2f}"


def standing_status(catalog: Catalog, facts: Facts) -> tuple[AcademicStatus, str]:
    """The status the rules see, and why when an academic_standing rule set it."""
    if facts.status in KEPT:
        return facts.status, ""
    for rule in catalog.policies:
        if rule.kind == "academic_standing" and (note := probation_note(rule, facts)):
            return "probation", note
    return facts.status, ""


def student_facts(
    catalog: Catalog, profile: StudentProfile, record: StudentRecord | None = None
) -> Facts:
    """The facts of ``profile`` now (recent GPAs from ``record`` when given), with the
    status the academic_standing rules give."""
    base = Facts(
        gpa=profile.gpa,
        standing=profile.class_standing,
        status=profile.academic_status,
        recent=recent_gpas(catalog, record),
    )
    status, note = standing_status(catalog, base)
    return replace(base, status=status, status_note=note)

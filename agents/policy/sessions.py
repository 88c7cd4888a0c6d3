"""Units per session within a term (``max_units_per_session``; ``agents.catalog.sessions``).

A rule of this kind caps the units a student takes in each session of the terms it covers:
the terms of its ``term_kinds``, or every term whose kind has sessions. Its limit is looked
up per term (a limit table may give a lower one on probation). Each session over the
limit is a violation quoting the rule's citation. The planner already keeps the limits
that hold for every student; one that depends on the student (GPA, status) is the
critique's to report. A session's own ``max_units`` in the calendar is a catalog fact,
reported by the verifier.
"""

from __future__ import annotations

from agents.catalog import PolicyRule, Term, count_text, credit_sum, session_label
from agents.policy.conditions import because
from agents.policy.plancheck import Findings, PlanCheck
from agents.policy.rules import num


def check_session_units(ctx: PlanCheck, rule: PolicyRule, f: Findings) -> None:
    """Units in each planned session against ``rule`` (see the module docstring)."""
    kinds = rule.applies_when.term_kinds
    standings = ctx.standings
    for t in ctx.enrolled_terms:
        term = Term.parse(t.term)
        sessions = term.kind_info.sessions
        if not sessions or (kinds and term.kind not in kinds):
            continue
        limit, why = ctx.threshold(rule, ctx.term_facts(t.term, standings[t.term]))
        if limit is None:
            continue
        loads: dict[str, float] = {}
        for sc in t.courses:
            if sc.session is not None:
                loads[sc.session] = credit_sum((loads.get(sc.session, 0.0), sc.units))
        for s in sessions:
            load = loads.get(s.code, 0.0)
            if load > limit + 1e-9:
                has = count_text(load, ctx.unit_name)
                msg = f"{session_label(term, s.code)} has {has}; the session limit is {num(limit)}"
                f.violations.append(ctx.violation(rule, msg + because(why), t.term))

"""The critique's verdict in words: each suggested change as a sentence, the verdict with
its rules and fixes, and the approvals a person decided."""

from __future__ import annotations

from typing import Literal

from agents.artifacts import ApprovalUse, Modification, Risk, Violation
from agents.catalog import count_text, credits_text
from agents.policy import join, label

Verdict = Literal["approved", "conditional", "rejected"]


def describe(mod: Modification, where: str | None = None) -> str:
    """A suggestion in a few words, for verdicts and revision summaries; ``where`` replaces
    the term's label (to name several terms at once)."""
    amount = credits_text(mod.value) if mod.value is not None else ""
    courses = count_text(mod.value, "courses") if mod.value is not None else ""
    where = where or (label(mod.term) if mod.term else "")
    return {
        "cap_term_units": f"cap {where} at {amount}",
        "cap_all_terms_units": f"cap every term at {amount}",
        "floor_term_units": f"keep {where} at {amount} or more",
        "floor_term_courses": f"at least {courses} in {where}",
        "cap_courses_per_term": f"at most {courses} per term",
        "cap_term_courses": f"at most {courses} in {where}",
        "move_course": f"move {mod.course} to {where}",
        "avoid_course": f"do not plan {mod.course}",
        "relax_target": "drop the graduation target and find the earliest feasible term",
        "needs_approval": f"obtain the {mod.rule_id} approval",
        "plan_more_units": f"plan at least {amount}",
    }[mod.action]


_PER_TERM = ("cap_term_units", "floor_term_units", "cap_term_courses", "floor_term_courses")


def summarize(mods: list[Modification]) -> str:
    """Suggestions in a few words each; per-term caps and floors of the same value are
    merged ('keep Spring 2027 and Fall 2027 at 36 units or more')."""
    groups: dict[tuple[object, float | None], list[Modification]] = {}
    for m in mods:
        per_term = bool(m.term) and m.action in _PER_TERM
        groups.setdefault((m.action, m.value) if per_term else (id(m), None), []).append(m)
    parts = []
    for same in groups.values():
        terms = [label(m.term) for m in same if m.term]
        parts.append(describe(same[0], join(terms) if len(same) > 1 else None))
    return "; ".join(parts)


def explain(
    approval: Verdict,
    violations: list[Violation],
    risks: list[Risk],
    suggestions: list[Modification],
) -> str:
    fixes = summarize(suggestions)
    if approval in ("rejected", "conditional"):
        hard = [v for v in violations if v.severity == "hard"] or violations
        rule_ids = list(dict.fromkeys(v.rule_id for v in hard))
        ids = join(rule_ids)
        more = f" (and {len(hard) - 1} more)" if len(hard) > 1 else ""
        if approval == "rejected":
            head = f"Rejected: the plan breaks {ids}: {hard[0].message}{more}."
        else:
            verb = "is" if len(rule_ids) == 1 else "are"
            head = f"Conditional: the plan can stand once {ids} {verb} settled: "
            head += f"{hard[0].message}{more}."
        tail = f" Suggested: {fixes}." if fixes else " No constraint change can fix this."
        return head + tail
    text = "Approved: the plan follows every rule that applies"
    if risks:
        kinds = ", ".join(dict.fromkeys(r.kind.replace("_", " ") for r in risks))
        many = len(risks) != 1
        text += f"; {len(risks)} risk{'s remain' if many else ' remains'} ({kinds})"
    return text + "."


def approvals_text(approvals: list[ApprovalUse]) -> str:
    """' LOAD-OVERLOAD for Spring 2027 was approved by Dr. Lee on 2026-11-20.' per decision."""
    out = ""
    for a in approvals:
        out += f" {a.rule_id} for {label(a.term)} was {a.decision} by {a.by} on {a.date}."
    return out

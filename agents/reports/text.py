"""Sentences the reports and the letter share: a refinement's changes and a round's verdict
in plain words (``change_sentence``, ``round_sentences``), never a raw field diff such as
``target_term: "F2028" -> null``, and never a rule id where a student reads it."""

from __future__ import annotations

import re
from typing import Any

from agents.artifacts import ConstraintChange, NegotiationRound
from agents.catalog import count_text, credits_text, term_label


def _num(x: Any) -> str:
    return f"{x:g}" if isinstance(x, int | float) else str(x)


def _amount(x: Any) -> str:
    """A number of the catalog's credits in its words ('54 units', '1 course')."""
    return credits_text(x) if isinstance(x, int | float) else str(x)


def _courses(x: Any) -> str:
    """'1 course', '5 courses'."""
    return count_text(x, "courses") if isinstance(x, int | float) else f"{x} courses"


def _term(code: Any) -> str:
    return term_label(str(code)) or str(code)


def _and(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _dict_change(c: ConstraintChange, verb: str) -> list[str]:
    before: dict[str, Any] = c.before or {}
    after: dict[str, Any] = c.after or {}
    out = []
    for key in [k for k in {**before, **after} if before.get(k) != after.get(k)]:
        if c.field == "fixed":
            out.append(
                f"{key} is now planned in {_term(after[key])}"
                if key in after
                else f"{key} is no longer held to {_term(before[key])}"
            )
        elif key in after:
            was = f" (was {_num(before[key])})" if key in before else ""
            out.append(f"{_term(key)} {verb} {_amount(after[key])}{was}")
    return out


def change_sentence(c: ConstraintChange) -> str:
    """One revision in words: 'Every term is capped at 54 units (was 63)'."""
    field, before, after = c.field, c.before, c.after
    if field == "max_units_per_term":
        parts = [f"every term is capped at {_amount(after)} (was {_num(before)})"]
    elif field == "min_units_per_term":
        parts = [f"every term carries at least {_amount(after)} (was {_num(before)})"]
    elif field == "term_max_units":
        parts = _dict_change(c, "is capped at")
    elif field == "term_min_units":
        parts = _dict_change(c, "carries at least")
    elif field == "fixed":
        parts = _dict_change(c, "")
    elif field == "target_term":
        parts = (
            [f"the {_term(before)} graduation target is dropped (the plan finds the earliest "
             "graduation instead)"]
            if after is None
            else [f"the graduation target is {_term(after)}"]
        )  # fmt: skip
    elif field == "max_courses_per_term":
        was = f" (was {before})" if before is not None else ""
        verb = "is" if after == 1 else "are"
        parts = [f"at most {_courses(after)} {verb} planned per term{was}"]
    elif field == "term_min_courses":
        old, new = before or {}, after or {}
        parts = [
            f"{_term(k)} takes at least {_courses(new[k])}"
            + (f" (was {old[k]})" if k in old else "")
            if k in new
            else f"{_term(k)} is no longer held to {_courses(old[k])}"
            for k in {**old, **new}
            if old.get(k) != new.get(k)
        ]
    elif field in ("avoid", "include"):
        added = [x for x in after or [] if x not in (before or [])]
        removed = [x for x in before or [] if x not in (after or [])]
        word = "left out of the plan" if field == "avoid" else "required in the plan"
        parts = [f"{_and(added)} {'is' if len(added) == 1 else 'are'} {word}"] if added else []
        if removed:
            verb = "is" if len(removed) == 1 else "are"
            parts.append(f"{_and(removed)} {verb} no longer {word}")
    elif field == "min_units_planned":
        parts = [f"at least {_amount(after)} {'is' if after == 1 else 'are'} planned in all"]
    elif field == "approvals_assumed":
        parts = ["the plan assumes the approval it needs"]  # older checkpoints only
    else:
        parts = [f"{field.replace('_', ' ')} changes from {before!r} to {after!r}"]
    text = "; ".join(parts) or f"{field.replace('_', ' ')} is adjusted"
    return text[0].upper() + text[1:]


_IMPERATIVE = ("keep ", "cap ", "find ", "ask ", "move ", "drop ", "plan ", "avoid ", "take ",
               "obtain ", "add ", "raise ", "lower ")  # fmt: skip


def because(reason: str) -> str:
    """The fact behind a suggestion, without the instruction the critique wrote for the
    refinement stage: 'A and B are over the 54-unit limit; cap every term at it' -> 'A and B
    are over the 54-unit limit', 'Drop the target: it needs a 66-unit term' -> 'it needs a
    66-unit term'; '' when the reason is only an instruction."""
    parts = [p.strip().rstrip(".") for p in re.split(r"[;:]", reason)]
    return next((p for p in parts if p and not p.lower().startswith(_IMPERATIVE)), "")


def change_text(c: ConstraintChange) -> str:
    """A revision as a sentence with its reason: 'Every term is capped at 54 units (was 63),
    because Spring 2027 is over the 54-unit limit.'"""
    why = because(c.reason)
    return change_sentence(c) + (f", because {why}." if why else ".")


VERDICT: dict[str, str] = {
    "approved": "The policy review approved it.",
    "conditional": "The policy review approved it on conditions.",
    "rejected": "The policy review rejected it.",
}

RESOLUTION: dict[str, str] = {
    "approved": "The round ended with the plan approved.",
    "revised": "The constraints were revised for another round.",
    "no_change": "No further change could resolve it.",
    "max_rounds": "That was the last round allowed.",
    "infeasible": "No plan fits within those limits.",
}


def round_sentences(r: NegotiationRound) -> dict[str, Any]:
    """A round as sentences: what was proposed, the verdict, what broke, what changed."""
    who = "The first proposal" if r.round == 1 else f"Round {r.round}'s proposal"
    text = r.proposal.rstrip(".")
    proposal = f"{who}: {text[:1].lower()}{text[1:]}."
    if r.approval == "not_needed":
        verdict = (
            "No policy review: no plan meets the request as asked."
            if r.resolution == "infeasible"
            else "No policy review was needed."
        )
    else:
        verdict = VERDICT.get(r.approval, f"The policy review said {r.approval}.")
    return {
        "round": r.round,
        "resolution": r.resolution,
        "title": f"Round {r.round}: {r.resolution.replace('_', ' ')}",
        "proposal": proposal,
        "verdict": verdict,
        "violations": list(r.violations),
        "changes": [change_text(c) for c in r.revision],
        "approvals": list(r.approvals),
        "end": RESOLUTION[r.resolution],
    }

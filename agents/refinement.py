"""The refinement agent: turns a critique's suggested modifications into the constraint set
for the next scheduling round, recording every change (field, before, after, reason, rule).

- caps only ever lower a limit and floors only ever raise one, so the loop converges; a
  cap takes down what was wanted in a term above it (a number of courses, units: the
  floor), and a course cap the units wanted with that number, in proportion;
- ``relax_target`` clears the target term: the planner then finds the earliest graduation
  that fits the new caps, and the critique reports a missed target as a risk;
- ``needs_approval`` changes nothing: an approval is a person's decision, asked for when
  the run stops in ``awaiting_approval`` (``approvals_assumed`` is no longer set; it is
  read only from older checkpoints);
- ``avoid_course`` also unpins, un-forces and un-includes the course, or the set would
  contradict itself.

A critique whose suggestions leave the constraint set as it was gives ``no_change`` (the
loop ends instead of spinning); an approved or not-needed critique gives ``not_needed``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import structlog

from agents.artifacts import (
    ConstraintChange,
    ConstraintSet,
    Critique,
    IntakeResult,
    Modification,
    Refinement,
    Schedule,
)
from agents.case import Case
from agents.catalog import credit_sum, credits_text
from agents.checking.critique_text import describe
from agents.policy import label, num
from agents.toolbox import Toolbox

log = structlog.get_logger(__name__)


def run(case: Case, tools: Toolbox) -> Refinement:
    """The stage: turn the current round's critique into the next constraint set."""
    return revise(case.need_intake(), case.schedule, case.critique, tools)


def revise(
    intake: IntakeResult, schedule: Schedule, critique: Critique, tools: Toolbox
) -> Refinement:
    bound = log.bind(request_id=intake.request_id, round=critique.round)
    if critique.status == "not_needed" or critique.approval in ("approved", "not_needed"):
        result = Refinement(
            status="not_needed",
            round=critique.round,
            reason=f"the critique's verdict is {critique.approval!r}; nothing to refine",
        )
    elif schedule.constraints is None:
        result = Refinement(
            status="no_change",
            round=critique.round,
            reason="the schedule carries no constraint set to refine",
        )
    else:
        catalog = tools.catalog
        result = refine(
            schedule.constraints,
            critique.suggestions,
            critique.round,
            units=lambda code: catalog.course(code).units if code in catalog.course_by_code else 0,
        )
    bound.info("refinement.done", status=result.status, changes=[c.field for c in result.changes])
    return result


def refine(
    before: ConstraintSet,
    suggestions: list[Modification],
    round: int,
    units: Callable[[str], float] | None = None,
) -> Refinement:
    """Apply ``suggestions`` in order to a copy of ``before``. With ``units`` (a course's
    credits), courses pinned to a term that a new cap can no longer hold are released to be
    planned later (the first pinned stay, as many as fit)."""
    data = before.model_dump()
    changes: list[ConstraintChange] = []

    def put(fname: str, value: Any, reason: str, rule_id: str | None) -> None:
        if data[fname] != value:
            changes.append(
                ConstraintChange(
                    field=fname, before=data[fname], after=value, reason=reason, rule_id=rule_id
                )
            )
            data[fname] = value

    for mod in suggestions:
        for fname, value in _apply(data, mod).items():
            put(fname, value, mod.reason, mod.rule_id)
        if units is not None:
            kept, why = _pins_within_caps(data, units)
            if why:
                put("fixed", kept, "; ".join(why), mod.rule_id)
    after = ConstraintSet.model_validate(data)
    if after == before:
        asked = "; ".join(describe(m) for m in suggestions)
        reason = (
            f"the suggested changes ({asked}) are already in the constraint set"
            if suggestions
            else "the critique suggested no change the constraints can express"
        )
        return Refinement(status="no_change", round=round, constraints=before, reason=reason)
    summary = "; ".join(_say(c) for c in changes)
    return Refinement(
        status="revised", round=round, changes=changes, constraints=after, reason=summary
    )


def _apply(data: dict[str, Any], mod: Modification) -> dict[str, Any]:
    """The fields ``mod`` sets, computed from the current ``data`` (not yet written)."""
    v, term, course = mod.value, mod.term, mod.course
    general: float = data["max_units_per_term"]
    caps: dict[str, float] = dict(data["term_max_units"])
    # A number of courses wanted in a term gives way to a cap on it: the cap decides the load.
    fewest: dict[str, int] = dict(data["term_min_courses"])
    # So do units wanted in a term (or a floor): the term keeps as many as the cap allows.
    floors: dict[str, float] = dict(data["term_min_units"])
    match mod.action:
        case "cap_all_terms_units" if v is not None:
            # A per-term override above the new cap would let that term keep the overload.
            lowered = {t: min(c, v) for t, c in caps.items()}
            out = {
                "max_units_per_term": min(general, v),
                "term_max_units": lowered,
                "term_min_courses": {},
            }
            return _floors(out, floors, {t: min(x, lowered.get(t, v)) for t, x in floors.items()})
        case "cap_term_units" if v is not None and term:
            caps[term] = min(caps.get(term, general), v)
            fewest.pop(term, None)
            lower = {**floors, term: min(floors[term], caps[term])} if term in floors else floors
            return _floors({"term_max_units": caps, "term_min_courses": fewest}, floors, lower)
        case "floor_term_units" if v is not None and term:
            floors = dict(data["term_min_units"])
            floors[term] = max(floors.get(term, data["min_units_per_term"]), v)
            return {"term_min_units": floors}
        case "floor_term_courses" if v is not None and term:
            # Courses wanted in a term (a terms-of-study rule: stay enrolled then); a course
            # cap on the term still decides if lower.
            limit = dict(data["term_max_courses"]).get(term)
            want = max(fewest.get(term, 0), int(v))
            fewest[term] = want if limit is None else min(want, limit)
            return {"term_min_courses": fewest}
        case "cap_term_courses" if v is not None and term:
            # A rule for a kind of term (one course in the interim) stays in its terms.
            seats: dict[str, int] = dict(data["term_max_courses"])
            seats[term] = int(min(seats.get(term, v), v))
            fewer = {**fewest, term: min(fewest[term], seats[term])} if term in fewest else fewest
            out = {"term_max_courses": seats, "term_min_courses": fewer}
            return _floors(out, floors, _scaled(floors, fewest, fewer))
        case "cap_courses_per_term" if v is not None:
            old = data["max_courses_per_term"]
            most = int(v if old is None else min(old, v))
            fewer = {t: min(n, most) for t, n in fewest.items()}
            out = {"max_courses_per_term": most, "term_min_courses": fewer}
            return _floors(out, floors, _scaled(floors, fewest, fewer))
        case "avoid_course" if course:
            return {
                "avoid": sorted({*data["avoid"], course}),
                "include": [c for c in data["include"] if c != course],
                "fixed": {c: t for c, t in data["fixed"].items() if c != course},
                "forced": [c for c in data["forced"] if c != course],
            }
        case "move_course" if course and term:
            return {"fixed": {**data["fixed"], course: term}}
        case "relax_target":
            return {"target_term": None}
        case "plan_more_units" if v is not None:
            return {"min_units_planned": max(data["min_units_planned"], v)}
        case "needs_approval":
            # A person decides (the run stops in awaiting_approval once nothing else is
            # left); refinement never assumes an approval.
            return {}
    log.warning("refinement.incomplete_suggestion", suggestion=mod.model_dump())
    return {}


def _floors(
    out: dict[str, Any], floors: dict[str, float], lower: dict[str, float]
) -> dict[str, Any]:
    """``out`` with the term floors ``lower`` when they differ from ``floors``."""
    return out if lower == floors else {**out, "term_min_units": lower}


def _scaled(
    floors: dict[str, float], fewest: dict[str, int], fewer: dict[str, int]
) -> dict[str, float]:
    """The units wanted in a term (its floor), in proportion to the courses wanted there
    when a cap lowers their number: 'six courses (24 units)' held to five keeps 20 units,
    not 24 in five courses."""
    out = dict(floors)
    for t, n in fewest.items():
        if t in out and fewer.get(t, n) < n:
            out[t] = round(out[t] * fewer[t] / n, 2)
    return out


def _pins_within_caps(
    data: dict[str, Any], units: Callable[[str], float]
) -> tuple[dict[str, str], list[str]]:
    """The pinned courses each term's cap can hold (in the order they were pinned), and a
    sentence per term for the ones released."""
    kept: dict[str, str] = {}
    load: dict[str, list[float]] = {}
    released: dict[str, list[str]] = {}
    for course, term in data["fixed"].items():
        cap = data["term_max_units"].get(term, data["max_units_per_term"])
        here = credit_sum([*load.get(term, []), units(course)])
        if here <= cap:
            kept[course] = term
            load.setdefault(term, []).append(units(course))
        else:
            released.setdefault(term, []).append(course)
    caps = data["term_max_units"]
    why = [
        f"{label(term)} is capped at {credits_text(caps.get(term, data['max_units_per_term']))}"
        f", so {', '.join(codes)} {'has' if len(codes) == 1 else 'have'} to "
        "give way there"
        for term, codes in released.items()
    ]
    return kept, why


def _say(c: ConstraintChange) -> str:
    if c.field == "target_term":
        return f"target {label(c.before)} dropped" if c.before else "target dropped"
    if isinstance(c.after, dict):
        keys = [k for k in {**c.before, **c.after} if c.before.get(k) != c.after.get(k)]
        return f"{c.field} " + ", ".join(
            f"{k} {_fmt(c.before.get(k))} -> {_fmt(c.after.get(k))}" for k in keys
        )
    if isinstance(c.after, list):
        added = [x for x in c.after if x not in c.before]
        removed = [x for x in c.before if x not in c.after]
        return f"{c.field} " + ", ".join([*(f"+{x}" for x in added), *(f"-{x}" for x in removed)])
    return f"{c.field} {_fmt(c.before)} -> {_fmt(c.after)}"


def _fmt(x: Any) -> str:
    if x is None:
        return "none"
    return num(x) if isinstance(x, float | int) else str(x)

"""k-best alternatives: up to ``k`` distinct plans beside a chosen one, each the best plan
under the planner's own lexicographic objective (earliest graduation, fewest dormant courses
and avoidable consent, fewest units, fewest consent courses, balance, earliness) once the
chosen plan and every earlier alternative are excluded - so each is "equally good" or the
next best.

Distinct means a different course set: a no-good cut on each earlier plan's set (at least
one of its courses not taken, ``agents.planner.cuts``), posted in every model of the
staged solve, which runs unchanged (standard loads first, the full candidate pool when the
pruned one has no other set). When no other course set exists - every remaining course is
forced - the search turns to a different placement of the same courses (at least one
course of each earlier plan in another term) graduating no later than the chosen plan:
then the only choice a student has is when to take what, and that is worth showing; the
same courses graduating later is only a delay and is not shown. Nothing else counts as
distinct.

Each alternative goes through the same degree-audit agreement as ``plan``
(``agents.planner.repair``), and through ``check`` when the caller gives one (the
pipeline's independent verifier, section and policy checks): a rejected plan is still cut,
so the search moves past it, but it is not returned. The search is deterministic (the
solver settings of ``plan``: deterministic budgets) and bounded by counts; all
alternatives together have the constraints' ``time_limit_s`` of wall-clock time as a safety
net: when it fires, what was found depends on the machine's load, so none is returned (and
the log says ``planner.alternatives.timed_out``).

Each is labelled by how it compares with the chosen plan on graduation, dormant courses and
consent a prerequisite could replace (``agents.planner.risky``), units and consent
courses: "equally good" when all are the same, "next best: ..." naming what is
worse; "better: ..." is possible only when the chosen plan was not proved optimal or was
held to more than the constraints (e.g. a section clash kept courses out of a term).
An alternative from a pruned candidate pool has status "feasible" (and its ``pool_size``):
it is the best of the pool's other plans, which says nothing about the whole catalog's.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Literal

import structlog
from pydantic import BaseModel, ConfigDict, Field

from agents.catalog import (
    Catalog,
    StudentRecord,
    Term,
    credit_sub,
    credits_text,
    format_credits,
    unit_name,
)
from agents.catalog.overrides import effective_catalog
from agents.errors import PlanningError
from agents.planner.api import end_term, solve_through
from agents.planner.cpsat import expired, watch
from agents.planner.fit import FREE_ELECTIVE
from agents.planner.prep import Prep
from agents.planner.repair import agree_with_audit
from agents.planner.result import build_result, consent_needed
from agents.planner.risky import risky_count
from agents.planner.schema import PlanConstraints, PlanResult
from agents.planner.setup import PlanSetup

log = structlog.get_logger(__name__)

MAX_ALTERNATIVES = 5
REJECTED_MAX = 5  # plans a check may reject before the search gives up
MOVES_SHOWN = 4  # moved courses named one by one; the rest are counted

AlternativeKind = Literal["equally_good", "next_best", "better"]
DistinctBy = Literal["course_set", "placement"]
Check = Callable[[PlanResult], list[str]]


class PlanAlternative(BaseModel):
    """One alternative and how it compares with the chosen plan."""

    model_config = ConfigDict(extra="forbid")

    result: PlanResult = Field(description="The alternative plan.")
    kind: AlternativeKind = Field(description="How it compares with the chosen plan.")
    distinct_by: DistinctBy = Field(
        description="'course_set': other courses; 'placement': the same courses in other terms."
    )
    label: str = Field(description="E.g. 'Equally good' or 'Next best: +9 units'.")
    differences: list[str] = Field(description="What differs, in words, most telling first.")
    consent_courses: list[str] = Field(description="Its courses that need someone's consent.")


def alternatives(
    catalog: Catalog,
    student: StudentRecord,
    programs: Sequence[str],
    constraints: PlanConstraints,
    best: PlanResult,
    k: int,
    *,
    check: Check | None = None,
) -> list[PlanAlternative]:
    """Up to ``k`` (0..5) distinct plans beside ``best`` (see the module docstring), in
    the order found: each is at best as good as the one before it."""
    if not 0 <= k <= MAX_ALTERNATIVES:
        raise PlanningError(f"k={k!r}: ask for 0 to {MAX_ALTERNATIVES} alternatives")
    if k == 0 or best.graduation_term is None or not any(t.courses for t in best.terms):
        return []
    with watch(constraints.time_limit_s) as w:
        found = _search(catalog, student, programs, constraints, best, k, check, w.deadline)
    if w.fired:
        log.warning("planner.alternatives.timed_out", student=student.id, where=w.fired[0],
                    found=len(found), seconds=w.seconds)  # fmt: skip
        return []
    return found


def _search(
    catalog: Catalog,
    student: StudentRecord,
    programs: Sequence[str],
    constraints: PlanConstraints,
    best: PlanResult,
    k: int,
    check: Check | None,
    deadline: float,
) -> list[PlanAlternative]:
    """The k-best search of ``alternatives`` (``deadline``: its safety net)."""
    assert best.graduation_term is not None  # ``alternatives`` asks only for a plan's
    graduation = Term.parse(best.graduation_term)
    catalog = effective_catalog(catalog, student)  # the advisor's exceptions, as in plan()
    setup = PlanSetup(catalog, student, programs, constraints)
    end = end_term(setup)
    earlier = [placement_of(best)]
    by: DistinctBy = "course_set"
    found: list[PlanAlternative] = []
    rejected = 0
    while len(found) < k and rejected < REJECTED_MAX:
        if expired(deadline, "alternatives"):
            break
        t0 = time.perf_counter()
        if by == "course_set":
            setup.other_sets = [frozenset(p) for p in earlier]
        else:
            setup.other_sets, setup.other_placements = [], list(earlier)
        prep, _, sol = solve_through(setup, end, deadline)
        if prep is None or sol.status not in ("optimal", "feasible"):
            if by == "course_set" and sol.status == "infeasible":
                # Every remaining course is forced: the same courses in other terms, by the
                # same graduation (a later one with the same courses is only a delay).
                by = "placement"
                end = min(end, graduation)
                log.info("planner.alternatives.no_other_course_set", student=student.id)
                continue
            log.info("planner.alternatives.done", student=student.id, found=len(found),
                     why=sol.status)  # fmt: skip
            break
        if by == "placement" and set(sol.placement) not in [set(p) for p in earlier]:
            # Fewer units win: a plan with more courses means no same-set placement is left.
            log.info("planner.alternatives.done", student=student.id, found=len(found),
                     why="no other placement")  # fmt: skip
            break
        sol, audit_notes = agree_with_audit(setup, prep, sol, deadline)
        result = build_result(setup, prep, sol)
        result.notes.extend(audit_notes)
        if not prep.full:
            # Best among the pool's other plans only: nothing proved over the whole catalog.
            result.status, result.pool_size = "feasible", len(prep.pool)
        result.solve_ms = round((time.perf_counter() - t0) * 1000, 3)
        earlier.append(placement_of(result))
        problems = check(result) if check is not None else []
        if problems:
            rejected += 1
            log.warning("planner.alternatives.rejected", student=student.id,
                        problems=problems)  # fmt: skip
            continue
        found.append(compare(best, result, prep, by))
    return found


def placement_of(result: PlanResult) -> dict[str, str]:
    """Course -> term code of every planned course."""
    return {c: t.term for t in result.terms for c in t.courses}


def _positions(result: PlanResult, prep: Prep) -> dict[str, int]:
    index = {code: i for i, code in enumerate(prep.term_codes)}
    return {c: index.get(t, -1) for c, t in placement_of(result).items()}


def compare(best: PlanResult, alt: PlanResult, prep: Prep, by: DistinctBy) -> PlanAlternative:
    """``alt`` labelled against ``best`` (their consent courses read with ``prep``)."""
    assert best.graduation_term is not None and alt.graduation_term is not None
    consent_best = consent_needed(prep, _positions(best, prep))
    consent_alt = consent_needed(prep, _positions(alt, prep))
    b = Term.parse(best.graduation_term)
    a = Term.parse(alt.graduation_term)
    units = credit_sub(alt.units_planned, best.units_planned)
    more = len(consent_alt) - len(consent_best)
    # Dormant courses and consent a prerequisite could replace (``agents.planner.risky``).
    risky = risky_count(prep, placement_of(alt), consent_alt) - risky_count(
        prep, placement_of(best), consent_best
    )
    # The objective's order: graduation, the risky courses, units, then consent courses.
    signs = [_sign(a.index - b.index), _sign(risky), _sign(units), _sign(more)]
    first = next((x for x in signs if x), 0)
    what = _criteria(best, alt, len(consent_best), len(consent_alt))
    dormant = risky_count(prep, placement_of(alt), ()) - risky_count(prep, placement_of(best), ())
    if dormant:  # named right after graduation, as the objective weighs it
        n = abs(dormant)
        words = f"{n} {'more' if dormant > 0 else 'fewer'} course{'s' if n > 1 else ''}"
        what.insert(int(alt.graduation_term != best.graduation_term), words + " that may be "
                    "discontinued")  # fmt: skip
    if first == 0:
        kind: AlternativeKind = "equally_good"
        label = "Equally good"
    elif first > 0:
        kind, label = "next_best", "Next best: " + ", ".join(what)
    else:
        kind, label = "better", "Better: " + ", ".join(what)
    return PlanAlternative(
        result=alt,
        kind=kind,
        distinct_by=by,
        label=label,
        differences=differences(best, alt, len(consent_best), len(consent_alt)),
        consent_courses=consent_alt,
    )


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def _criteria(best: PlanResult, alt: PlanResult, consent_best: int, consent_alt: int) -> list[str]:
    """What differs in the objective, in its order: graduation, units, consent courses."""
    out = []
    if alt.graduation_term != best.graduation_term:
        out.append(f"graduates {_label(alt.graduation_term)} instead of "
                   f"{_label(best.graduation_term)}")  # fmt: skip
    delta = credit_sub(alt.units_planned, best.units_planned)
    if delta > 0:
        out.append(f"+{credits_text(delta)}")
    elif delta < 0:
        out.append(f"{credits_text(-delta)} fewer")
    more = consent_alt - consent_best
    if more:
        out.append(f"{abs(more)} {'more' if more > 0 else 'fewer'} "
                   f"course{'s' if abs(more) > 1 else ''} on consent")  # fmt: skip
    return out


def differences(
    best: PlanResult, alt: PlanResult, consent_best: int = 0, consent_alt: int = 0
) -> list[str]:
    """What differs, in words: courses swapped (paired by the requirement they count
    toward), added or left out; courses in other terms (named when the courses are the
    same, counted otherwise); then graduation, units and consent courses."""
    mine, theirs = placement_of(alt), placement_of(best)
    out = _swaps(best, alt)
    moved = sorted(
        (c for c in mine if c in theirs and mine[c] != theirs[c]),
        key=lambda c: (Term.parse(mine[c]).index, c),
    )
    if out and moved:
        # Other courses reshuffle the terms: the grid shows where; the words say how many.
        n = len(moved)
        out.append(f"{n} of the same courses in other terms" if n > 1 else
                   "1 of the same courses in another term")  # fmt: skip
    else:
        out += [
            f"takes {c} in {_label(mine[c])} instead of {_label(theirs[c])}"
            for c in moved[:MOVES_SHOWN]
        ]
        if len(moved) > MOVES_SHOWN:
            rest = len(moved) - MOVES_SHOWN
            out.append(f"and {rest} more course{'s' if rest > 1 else ''} in other terms")
    if alt.graduation_term == best.graduation_term:
        out.append(f"graduates the same term ({_label(alt.graduation_term)})")
    else:
        out.append(f"graduates {_label(alt.graduation_term)} instead of "
                   f"{_label(best.graduation_term)}")  # fmt: skip
    units, before = format_credits(alt.units_planned), format_credits(best.units_planned)
    delta = credit_sub(alt.units_planned, best.units_planned)
    if delta == 0:
        out.append(f"the same {unit_name()} ({units})")
    else:
        more = f"+{credits_text(delta)}" if delta > 0 else f"{credits_text(-delta)} fewer"
        out.append(f"{more} ({units} instead of {before})")
    if consent_alt != consent_best:
        out.append(f"{consent_alt} course{'s' if consent_alt != 1 else ''} on consent "
                   f"instead of {consent_best}")  # fmt: skip
    return out


def _swaps(best: PlanResult, alt: PlanResult) -> list[str]:
    """'takes A instead of B' for courses that count toward the same requirement (or are
    both free electives); the rest as one phrase."""
    added = sorted(set(placement_of(alt)) - set(placement_of(best)))
    dropped = sorted(set(placement_of(best)) - set(placement_of(alt)))
    out = []
    for old in list(dropped):
        roles = set(best.requirement_of.get(old, [FREE_ELECTIVE]))
        new = next(
            (c for c in added if roles & set(alt.requirement_of.get(c, [FREE_ELECTIVE]))), None
        )
        if new is not None:
            out.append(f"takes {new} instead of {old}")
            added.remove(new)
            dropped.remove(old)
    if added and dropped:
        out.append(f"takes {_and(added)} instead of {_and(dropped)}")
    elif added:
        out.append(f"also takes {_and(added)}")
    elif dropped:
        out.append(f"does not take {_and(dropped)}")
    return out


def _label(code: str | None) -> str:
    return Term.parse(code).label() if code else "no term"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]

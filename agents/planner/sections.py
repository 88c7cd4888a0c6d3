"""Next-term section selection: one section per course, no time clashes, free time kept.

``select_sections(catalog, term, courses, ...)`` picks a section of every course for the
term with a small CP-SAT model (one worker, fixed seed, a deterministic budget:
deterministic). Priorities, in
order: fewest clashing pairs, fewest free-time conflicts (meetings on a day to keep free,
before ``not_before`` or after ``not_after``), then the first-listed sections (by section
id) as the tie-break.

When the courses cannot all be scheduled without a clash, a free-time conflict or a missing
section, ``alternative`` is the best course set for the term that fits completely. The rule:

1. keep as many ``required`` courses (those counting toward a requirement) as possible;
2. then keep as many of the other requested courses as possible;
3. then fill dropped places with ``candidates`` (replacement courses the caller vouches for:
   offered, prerequisites met), at most one per dropped course, as many as fit;
4. ties: courses earlier in the request, then earlier candidates, then first-listed sections.

The alternative keeps the request's order, replacements appended.

Each model has a deterministic budget (``SECTION_DTIME``) and a wall-clock safety net
(``TIME_LIMIT_S``, ``agents.planner.cpsat``); a choice not proved best within them says so
(``SectionChoice.timed_out``, the budget that ran out): its clashes are those of the best
choice found (the first-listed sections when none was), never a proof that no clash-free
choice exists.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Literal

import structlog
from ortools.sat.python import cp_model
from pydantic import BaseModel, ConfigDict, Field

from agents.catalog import Catalog, Meeting, Section, Term
from agents.planner.cpsat import Model, Solver, make_solver

log = structlog.get_logger(__name__)

SEED = 7
DAY_CODES = "MTWRFSU"
_DAY_WORDS = {
    "monday": "M",
    "tuesday": "T",
    "wednesday": "W",
    "thursday": "R",
    "friday": "F",
    "saturday": "S",
    "sunday": "U",
    "mon": "M",
    "tue": "T",
    "wed": "W",
    "thu": "R",
    "fri": "F",
    "sat": "S",
    "sun": "U",
}


class SectionChoice(BaseModel):
    """The sections chosen for one term, or why the courses do not fit."""

    model_config = ConfigDict(extra="forbid")

    term: str = Field(description="Term code the sections are for.")
    status: Literal["ok", "clash", "no_sections"] = Field(
        description="'ok': every course has a section and none clash; 'clash': no clash-free "
        "choice exists; 'no_sections': some course has no section in the term (the rest fit) - "
        "its sections are not published yet or, in a published term, it does not run then "
        "(``agents.catalog.offered_in``) and was forced in."
    )
    sections: dict[str, str] = Field(description="Course -> chosen section id.")
    meetings: dict[str, list[Meeting]] = Field(
        description="Course -> weekly meetings of the chosen section."
    )
    clashes: list[str] = Field(
        description="Readable clashes among the chosen sections, naming both and the times."
    )
    free_time_conflicts: list[str] = Field(
        default_factory=list,
        description="Chosen meetings that break the free-time wishes (no choice avoided them).",
    )
    unscheduled: list[str] = Field(description="Courses with no section in the term.")
    alternative: list[str] | None = Field(
        description="When not everything fits: the best course set that does (see the module "
        "docstring for the rule); None when the request fits as is."
    )
    free_days: list[str] = Field(
        default_factory=list, description="Day codes to keep free, as requested (M T W R F S U)."
    )
    not_before: str | None = Field(default=None, description="Earliest start wished, 'HH:MM'.")
    not_after: str | None = Field(default=None, description="Latest end wished, 'HH:MM'.")
    timed_out: float | None = Field(
        default=None,
        description="The limit that ran out before the choice (or the alternative) was "
        "proved best - the deterministic budget, or the wall-clock safety net's seconds when "
        "it fired: the clashes and conflicts are those of the best choice "
        "found (the first-listed sections when none was), not proved unavoidable. None: proved.",
    )


# --------------------------------------------------------------------------- time helpers


def normalize_days(days: Sequence[str]) -> list[str]:
    """'F', 'Fri', 'friday' or 'MF' -> day codes, in week order."""
    out: set[str] = set()
    for d in days:
        word = d.strip().lower()
        if word in _DAY_WORDS:
            out.add(_DAY_WORDS[word])
        elif d.strip().upper() and all(ch in DAY_CODES for ch in d.strip().upper()):
            out.update(d.strip().upper())
        else:
            raise ValueError(f"not a day: {d!r}; use M T W R F S U or a day name")
    return [ch for ch in DAY_CODES if ch in out]


def meetings_overlap(a: Meeting, b: Meeting) -> bool:
    """Same day and overlapping times (a meeting ending at 10:00 does not clash with 10:00)."""
    return bool(set(a.days) & set(b.days)) and a.start < b.end and b.start < a.end


def sections_clash(a: Section, b: Section) -> tuple[Meeting, Meeting] | None:
    for ma in a.meetings:
        for mb in b.meetings:
            if meetings_overlap(ma, mb):
                return ma, mb
    return None


def free_time_problems(
    meetings: Sequence[Meeting],
    free_days: Sequence[str],
    not_before: str | None,
    not_after: str | None,
) -> list[str]:
    out: list[str] = []
    for m in meetings:
        bad = "".join(ch for ch in m.days if ch in free_days)
        if bad:
            out.append(f"meets on {bad}, a day you asked to keep free")
        if not_before is not None and m.start < not_before:
            out.append(f"starts at {m.start}, before the {not_before} you asked for")
        if not_after is not None and m.end > not_after:
            out.append(f"ends at {m.end}, after the {not_after} you asked for")
    return out


def never_free(
    catalog: Catalog,
    term: str,
    free_days: Sequence[str],
    not_before: str | None,
    not_after: str | None,
) -> list[str]:
    """Courses whose every section in ``term`` breaks the free-time wishes."""
    days = normalize_days(free_days)
    if not (days or not_before or not_after):
        return []
    code = Term.parse(term).code
    return sorted(
        c.code
        for c in catalog.courses
        if (secs := c.sections_in(code))
        and all(free_time_problems(s.meetings, days, not_before, not_after) for s in secs)
    )


def describe(meetings: Sequence[Meeting]) -> str:
    return ", ".join(f"{m.days} {m.start}-{m.end}" for m in meetings) or "no meetings"


# --------------------------------------------------------------------------- selection


def _sections(catalog: Catalog, term: str, code: str) -> list[Section]:
    course = catalog.course_by_code.get(code)
    if course is None:
        return []
    return sorted(course.sections_in(term), key=lambda s: s.id)


SECTION_DTIME = 1.0  # deterministic budget per model; not proved within it: ``timed_out``
TIME_LIMIT_S = 5.0  # wall-clock safety net per model (``agents.planner.cpsat``)


def _solver() -> Solver:
    solver = make_solver(TIME_LIMIT_S, SECTION_DTIME, where="section selection")
    solver.parameters.random_seed = SEED
    return solver


def _ran_out(solver: Solver) -> float:
    """The limit that stopped ``solver`` before a proof: the wall clock's (the safety net
    fired) or, as always otherwise, the deterministic budget."""
    return TIME_LIMIT_S if solver.deterministic_time < SECTION_DTIME else SECTION_DTIME


def select_sections(
    catalog: Catalog,
    term: str,
    courses: Sequence[str],
    *,
    free_days: Sequence[str] = (),
    not_before: str | None = None,
    not_after: str | None = None,
    required: Sequence[str] | None = None,
    candidates: Sequence[str] = (),
) -> SectionChoice:
    """Choose one section per course for ``term`` (see the module docstring).

    ``required`` defaults to every requested course; ``candidates`` are possible
    replacements for the alternative.
    """
    term = Term.parse(term).code
    days = normalize_days(free_days)
    courses = list(dict.fromkeys(courses))
    offered = {c: _sections(catalog, term, c) for c in courses}
    unscheduled = [c for c in courses if not offered[c]]
    placed = [c for c in courses if offered[c]]
    m = Model()
    pick = {(c, k): m.new_bool_var(f"s[{c},{k}]") for c in placed for k in range(len(offered[c]))}
    for c in placed:
        m.add_exactly_one(pick[(c, k)] for k in range(len(offered[c])))
    pairs: list[tuple[cp_model.IntVar, str, int, str, int]] = []
    for c, d in combinations(placed, 2):
        for k, sa in enumerate(offered[c]):
            for j, sb in enumerate(offered[d]):
                if sections_clash(sa, sb):
                    v = m.new_bool_var(f"clash[{c},{k},{d},{j}]")
                    m.add(v >= pick[(c, k)] + pick[(d, j)] - 1)
                    pairs.append((v, c, k, d, j))

    def bad(s: Section) -> int:
        return len(free_time_problems(s.meetings, days, not_before, not_after))

    tie = [(k, pick[(c, k)]) for c in placed for k in range(len(offered[c]))]
    free = [(bad(offered[c][k]), pick[(c, k)]) for c in placed for k in range(len(offered[c]))]
    tie_max = sum(len(offered[c]) for c in placed) + 1
    free_max = sum(w for w, _ in free) + 1
    m.minimize(
        sum(v for v, *_ in pairs) * free_max * tie_max
        + sum(w * v for w, v in free) * tie_max
        + sum(k * v for k, v in tie)
    )
    solver = _solver()
    code = solver.solve(m)
    timed_out = None if code == cp_model.OPTIMAL else _ran_out(solver)
    # Without any answer in time, the first-listed sections (their clashes are real).
    chosen = {c: 0 for c in placed}
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        chosen = {
            c: k
            for c in placed
            for k in range(len(offered[c]))
            if solver.boolean_value(pick[(c, k)])
        }
    clashes = []
    for _v, c, k, d, j in pairs:
        if chosen[c] == k and chosen[d] == j:
            sa, sb = offered[c][k], offered[d][j]
            clashes.append(
                f"{c} {sa.id} ({describe(sa.meetings)}) clashes with "
                f"{d} {sb.id} ({describe(sb.meetings)})"
            )
    # Each conflict names the course, the section, the meeting and the wish it breaks.
    conflicts = [
        f"{c} {offered[c][k].id} ({describe([mt])}): {p}"
        for c, k in chosen.items()
        for mt in offered[c][k].meetings
        for p in free_time_problems([mt], days, not_before, not_after)
    ]
    status: Literal["ok", "clash", "no_sections"] = (
        "clash" if clashes else "no_sections" if unscheduled else "ok"
    )
    alternative = None
    if clashes or conflicts or unscheduled:
        keep = set(courses) if required is None else set(required)
        alternative, ran_out = _alternative(
            catalog, term, courses, keep, list(candidates), days, not_before, not_after
        )
        if ran_out is not None:
            timed_out = ran_out
    result = SectionChoice(
        term=term,
        status=status,
        sections={c: offered[c][k].id for c, k in chosen.items()},
        meetings={c: list(offered[c][k].meetings) for c, k in chosen.items()},
        clashes=clashes,
        free_time_conflicts=conflicts,
        unscheduled=unscheduled,
        alternative=alternative,
        free_days=days,
        not_before=not_before,
        not_after=not_after,
        timed_out=timed_out,
    )
    log.debug("sections.selected", term=term, status=status, clashes=len(clashes))
    return result


def _alternative(
    catalog: Catalog,
    term: str,
    courses: list[str],
    required: set[str],
    candidates: list[str],
    days: list[str],
    not_before: str | None,
    not_after: str | None,
) -> tuple[list[str] | None, float | None]:
    """The best fully fitting course set (see the module docstring for the rule), and the
    limit that ran out before it was proved best (None: proved): then the best set found,
    or None when none was."""
    reps = [c for c in dict.fromkeys(candidates) if c not in courses]
    every = courses + reps
    usable = {
        c: [
            (k, s)
            for k, s in enumerate(_sections(catalog, term, c))
            if not free_time_problems(s.meetings, days, not_before, not_after)
        ]
        for c in every
    }
    m = Model()
    pick = {(c, k): m.new_bool_var(f"s[{c},{k}]") for c in every for k, _ in usable[c]}
    take = {c: m.new_bool_var(f"take[{c}]") for c in every}
    for c in every:
        m.add(sum(pick[(c, k)] for k, _ in usable[c]) == take[c])
    for c, d in combinations(every, 2):
        for k, sa in usable[c]:
            for j, sb in usable[d]:
                if sections_clash(sa, sb):
                    m.add(pick[(c, k)] + pick[(d, j)] <= 1)
    m.add(sum(take[r] for r in reps) <= sum(1 - take[c] for c in courses))
    n = len(every) + 1
    # Weights make each priority dominate the next: required kept > others kept >
    # replacements > order tie-break (earlier courses, earlier sections).
    order = sum((n - i) * take[c] for i, c in enumerate(every))
    sec = sum(k * v for (c, k), v in pick.items())
    sec_max = sum(k for (c, k) in pick) + 1
    tie = order * sec_max - sec
    tie_max = (n * n + 1) * sec_max
    w_rep = tie_max + 1
    w_keep = w_rep * (len(reps) + 1)
    w_req = w_keep * (len(courses) + 1)
    m.maximize(
        w_req * sum(take[c] for c in courses if c in required)
        + w_keep * sum(take[c] for c in courses)
        + w_rep * sum(take[r] for r in reps)
        + tie
    )
    solver = _solver()
    code = solver.solve(m)
    if code == cp_model.INFEASIBLE:
        return None, None
    if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None, _ran_out(solver)
    ran_out = None if code == cp_model.OPTIMAL else _ran_out(solver)
    return [c for c in every if solver.boolean_value(take[c])], ran_out

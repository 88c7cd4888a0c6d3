"""Why a course cannot be taken, for the reasons of an infeasible plan
(``agents.planner.reasons``): the cause that binds, never a stand-in for it.

- a standing restriction (``Course.restricted_to``): no term the course may take through
  the end is one in which the student can have a standing it is open to. The standings
  come from ``Prep.standings`` (those the student can have at the start of each term, at
  the planned loads), so the reason holds whether the planner projects standing or reads
  it once: a juniors' course is refused only when junior standing cannot be reached;
- a refused retake: a course the record has below the grade something asks for, which
  cannot be taken again - a ``repeat_limit`` rule rules out another attempt (the rule is
  named, read as ``agents.policy.records`` reads it), the course is on the avoid list, or an
  earned anti-requisite excludes its credit;
- a prerequisite the student cannot meet for those reasons.
"""

from __future__ import annotations

from agents.catalog import (
    STANDINGS,
    AllOf,
    AnyOf,
    ClassStanding,
    ConsentCond,
    Course,
    CourseCond,
    FactCond,
    PrereqNode,
    StandingCond,
    UnitsCond,
    credit_sum,
    credits_text,
)
from agents.planner.prep import INF, Analysis, Prep
from agents.planner.reasons_load import Facts, holds, limit_of, rule_loads, rule_words

WHO: dict[ClassStanding, str] = {
    "first_year": "first-year students",
    "sophomore": "sophomores",
    "junior": "juniors",
    "senior": "seniors",
}
NAME: dict[ClassStanding, str] = {
    "first_year": "first-year",
    "sophomore": "sophomore",
    "junior": "junior",
    "senior": "senior",
}
NOT_ATTEMPTS = frozenset({"W"})  # a withdrawal is no attempt (``agents.policy.rules``)


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def open_words(course: Course) -> str:
    """'juniors and seniors'."""
    return _join([WHO[s] for s in STANDINGS if s in course.restricted_to])


def threshold(prep: Prep, k: int) -> float:
    """Units completed that ``STANDINGS[k]`` begins at (the catalog's thresholds)."""
    t = prep.catalog.standing_thresholds
    return (0.0, t.sophomore, t.junior, t.senior)[k]


def places(prep: Prep, code: str) -> list[int]:
    """The positions ``code`` may take but for its standing restriction: offered, in the
    term it is fixed in, not barred from."""
    out = list(prep.offered_positions(code))
    if code in prep.fixed:
        out = [i for i in out if prep.term_codes[i] == prep.fixed[code]]
    barred = prep.not_in.get(code, set())
    return [i for i in out if prep.term_codes[i] not in barred]


def units_before(prep: Prep, i: int, loads: list[float] | None = None) -> float:
    """The most units the student can have at the start of position ``i``: the record's
    plus full ``loads`` (the planned caps) in the active terms before it."""
    caps = prep.caps if loads is None else loads
    return credit_sum([prep.history.units_earned, *(caps[j] for j in range(i) if prep.active[j])])


def _open(prep: Prep, course: Course, i: int) -> bool:
    lo, hi = prep.standings[i]
    return any(course.open_to(STANDINGS[k]) for k in range(lo, hi + 1))


def standing_block(prep: Prep, code: str, end_word: str) -> str | None:
    """Why ``code`` cannot be taken by the end because of its standing restriction, or None
    when the restriction does not bind there. The positions the planner lets it take
    (``Prep.allowed_for``, the restriction applied) decide whether it binds: none left of
    those it is offered in - the student cannot reach a standing it is open to, is past
    them, or (a planner that asks for a standing the student surely has) is not sure to
    have one - or its prerequisites cannot be complete before the last position left."""
    course = prep.course(code)
    where = places(prep, code)
    if not course.restricted_to or code in prep.forced or not where:
        return None
    who = open_words(course)
    left = prep.allowed_for(code)
    if left:
        ready = ready_at(prep, prep.analysis, code)
        if ready <= left[-1] or ready > where[-1]:
            return None  # open once it is ready, or the prerequisites bind whatever the standing
        return (
            f"{code} is open only to {who}, and the student may be one only through "
            f"{prep.terms[left[-1]].code}; its prerequisites cannot be complete by then"
        )
    earned = prep.history.units_earned
    now = STANDINGS.index(prep.catalog.standing_for_units(earned))
    later = [k for k in range(now + 1, len(STANDINGS)) if course.open_to(STANDINGS[k])]
    if not later:
        return (
            f"{code} is open only to {who}; the student already has {NAME[STANDINGS[now]]} "
            f"standing ({credits_text(earned)} earned)"
        )
    k, last = later[0], where[-1]
    need = f"{NAME[STANDINGS[k]]} standing ({credits_text(threshold(prep, k))})"
    if any(_open(prep, course, i) for i in where):
        return (
            f"{code} is open only to {who}; the student has {NAME[STANDINGS[now]]} standing "
            f"({credits_text(earned)} earned) and is not sure to have {need} at the start of "
            f"any term it is offered in through {end_word}"
        )
    when = (
        "the term it is fixed in" if code in prep.fixed else f"its last offering through {end_word}"
    )
    text = (
        f"{code} is open only to {who}; the student cannot reach {need} before "
        f"{prep.terms[last].code}, {when} (at most {credits_text(units_before(prep, last))} by "
        "then at the planned loads)"
    )
    loads = rule_loads(prep)
    heavier = [
        prep.caps[j] if x is None else max(prep.caps[j], x.allowed) for j, x in enumerate(loads)
    ]
    if all(x is not None for x in loads[:last]) and units_before(prep, last, heavier) >= threshold(
        prep, k
    ):
        lift = max((x for x in loads[:last] if x is not None), key=lambda x: x.allowed)
        text += f"; heavier loads could reach it ({rule_words(lift)})"
    return text


def ready_at(prep: Prep, analysis: Analysis, code: str) -> int:
    """The first position ``code``'s prerequisites and corequisites allow, from the earliest
    terms of ``analysis`` (INF: none)."""
    if code in prep.forced:
        return 0
    course = prep.course(code)
    return max(
        ready(prep, analysis, course.prerequisites, True),
        ready(prep, analysis, course.corequisites, False),
    )


def ready(prep: Prep, analysis: Analysis, node: PrereqNode | None, strict: bool) -> int:
    """The first position at which ``node`` holds, from the earliest terms of ``analysis``
    (INF: none); ``strict``: a course must be done before (a prerequisite), not alongside (a
    corequisite)."""
    if node is None or isinstance(node, ConsentCond):
        return 0
    if isinstance(node, CourseCond):
        if prep.hist_ok(node.course, node.min_grade):
            return 0
        e = analysis.est.get(node.course, INF)
        return INF if e >= INF else e + 1 if strict else e
    if isinstance(node, AllOf):
        return max(ready(prep, analysis, c, strict) for c in node.all)
    if isinstance(node, AnyOf):
        return min(ready(prep, analysis, c, strict) for c in node.any)
    if isinstance(node, FactCond):
        return 0 if prep.fact(node) else INF
    need = prep.threshold(node)
    return next((i for i in range(len(prep.terms)) if prep.units_reachable(need, i)), INF)


def standing_delay(prep: Prep, analysis: Analysis, chain: list[str]) -> str:
    """'; 73-230 is open only to juniors and seniors, from S2028 at the earliest' when a
    standing restriction puts a course of ``chain`` later than its prerequisites and
    offerings would; '' otherwise."""
    for c in chain:
        course = prep.course(c)
        e = analysis.est.get(c, INF)
        if not course.restricted_to or c in prep.forced or e >= INF:
            continue
        ready = ready_at(prep, analysis, c)
        first = next((i for i in places(prep, c) if i >= ready), INF)
        if first < e:
            who = open_words(course)
            return f"; {c} is open only to {who}, from {prep.terms[e].code} at the earliest"
    return ""


def condition_block(prep: Prep, code: str, end_word: str) -> str | None:
    """Why ``code`` cannot be taken by the end when a standing or units prerequisite it
    must meet (not one of several alternatives) cannot be met before its last position;
    or when every term it is offered in is one the request keeps it out of. None else."""
    course = prep.course(code)
    where = places(prep, code)
    if code in prep.forced:
        return None
    if not where:
        barred = prep.not_in.get(code, set())
        offered = [prep.terms[i].code for i in prep.offered_positions(code)]
        if offered and code not in prep.fixed and set(offered) <= barred:
            return (
                f"{code} is offered through {end_word} only in {_join(offered)}, which the "
                "request keeps it out of"
            )
        return None
    last = where[-1]
    for node in _musts(course.prerequisites):
        need = prep.threshold(node)
        if prep.units_reachable(need, last):
            continue
        what = (
            f"{NAME[node.standing]} standing ({credits_text(need)})"
            if isinstance(node, StandingCond)
            else f"{credits_text(need)} completed"
        )
        return (
            f"{code} requires {what} first, which the student cannot reach before "
            f"{prep.terms[last].code}, its last offering through {end_word} (at most "
            f"{credits_text(units_before(prep, last))} by then at the planned loads)"
        )
    return None


def _musts(node: PrereqNode | None) -> list[StandingCond | UnitsCond]:
    """The standing and units conditions every way of meeting ``node`` asks for."""
    if isinstance(node, StandingCond | UnitsCond):
        return [node]
    if isinstance(node, AllOf):
        return [x for c in node.all for x in _musts(c)]
    return []


# --------------------------------------------------------------------------- retakes


def repeat_refusal(prep: Prep, code: str) -> str | None:
    """The ``repeat_limit`` rule that rules out another attempt at ``code``, with why
    ('REPEAT-LIMIT allows at most 2 attempts and the record has 2 (R in S2025, R in
    F2025)'); None when none does (or the course is repeatable for credit)."""
    catalog = prep.catalog
    prior = [a for a in prep.student.attempts_of(code) if a.grade not in NOT_ATTEMPTS]
    if not prior or prep.course(code).repeatable:
        return None
    facts = Facts.of(prep)
    now = catalog.standing_for_units(prep.history.units_earned)
    when = ", ".join(f"{a.grade or 'in progress'} in {a.term}" for a in prior)
    grades = catalog.grade_by_symbol
    for rule in catalog.policies:
        if rule.kind != "repeat_limit" or not holds(rule.applies_when, facts, now):
            continue
        limit = limit_of(rule, facts, now, None)
        most = None if limit is None else int(limit)
        if rule.grade_ceiling is None:
            if most is not None and len(prior) >= most:
                return (
                    f"{rule.id} allows at most {_count(most, 'attempt')}, and the record already "
                    f"has {len(prior)} ({when})"
                )
            continue
        top = grades[rule.grade_ceiling].points if rule.grade_ceiling in grades else 0.0

        def points(grade: str | None) -> float:
            g = grades.get(grade or "")
            return g.points if g is not None else 0.0

        above = [a for a in prior if a.status == "completed" and points(a.grade) > top]
        if above:
            best = max(above, key=lambda a: points(a.grade))
            return (
                f"{rule.id} allows a repeat only after a grade of {rule.grade_ceiling} or "
                f"below, and the record has {best.grade} in {best.term}"
            )
        if most is not None and len(prior) - 1 >= most:
            return (
                f"{rule.id} allows at most {_count(most, 'repeat')}, and the record already has "
                f"{len(prior) - 1} ({when})"
            )
    return None


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def untakeable(prep: Prep, code: str) -> str | None:
    """Why ``code`` cannot be planned at all, after its code ('cannot be taken again:
    REPEAT-LIMIT allows ...', 'is on the avoid list', 'is excluded by its anti-requisite
    10-101 on the record'); None when it can be."""
    if code in prep.avoid:
        refusal = repeat_refusal(prep, code)
        return f"cannot be taken again: {refusal}" if refusal else "is on the avoid list"
    earned = sorted(a for a in prep.antireqs(code) if a in prep.history.passed)
    if earned:
        return f"is excluded by its anti-requisite {', '.join(earned)} on the record"
    return None


def _min_grade(node: PrereqNode | None, code: str) -> str | None:
    if isinstance(node, CourseCond):
        return node.min_grade if node.course == code else None
    if isinstance(node, AllOf | AnyOf):
        kids = node.all if isinstance(node, AllOf) else node.any
        return next((g for c in kids if (g := _min_grade(c, code))), None)
    return None


def prerequisite_block(prep: Prep, wide: Prep, analysis: Analysis, code: str) -> str | None:
    """Why ``code`` cannot be taken when what bounds it is a course the record has below
    the grade its prerequisite asks for, which cannot be taken again ('73-230 needs 73-102
    with a grade of C or better and the record has F in F2025, D in S2026; 73-102 cannot be
    taken again: REPEAT-LIMIT ...'); None otherwise."""
    w = analysis.why.get(code)
    if (
        analysis.est.get(code, INF) < INF
        or w is None
        or w in analysis.est
        or not wide.hist_ok(w, None)
    ):
        return None
    course = prep.course(code)
    grade = _min_grade(course.prerequisites, w) or _min_grade(course.corequisites, w)
    cause = untakeable(wide, w)
    if grade is None or cause is None:
        return None
    attempts = [a for a in prep.student.attempts_of(w) if a.status == "completed"]
    had = ", ".join(f"{a.grade} in {a.term}" for a in attempts)
    # A refused retake lists the attempts itself.
    has = f"and the record has {had}" if had and not cause.startswith("cannot") else ""
    return f"{code} needs {w} with a grade of {grade} or better{has and ' '}{has}; {w} {cause}"


def head_block(prep: Prep, wide: Prep, analysis: Analysis, code: str) -> str | None:
    """Why ``code``, a course of a prerequisite chain, can never be taken (within ``wide``,
    years past the end): not plannable, a prerequisite it cannot meet, a standing it cannot
    have; None otherwise."""
    if code not in analysis.est and (why := untakeable(wide, code)):
        return f"{code} {why}"
    return prerequisite_block(prep, wide, analysis, code) or standing_block(
        wide, code, wide.terms[-1].code
    )

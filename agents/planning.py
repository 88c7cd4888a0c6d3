"""From an intake result and a constraint set to the planner's input, shared by the two
stages that plan: requirements (round 1, the proposal) and scheduling (later rounds, and
re-plans around section clashes).

- ``initial_constraints``: the round-1 constraint set, the student's own wishes and no
  policy yet. With a graduation target and no cap of their own, the cap is the highest any
  load rule allows anyone (the overload ceiling), so the policy critique - not the planner
  - decides whether this student may carry it; otherwise the standard cap of the student's
  class standing (``agents.policy.catalog_load_caps``). Caps rules set for a kind of term
  (summer) go on the terms of that kind.
- ``to_plan_constraints``: a constraint set plus what the next term's sections and the
  student's interests add (pairs that always clash, courses that break the free-time
  wishes, interest scores), as ``PlanConstraints``.
- ``plannable_programs``: the target programs minus what-if programs the student may not
  add (the critique flags those). The institution's requirements (programs of kind
  ``institution``) are not listed: the audit, the planner and the verifier add them for
  every student (``agents.catalog.with_institution``).
"""

from __future__ import annotations

from agents.artifacts import ConstraintSet, IntakeResult
from agents.audit import AuditReport
from agents.catalog import Term
from agents.planner import PlanConstraints, never_free
from agents.policy import catalog_load_caps, term_kind_caps
from agents.toolbox import Toolbox


def initial_constraints(intake: IntakeResult, tools: Toolbox) -> ConstraintSet:
    """The round-1 constraint set: the student's own wishes, nothing from policy yet."""
    caps = catalog_load_caps(tools.catalog, intake.profile.class_standing)
    standard, ceiling = caps.standard, caps.ceiling
    goals = intake.goals
    term_caps: dict[str, float] = {}
    if goals.max_units_per_term is not None:
        # A wish above what any rule could allow is planned at the ceiling, not beyond.
        wish = min(goals.max_units_per_term, ceiling)
        if intake.intent == "plan_next_term":
            # "At most 27 units next semester" limits that term, not the rest of the degree.
            term_caps[intake.profile.next_term] = wish
            cap = ceiling if goals.target_graduation is not None else standard
        else:
            cap = wish
    elif goals.target_graduation is not None:
        cap = ceiling
    else:
        cap = standard
    # A cap rules set for a kind of term (summer at most 2 credits) holds in those terms,
    # as does the student's own cap for every term.
    own = goals.max_units_per_term is not None and intake.intent != "plan_next_term"
    wished = cap if own else None
    first, horizon = intake.profile.next_term, tools.horizon_terms
    for code, kind_cap in term_kind_caps(caps, first, horizon, ceiling=cap > standard).items():
        term_caps[code] = min(x for x in (term_caps.get(code), kind_cap, wished) if x is not None)
    fixed: dict[str, str] = {}
    if intake.intent == "plan_next_term":
        # Courses asked for in a next-term request are wanted in that term; a section clash
        # between them is then reported, not quietly planned away.
        nxt = Term.parse(intake.profile.next_term)
        fixed = {
            code: nxt.code
            for code in intake.constraints.include_courses
            if code in tools.catalog.course_by_code
            and tools.catalog.course(code).offered.offered_in(nxt)
        }
    return ConstraintSet(
        max_units_per_term=cap,
        term_max_units=term_caps,
        fixed=fixed,
        max_courses_per_term=goals.max_courses_per_term,
        terms_away=list(intake.constraints.terms_away),
        target_term=goals.target_graduation,
        include=list(intake.constraints.include_courses),
        avoid=list(intake.constraints.avoid_courses),
    )


def to_plan_constraints(cs: ConstraintSet, intake: IntakeResult, tools: Toolbox) -> PlanConstraints:
    """What the planner is given for ``cs``: the constraint set itself plus the next term's
    section facts, the student's interests and the run's settings."""
    interests: dict[str, float] = {}
    if intake.constraints.interests:
        ranked = tools.retriever.rank_courses(
            intake.constraints.interests, [c.code for c in tools.catalog.courses]
        )
        interests = {c: round(s, 3) for c, s in ranked.items() if s > 0}
    first = intake.profile.next_term
    pinned = {c for c, t in cs.fixed.items() if t == first}
    wanted = pinned | set(cs.include)
    prefs = intake.constraints.time_preferences
    # The next term's sections are known: keep pairs that can never both fit out of it,
    # and courses whose every section breaks the student's free-time wishes.
    pairs = [p for p in tools.clashing_pairs(first) if not set(p) <= pinned]
    not_in = {
        c: [first]
        for c in never_free(
            tools.catalog, first, prefs.free_days, prefs.not_before, prefs.not_after
        )
        if c not in wanted
    }
    return PlanConstraints.from_constraint_set(
        cs,
        exclusive_pairs={first: pairs} if pairs else {},
        not_in_term=not_in,
        interests=interests,
        horizon_terms=tools.horizon_terms,
        time_limit_s=tools.settings.planner_time_limit_s,
    )


def plannable_programs(intake: IntakeResult, report: AuditReport | None) -> list[str]:
    """Target programs minus what-if programs the student may not add (critique flags those)."""
    if report is None:
        return list(intake.target_programs)
    blocked = {p.code for p in report.programs if not p.eligible}
    return [p for p in intake.target_programs if p not in blocked]

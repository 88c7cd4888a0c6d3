"""From an intake result and a constraint set to the planner's input, shared by the two
stages that plan: requirements (round 1, the proposal) and scheduling (later rounds, and
re-plans around section clashes).

- ``initial_constraints``: the round-1 constraint set, the student's own wishes and no
  policy yet. The caps come from the load rules by class standing
  (``agents.policy.catalog_load_caps``) and hold per term, by the standing the student will
  have at its start (a first-year's cap lifts once the plan has made them a sophomore).
  With a graduation target and no cap of their own, a term may carry the highest load any
  rule allows a student of that standing (the overload ceiling), so the policy critique -
  not the planner - decides whether this student may carry it; but the standard loads go
  with it, and the planner stays within them whenever that meets the target, overloading
  only as much as the target needs. So do they with the student's own cap above the
  standard load and a target. Otherwise the cap is the standard load. Caps rules set
  for a kind of term (summer) go on the terms of that kind. Optional terms (summer, interim)
  are planned only as the request allows: the terms and kinds of the intake's goals.
  Courses wanted in a term (named in a next-term request, pinned, registered for) lift that
  term's cap to their load when they exceed it: the critique, not an "infeasible", says
  whether the student may carry it (an overload they are or are not eligible for). So does
  the load the student says for the next term ("six courses (24 units) next quarter"): that
  many courses, and at least - aiming at no more than - that many units, above the
  catalog's limits if need be; the critique asks the approval a rule names, or says which
  rule stops the wish.
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
from agents.catalog import STANDINGS, ClassStanding, Term, credit_sum, offered_in
from agents.catalog.credits import typical_credits
from agents.planner import PlanConstraints, StandardLoads, never_free
from agents.policy import (
    catalog_load_caps,
    kind_course_caps,
    kind_terms,
    plain_course_cap,
    term_kind_caps,
)
from agents.policy.conditions import named_kinds
from agents.policy.study_terms import stay_floors, terms_to_stay
from agents.toolbox import Toolbox


def initial_constraints(intake: IntakeResult, tools: Toolbox) -> ConstraintSet:
    """The round-1 constraint set: the student's own wishes, nothing from policy yet."""
    now = intake.profile.class_standing
    caps = catalog_load_caps(tools.catalog, now)
    # A standing only rises: the terms ahead have this one or a later one at their start.
    ahead = {s: catalog_load_caps(tools.catalog, s) for s in STANDINGS[STANDINGS.index(now) :]}
    standard = max(c.standard for c in ahead.values())
    ceiling = max(c.ceiling for c in ahead.values())
    standard_by = {s: c.standard for s, c in ahead.items() if c.standard < standard}
    ceiling_by = {s: c.ceiling for s, c in ahead.items() if c.ceiling < ceiling}
    goals = intake.goals
    target = goals.target_graduation is not None
    term_caps: dict[str, float] = {}
    # The rules' caps by standing: the ceilings with a target, else the standard loads.
    cap, by_standing = (ceiling, ceiling_by) if target else (standard, standard_by)
    own = False
    if goals.max_units_per_term is not None:
        # A wish above what any rule could allow is planned at the ceiling, not beyond
        # (a maximum that names its approver allows more when asked: ``LoadCaps.asked``).
        asked = max([ceiling, *(c.asked for c in ahead.values() if c.asked is not None)])
        wish = min(goals.max_units_per_term, asked)
        if intake.intent == "plan_next_term":
            # "At most 27 units next semester" limits that term, not the rest of the degree.
            term_caps[intake.profile.next_term] = wish
        else:
            # The student's own cap replaces the rules' caps in every term.
            cap, by_standing, own = wish, {}, True
    # A cap rules set for a kind of term (summer at most 2 credits) holds in those terms,
    # as does the student's own cap for every term.
    wished = cap if own else None
    # From the term after the current one: a short term before the next main one (an
    # interim) is planned too, under its own cap.
    first = Term.parse(intake.profile.current_term).shift(1).code
    horizon = tools.horizon_terms
    # Overloads may be for some kinds of term only (a fifth course in fall or spring): with
    # a target, those terms are planned at their ceilings too.
    over = cap > standard or (target and any(c > s for s, c in caps.by_kind.values()))
    for code, kind_cap in term_kind_caps(caps, first, horizon, ceiling=over).items():
        term_caps[code] = min(x for x in (term_caps.get(code), kind_cap, wished) if x is not None)
    loads = None
    if target and over:
        # The student's own cap too: "up to 5 courses a term, done by 2028" still plans
        # within the standard loads when they reach the target (no approval to chase).
        kind_standard = term_kind_caps(caps, first, horizon, ceiling=False)
        loads = StandardLoads(
            max_units_per_term=standard,
            term_max_units={t: v for t, v in kind_standard.items() if v < term_caps[t]},
            standing_max_units=standard_by,
        )
    fixed: dict[str, str] = {}
    if intake.intent == "plan_next_term":
        # Courses asked for in a next-term request are wanted in that term; a section clash
        # between them is then reported, not quietly planned away.
        nxt = Term.parse(intake.profile.next_term)
        fixed = {
            code: nxt.code
            for code in intake.constraints.include_courses
            if code in tools.catalog.course_by_code
            and (
                offered_in(tools.catalog, tools.catalog.course(code), nxt)
                or code in intake.constraints.force_courses
            )
        }
    # The student's own pins hold, and so do the courses they are registered for.
    fixed.update(intake.constraints.pin_courses)
    student = intake.student
    for r in student.registered if student is not None else []:
        if r.course in tools.catalog.course_by_code and Term.parse(r.term) >= Term.parse(first):
            fixed.setdefault(r.course, r.term)
    # A course limit rules set for a kind of term (one course in the interim) binds from
    # round 1, in those terms only.
    kind_courses = kind_course_caps(tools.catalog, STANDINGS[STANDINGS.index(now) :])
    most = {code: int(n) for code, n in kind_terms(kind_courses, first, horizon).items()}
    fewest, floors = _next_term_load(intake, tools, most, first, fixed)
    for term, n in _stay(intake, tools, first).items():
        fewest[term] = max(fewest.get(term, 0), n)
    if goals.max_units_per_term is None:
        # (With a cap of their own, courses above it contradict it: the planner says so.)
        _hold_wanted(fixed, fewest, floors, term_caps, cap, by_standing, intake, tools)
    if (aim := floors.get(intake.profile.next_term)) is not None:
        # The units wanted are the term's aim as well as its floor: no more than the
        # courses' sizes make them, above the cap or below it ('8 units next quarter').
        loads = loads or StandardLoads(max_units_per_term=cap, standing_max_units=by_standing)
        aims = {**loads.term_max_units, intake.profile.next_term: aim}
        loads = loads.model_copy(update={"term_max_units": aims})
    return ConstraintSet(
        max_units_per_term=cap,
        term_max_units=term_caps,
        standing_max_units=by_standing,
        standard=loads,
        fixed=fixed,
        max_courses_per_term=goals.max_courses_per_term,
        term_min_courses=fewest,
        term_max_courses=most,
        term_min_units=floors,
        terms_away=list(intake.constraints.terms_away),
        optional_terms=list(goals.optional_terms),
        optional_kinds=list(goals.optional_kinds),
        target_term=goals.target_graduation,
        include=list(intake.constraints.include_courses),
        avoid=list(intake.constraints.avoid_courses),
        forced=list(intake.constraints.force_courses),
    )


def _stay(intake: IntakeResult, tools: Toolbox, first: str) -> dict[str, int]:
    """A course in each regular term a terms-of-study rule still asks for
    (``agents.policy.study_terms``), so the normal plan does not graduate earlier than it
    allows - unless the student's own target is earlier: the plan then meets the target
    and the critique asks the approval the rule names, or says the rule stops it."""
    stay = terms_to_stay(tools.catalog, intake.profile)
    if stay is None:
        return {}
    student = intake.student
    away = [*intake.constraints.terms_away, *(student.terms_away if student else [])]
    wanted = stay_floors(first, stay[1], away)
    target = intake.goals.target_graduation
    if wanted and target is not None:
        last = max(Term.parse(t).index for t in wanted)
        if Term.parse(target).index < last:
            return {}
    return wanted


def _next_term_load(
    intake: IntakeResult,
    tools: Toolbox,
    most: dict[str, int],
    first: str,
    fixed: dict[str, str],
) -> tuple[dict[str, int], dict[str, float]]:
    """The load the student wants next term, as they said it: that many courses (``most``
    gets the count too, or the courses held there when more; a lower limit for the term's
    kind stands), at least that many units (``initial_constraints`` aims at no more). A
    count above the catalog's course limit (which a rule may let an approval raise) holds
    the other terms within the limit one by one: a general limit would hold the wished term
    too. Returns (fewest courses, fewest units) by term."""
    goals, nxt = intake.goals, intake.profile.next_term
    fewest: dict[str, int] = {}
    floors: dict[str, float] = {}
    n = goals.next_term_courses
    now = intake.profile.class_standing
    plain = plain_course_cap(tools.catalog, STANDINGS[STANDINGS.index(now) :])
    if n is not None:
        fewest[nxt] = n
        top = max(n, sum(1 for term in fixed.values() if term == nxt))
        most[nxt] = min(most.get(nxt, top), top)
    if n is not None and plain is not None and n > plain:
        rules = [r for r in tools.catalog.policies if r.kind == "max_courses_per_term"]
        named = named_kinds(rules)
        every = {k.code: plain for k in tools.catalog.calendar.terms if k.code not in named}
        for code, limit in kind_terms(every, first, tools.horizon_terms).items():
            most.setdefault(code, int(limit))
    if goals.next_term_units is not None:
        floors[nxt] = goals.next_term_units
    return fewest, floors


def _hold_wanted(
    fixed: dict[str, str],
    fewest: dict[str, int],
    floors: dict[str, float],
    term_caps: dict[str, float],
    cap: float,
    by_standing: dict[ClassStanding, float],
    intake: IntakeResult,
    tools: Toolbox,
) -> None:
    """What the student wants in a term is planned as asked, above the term's cap if need
    be (into ``term_caps``): the critique then says which rule that load breaks and whether
    this student may have it approved (an overload they are or are not eligible for),
    instead of the request ending "infeasible" with no rule named.

    - courses wanted in a term (``fixed``: asked for in a next-term request, pinned,
      registered for): the cap lifts to their load;
    - so many courses wanted next term (``fewest``, 'five courses next semester'): the cap
      lifts to the highest load any rule allows a student of the standing they will have
      then (the overload ceiling), or to what that many of the lightest courses offered then
      carry, or that many of the usual size, when more;
    - so many units wanted next term (``floors``, 'six courses (24 units) next quarter')
      above its cap: the cap lifts to them, or to the overload ceiling when higher.

    The standing at the start of the next term is known; a later term's is not, and the
    general cap stands for it."""
    p, catalog = intake.profile, tools.catalog
    then = catalog.standing_for_units(credit_sum((p.units_earned, p.units_in_progress)))
    loads: dict[str, list[float]] = {}
    for code, term in fixed.items():
        if code in catalog.course_by_code:
            loads.setdefault(term, []).append(catalog.course(code).units)
    wanted = {term: credit_sum(units) for term, units in loads.items()}
    ceiling = catalog_load_caps(catalog, then).ceiling
    if (n := fewest.get(p.next_term)) is not None:
        nxt = Term.parse(p.next_term)
        lightest = sorted(c.units for c in catalog.courses if offered_in(catalog, c, nxt))
        # Room for that many courses of the usual size too: with a cap only an approval
        # lifts (no overload rule), a lower cap fills the count with the smallest courses.
        usual = n * typical_credits(lightest)
        top = max(ceiling, credit_sum(lightest[:n]), usual)
        wanted[nxt.code] = max(wanted.get(nxt.code, top), top)

    def held(term: str) -> float:
        standing_cap = by_standing.get(then, cap) if term == p.next_term else cap
        return term_caps.get(term, min(cap, standing_cap))

    units = floors.get(p.next_term)
    if units is not None and units > held(p.next_term):
        top = max(units, ceiling)
        wanted[p.next_term] = max(wanted.get(p.next_term, top), top)
    for term, load in wanted.items():
        if load > held(term):
            term_caps[term] = load


def to_plan_constraints(cs: ConstraintSet, intake: IntakeResult, tools: Toolbox) -> PlanConstraints:
    """What the planner is given for ``cs``: the constraint set itself plus the next term's
    section facts, the student's interests and the run's settings."""
    interests: dict[str, float] = {}
    if intake.constraints.interests:
        # Kept per interest list by the retriever: every stage that plans asks again.
        interests = dict(tools.retriever.interest_scores(intake.constraints.interests))
    first = intake.profile.next_term
    pinned = {c for c, t in cs.fixed.items() if t == first}
    wanted = pinned | set(cs.include)
    prefs = intake.constraints.time_preferences
    # The next term's sections are known: the planner keeps pairs that can never both fit
    # out of it (``PlanConstraints.clash_terms``), and courses whose every section breaks
    # the student's free-time wishes.
    not_in = {
        c: [first]
        for c in never_free(
            tools.catalog, first, prefs.free_days, prefs.not_before, prefs.not_after
        )
        if c not in wanted
    }
    return PlanConstraints.from_constraint_set(
        cs,
        clash_terms=[first],
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

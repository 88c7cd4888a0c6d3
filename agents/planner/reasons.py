"""The readable reasons behind an infeasible plan: what binds, never a stand-in for it.

The reasons come from simple analyses a person can check by hand, run before the
solver: contradictions in the request (include and avoid, fixed terms, courses fixed in a
term that its cap or course limit cannot hold, more courses wanted in a term than it can
take), required courses that no term through the end can take (``reasons_missing``: an
offering after the end, a standing restriction the student cannot meet in time, a retake a
repeat rule refuses, a prerequisite chain that does not fit - ``reasons_block`` says why a
course cannot be taken), courses that run only in one session of a term beyond what its
cap holds (``reasons_sessions``), remaining units that do not fit (``reasons_load``: at the most any
load rule allows when the load binds, overloads and approvals counted; else at the planned
caps, naming the rule whose approval would let the plan fit), course sets with too few
takeable courses. When none applies and the solver still finds no plan, ``diagnose``
relaxes one constraint at a time (course limit, floors, fixed placements, courses wanted
in a term, included courses, sharing limits, each added program, the standing
restrictions of the courses it may plan, the cap) and names the first whose relaxation
makes a plan possible; relaxations left undecided when time runs out are reported as such
(``TimeLimit``), never as a cause.
"""

from __future__ import annotations

import time

from agents.catalog import Catalog, Term, credit_sum, credits_text, unit_word
from agents.planner.cpsat import expired
from agents.planner.prep import Prep
from agents.planner.reasons_block import open_words, untakeable
from agents.planner.reasons_load import cap_note, capacity_reason, load_note
from agents.planner.reasons_missing import missing_reasons
from agents.planner.reasons_sessions import session_reasons
from agents.planner.reqtree import Leaf, sharing_limits
from agents.planner.schema import TimeLimit
from agents.planner.setup import PlanSetup
from agents.planner.terms import not_offered_words


def input_reasons(setup: PlanSetup, prep: Prep) -> list[str]:
    """Contradictions in what was asked: include/avoid, fixed terms, avoided requirements."""
    out: list[str] = []
    c = setup.c
    for code in sorted(set(c.include) & set(c.avoid)):
        out.append(f"{code} is both on the include list and on the avoid list")
    term_codes = {t.code for t in prep.terms}
    for code, term in sorted(setup.fixed.items()):
        course = prep.course(code)
        if term not in term_codes:
            out.append(
                f"{code} is fixed in {term}, outside the planned terms "
                f"{prep.terms[0].code}..{prep.terms[-1].code}"
            )
        elif term in setup.away:
            out.append(f"{code} is fixed in {term}, a term the student is away")
        elif code not in prep.forced and (
            why := not_offered_words(prep.catalog, course, Term.parse(term))
        ):
            out.append(f"{code} is fixed in {term} but {why}")
        elif not prep.plannable(code):
            out.append(f"{code} is fixed in {term} but {not_plannable(prep, code)}")
    for leaf in prep.leaves:
        if leaf.mandatory and leaf.kind == "course" and leaf.matching:
            code = leaf.matching[0]
            if code in prep.avoid and not prep.hist_ok(code, leaf.min_grade):
                out.append(f"{code} is required by {leaf.label} but {untakeable(prep, code)}")
    return out + fixed_load_reasons(setup, prep)


def fixed_load_reasons(setup: PlanSetup, prep: Prep) -> list[str]:
    """Courses fixed in one term (asked for, pinned, registered) that its cap or the
    course limit cannot hold: proved without the solver, against the highest cap any
    standing gives the term."""
    at = {t.code: i for i, t in enumerate(prep.terms) if prep.active[i]}
    by_term: dict[str, list[str]] = {}
    for code, term in setup.fixed.items():
        if term in at and (code in prep.forced or prep.plannable(code)):
            by_term.setdefault(term, []).append(code)
    out: list[str] = []
    for term, codes in sorted(by_term.items(), key=lambda kv: at[kv[0]]):
        codes.sort()
        units = credit_sum(prep.course(c).units for c in codes)
        cap = prep.caps[at[term]]
        if units > cap + 1e-9:
            out.append(
                f"the courses fixed in {term} ({', '.join(codes)}) carry {credits_text(units)}, "
                f"above that term's cap of {credits_text(cap)}{load_note(prep, at[term], units)}"
            )
        limit = setup.c.max_courses_per_term
        if limit is not None and len(codes) > limit:
            out.append(
                f"{len(codes)} courses are fixed in {term} ({', '.join(codes)}), above the "
                f"limit of {limit} courses per term"
            )
    return out + _course_floor_reasons(setup, prep, at)


def _course_floor_reasons(setup: PlanSetup, prep: Prep, at: dict[str, int]) -> list[str]:
    """So many courses wanted in a term (``term_min_courses``) that the course limit, the
    courses offered then or the cap cannot hold - even the fewest-unit courses offered."""
    out: list[str] = []
    limit = setup.c.max_courses_per_term
    for term, n in sorted(setup.c.term_min_courses.items(), key=lambda kv: at.get(kv[0], -1)):
        if term not in at or n <= 0:
            continue
        if limit is not None and n > limit:
            out.append(
                f"{n} courses are wanted in {term}, above the limit of {limit} courses per term"
            )
            continue
        i = at[term]
        units = sorted(
            c.units
            for c in prep.catalog.courses
            if i in prep.offered_positions(c.code) and prep.plannable(c.code)
        )
        if len(units) < n:
            out.append(f"{n} courses are wanted in {term}, but only {len(units)} can be taken then")
        elif (least := credit_sum(units[:n])) > prep.caps[i] + 1e-9:
            out.append(
                f"{n} courses wanted in {term} carry at least {credits_text(least)}, above "
                f"that term's cap of {credits_text(prep.caps[i])}{load_note(prep, i, least)}"
            )
    return out


def not_plannable(prep: Prep, code: str) -> str:
    """Why a course fixed in a term cannot be planned (a passed course asked for is a
    retake, which is plannable: the repeat rules of the critique decide on it; one taken
    off the plan is refused by the repeat rule that rules it out, when one does)."""
    if code in prep.avoid:
        return untakeable(prep, code) or "is on the avoid list"
    earned = sorted(a for a in prep.antireqs(code) if a in prep.history.passed)
    if earned:
        return f"the record has its anti-requisite {', '.join(earned)}, which excludes its credit"
    return "is not plannable"


def analysis_reasons(setup: PlanSetup, prep: Prep, end: Term) -> list[str]:
    """Chains, offerings and unit capacity checked without the solver."""
    out: list[str] = []
    end_word = "the target " + end.code if setup.target == end else end.code
    active = [i for i in range(len(prep.terms)) if prep.active[i]]
    missing = sorted(c for c in prep.must if not prep.allowed.get(c))
    if missing:
        out.extend(missing_reasons(setup, prep, end, end_word, missing))
    must_units = sum(prep.course(c).units for c in prep.must)
    need = max(prep.total_needed, must_units)
    if (capacity := capacity_reason(prep, need, active, end_word)) is not None:
        out.append(capacity)
    out.extend(session_reasons(prep, end_word))  # a session's cap, over its only-courses
    for leaf in prep.leaves:
        if not leaf.mandatory or leaf.kind != "set":
            continue
        count = len(leaf.options)
        units = sum(prep.course(c).units for c in leaf.options)
        subjects = sorted({prep.course(c).subject_code for c in leaf.options})
        if count < leaf.min_courses or units + 1e-9 < leaf.min_units:
            out.append(
                f"{leaf.label} cannot be met: only {count} matching courses can be taken by "
                f"{end_word}"
            )
        elif leaf.caps and _countable(leaf) < leaf.min_courses:
            out.append(
                f"{leaf.label} cannot be met: its caps let only {_countable(leaf)} of the "
                f"matching courses that can be taken by {end_word} count"
            )
        elif len(subjects) < leaf.min_subjects:
            out.append(
                f"{leaf.label} needs courses from {leaf.min_subjects} subjects, but the "
                f"matching courses that can be taken by {end_word} come from only "
                f"{len(subjects)} ({', '.join(subjects) or 'none'})"
            )
    return out


def _countable(leaf: Leaf) -> int:
    """At most how many of the leaf's options its caps let count (each charged to its
    first cap)."""
    charged = [0] * len(leaf.caps)
    free = 0
    for c in leaf.options:
        first = next((i for i, cap in enumerate(leaf.caps) if c in cap.courses), None)
        if first is None:
            free += 1
        else:
            charged[first] += 1
    return free + sum(
        n if cap.max_courses is None else min(n, cap.max_courses)
        for n, cap in zip(charged, leaf.caps, strict=True)
    )


def diagnose(
    setup: PlanSetup, end: Term, deadline: float, limits: list[TimeLimit] | None = None
) -> list[str]:
    """Relax one constraint at a time; the first relaxation that helps names the culprit.
    Relaxations left undecided when time runs out are added to ``limits``."""
    c = setup.c
    codes = [p.code for p in setup.programs]
    probes: list[tuple[str, dict[str, object], list[str], bool]] = []
    catalogs: dict[int, Catalog] = {}  # probe -> the catalog it relaxes
    if c.max_courses_per_term is not None:
        probes.append(
            (
                f"the limit of {c.max_courses_per_term} courses per term is too tight",
                {"max_courses_per_term": None},
                codes,
                False,
            )
        )
    if c.min_units_per_term or c.term_min_units:
        probes.append(
            (
                "the minimum load per term cannot be met with courses whose "
                "prerequisites and offerings fit",
                {"min_units_per_term": 0.0, "term_min_units": {}},
                codes,
                False,
            )
        )
    if c.fixed:
        probes.append(("the fixed course placements cannot be kept", {"fixed": {}}, codes, False))
    for term, n in sorted(c.term_min_courses.items()):
        probes.append(
            (
                f"the {n} courses wanted in {term} cannot all be taken then",
                {"term_min_courses": {}},
                codes,
                False,
            )
        )
    if c.include:
        probes.append(("the included courses do not fit", {"include": []}, codes, False))
    for p in setup.programs:
        for q in setup.programs:
            if p.code < q.code and any(
                {a, b} == {p.code, q.code} for a, b, _ in sharing_limits(setup.programs)
            ):
                probes.append(
                    (
                        f"{p.code} and {q.code} cannot both be completed within the "
                        "limit on courses shared between them",
                        {},
                        codes,
                        True,
                    )
                )
    majors = [p for p in setup.programs if p.kind == "major"]
    for p in setup.programs:
        if p.kind == "institution":
            continue  # every student's: planning without it is no answer
        if len(setup.programs) > 1 and (p.kind != "major" or len(majors) > 1):
            rest = [x for x in codes if x != p.code]
            probes.append(
                (
                    f"{p.code} cannot be completed together with {', '.join(rest)} by {end.code}",
                    {},
                    rest,
                    False,
                )
            )
    if (free := _unrestricted(setup, end)) is not None:
        catalogs[len(probes)] = free[1]
        probes.append((free[0], {}, codes, False))
    probes.append(
        (
            f"the {unit_word()} cap of {c.max_units_per_term:g} per term is too low for the "
            f"remaining courses by {end.code}",
            {
                "max_units_per_term": c.max_units_per_term * 1.5,
                "term_max_units": {},
                "standing_max_units": {},
            },
            codes,
            False,
        )
    )
    undecided: list[float] = []
    for i, (text, change, programs, no_sharing) in enumerate(probes):
        if expired(deadline, "diagnosis"):
            undecided.extend([0.0] * (len(probes) - i))
            break
        relaxed = c.model_copy(update=change)
        s2 = PlanSetup(catalogs.get(i, setup.catalog), setup.student, programs, relaxed)
        prep = s2.prep(end)
        if no_sharing:
            prep.sharing = []
        if input_reasons(s2, prep) or analysis_reasons(s2, prep, end):
            continue
        sol = s2.solve(prep, deadline - time.perf_counter(), True)
        if sol.status in ("optimal", "feasible"):
            if "max_units_per_term" in change:  # the cap: what the load rules say of it
                text += cap_note(setup.prep(end))
            return [text]
        if sol.status == "unknown":
            # The deterministic budget of the step that ran out (never the wall clock's).
            undecided.append(sol.limit[1] if sol.limit else 0.0)
    if undecided and limits is not None:
        n = len(undecided)
        limits.append(
            TimeLimit(
                stage="diagnosis",
                seconds=round(max(undecided) or setup.c.time_limit_s, 3),
                message=f"{n} of the {len(probes)} relaxations tried to find which constraint "
                f"rules every plan out {'was' if n == 1 else 'were'} left undecided when time "
                "ran out; the request is still proved infeasible, but its cause is not named",
            )
        )
    return []


def _unrestricted(setup: PlanSetup, end: Term) -> tuple[str, Catalog] | None:
    """The probe of the standing restrictions: the catalog with the restricted courses the
    requirements may use or other courses name as prerequisites (free electives aside) open
    to every standing, and what it names when that helps."""
    prep = setup.prep(end)
    needed = prep.must | prep.named_in_pool() | {c for x in prep.leaves for c in x.matching}
    codes = [
        c
        for c in prep.pool
        if prep.course(c).restricted_to and c not in prep.forced and c in needed
    ]
    if not codes:
        return None
    courses = [
        c.model_copy(update={"restricted_to": []}) if c.code in codes else c
        for c in setup.catalog.courses
    ]
    named = [f"{c} ({open_words(prep.course(c))})" for c in codes[:3]]
    more = f" and {len(codes) - 3} more" if len(codes) > 3 else ""
    text = (
        f"{codes[0]} is open only to {open_words(prep.course(codes[0]))}, a standing no plan "
        f"reaches before a term it is offered in through {end.code}"
        if len(codes) == 1
        else f"the standing restrictions of {', '.join(named)}{more} cannot all be met: no "
        f"plan reaches those standings before their offerings through {end.code}"
    )
    return text, setup.catalog.model_copy(update={"courses": courses})

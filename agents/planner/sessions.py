"""Sessions within a term in the planner (``agents.catalog.sessions``).

The time-indexed model places courses in terms; a term whose kind has sessions with caps
gets, for each course that may go there, one literal per session the course runs in
(``z[c,i,s]``, exactly one true when ``x[c,i]`` is) and a cap per session on the units
of its literals. The term's own caps (``agents.planner.model``) stay the caps across its
sessions. A term without session caps needs no literals: any session a course runs in
will do, and ``assign_sessions`` picks it once the plan is solved.

Prerequisites read a term as one term (a course of session I is not complete before
session II), as the verifier reads them.
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from agents.catalog import Catalog, Term, offered_sessions, session_caps
from agents.planner.cpsat import Model, Steps, catalog_steps, make_solver
from agents.planner.prep import Prep

_ASSIGN_DTIME = 5.0  # deterministic budget of one term's assignment (a handful of courses)


def encode_sessions(
    m: cp_model.CpModel,
    p: Prep,
    x: dict[str, dict[int, cp_model.IntVar]],
    u: dict[str, int],
    steps: Steps,
) -> None:
    """Session literals and caps in ``m`` for the horizon terms whose sessions have caps
    (``x``: the placement literals, ``u``: each course's units in ``steps``)."""
    for i, term in enumerate(p.terms):
        caps = session_caps(p.catalog, term)
        here = [(c, xs[i]) for c, xs in x.items() if i in xs]
        if not caps or not here:
            continue
        load: dict[str, list[cp_model.LinearExprT]] = {s: [] for s in caps}
        for c, v in here:
            # A forced course may sit in a term it does not run in: any session then.
            runs = offered_sessions(p.course(c), term) or [s.code for s in term.kind_info.sessions]
            z = {s: m.new_bool_var(f"z[{c},{i},{s}]") for s in runs}
            m.add(sum(z.values()) == v)
            for s, lit in z.items():
                if s in load:
                    load[s].append(u[c] * lit)
        for s, cap in caps.items():
            if load[s]:
                m.add(sum(load[s]) <= steps.floor(cap))


def assign_sessions(catalog: Catalog, term: Term, courses: list[str]) -> dict[str, str]:
    """Each of ``courses`` planned in ``term`` -> the session it is taken in, within each
    session's cap (``session_caps``) where possible; empty when the term has no sessions.
    Deterministic: one worker, a fixed seed; the earliest-listed session is preferred.
    When no assignment keeps every cap (a course the student forced), each course takes
    its first session and the verifier reports the cap."""
    sessions = [s.code for s in term.kind_info.sessions]
    if not sessions:
        return {}
    runs = {c: offered_sessions(catalog.course(c), term) or sessions for c in courses}
    first = {c: r[0] for c, r in runs.items()}
    caps = session_caps(catalog, term)
    if not caps or _fits(catalog, first, caps):
        return first
    steps = catalog_steps(catalog)
    m = Model()
    z = {(c, s): m.new_bool_var(f"z[{c},{s}]") for c, r in runs.items() for s in r}
    for c, r in runs.items():
        m.add_exactly_one(z[c, s] for s in r)
    for s, cap in caps.items():
        m.add(
            sum(steps.count(catalog.course(c).units) * z[c, t] for (c, t) in z if t == s)
            <= steps.floor(cap)
        )
    m.minimize(sum(sessions.index(s) * v for (_, s), v in z.items()))
    solver = make_solver(10.0, _ASSIGN_DTIME, where="session_assignment")
    if solver.solve(m) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return first
    return {c: next(s for s in r if solver.boolean_value(z[c, s])) for c, r in runs.items()}


def _fits(catalog: Catalog, chosen: dict[str, str], caps: dict[str, float]) -> bool:
    load: dict[str, float] = {}
    for c, s in chosen.items():
        load[s] = load.get(s, 0.0) + catalog.course(c).units
    return all(load[s] <= caps[s] + 1e-9 for s in load if s in caps)

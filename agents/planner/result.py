"""The planner's answer built from a solved plan: terms, units, what each course counts
toward (surplus shown as free electives) and the notes a person must act on."""

from __future__ import annotations

from typing import cast

from agents.catalog import credit_sub, credit_sum
from agents.planner.fit import FREE_ELECTIVE
from agents.planner.prep import Prep
from agents.planner.reasons import not_plannable
from agents.planner.reqtree import Leaf, ReqTree
from agents.planner.risky import consent_needed
from agents.planner.schema import PlannedTerm, PlanResult
from agents.planner.sessions import assign_sessions
from agents.planner.setup import PlanSetup
from agents.planner.solution import Solution


def build_result(setup: PlanSetup, prep: Prep, sol: Solution) -> PlanResult:
    """The answer for a solved plan (``solve_ms`` is filled in by the caller)."""
    by_pos: dict[int, list[str]] = {}
    for code, pos in sol.placement.items():
        by_pos.setdefault(pos, []).append(code)
    terms: list[PlannedTerm] = []
    for i in range(sol.graduation + 1):
        courses = sorted(by_pos.get(i, []))
        units = credit_sum(prep.course(c).units for c in courses)
        sessions = assign_sessions(prep.catalog, prep.terms[i], courses)
        terms.append(
            PlannedTerm(term=prep.terms[i].code, courses=courses, units=units, sessions=sessions)
        )
    planned = credit_sum(t.units for t in terms)
    counts = trim_counts(prep, sol)
    requirement_of = {c: counts.get(c) or [FREE_ELECTIVE] for c in sorted(sol.placement)}
    req_units = credit_sum(prep.course(c).units for c in sol.placement if counts.get(c))
    extra = max(0.0, credit_sub(planned, max(prep.total_needed, req_units)))
    notes = [
        f"{c} needs {consent_of(prep, c)} consent before registration"
        for c in consent_needed(prep, sol.placement)
    ]
    for code in setup.c.include:
        if code not in sol.placement:
            why = not_plannable(prep, code)
            notes.append(f"{code} was asked for but {why}, so it is not planned")
    grad = terms[-1].term if terms else setup.current.code
    return PlanResult(
        status="optimal" if sol.status == "optimal" else "feasible",
        terms=terms,
        graduation_term=grad,
        units_planned=planned,
        extra_units=extra,
        reasons=[],
        earliest_feasible_term=None,
        requirement_of=requirement_of,
        notes=notes,
        solve_ms=0.0,
    )


def trim_counts(prep: Prep, sol: Solution) -> dict[str, list[str]]:
    """What each course counts toward, without surplus: a planned course is dropped from a
    requirement that stays met without it (latest terms first), and from an n-of child
    beyond the n needed, so extra courses show as free electives."""
    counts = {c: list(labels) for c, labels in sol.counts.items()}

    def members(label: str) -> list[str]:
        return [c for c, labels in counts.items() if label in labels]

    def drop(label: str, course: str) -> None:
        counts[course] = [x for x in counts[course] if x != label]

    def later_first(codes: list[str]) -> list[str]:
        planned = [c for c in codes if c in sol.placement]
        return sorted(planned, key=lambda c: (sol.placement[c], c), reverse=True)

    def satisfied(leaf: Leaf, codes: list[str]) -> bool:
        units = credit_sum(prep.course(c).units for c in codes)  # exact: no epsilon
        need = 1 if leaf.kind == "course" else leaf.min_courses
        subjects = len({prep.course(c).subject_code for c in codes}) if leaf.min_subjects else 0
        if not leaf.minimums_met(codes, lambda c: prep.course(c).units):
            return False  # a course a minimum from a sub-list needs stays counted
        return len(codes) >= need and units >= leaf.min_units and subjects >= leaf.min_subjects

    def walk(node: ReqTree) -> None:
        if node.kind == "leaf" and node.leaf is not None and node.leaf.kind == "set":
            leaf = node.leaf
            for course in later_first(members(leaf.label)):
                rest = [c for c in members(leaf.label) if c != course]
                if satisfied(leaf, rest):
                    drop(leaf.label, course)
        for child in node.children:
            walk(child)
        if node.kind == "n_of":
            done = [
                ch
                for ch in node.children
                if ch.leaf is not None and satisfied(ch.leaf, members(ch.leaf.label))
            ]
            spare = len(done) - node.n
            for ch in sorted(
                done,
                key=lambda ch: (
                    # `done` only holds children with a leaf
                    -max(
                        (sol.placement.get(c, -1) for c in members(cast(Leaf, ch.leaf).label)),
                        default=-1,
                    )
                ),
            ):
                if spare <= 0:
                    break
                assert ch.leaf is not None
                codes = members(ch.leaf.label)
                if codes and all(c in sol.placement for c in codes):
                    for c in codes:
                        drop(ch.leaf.label, c)
                    spare -= 1

    for tree in prep.trees.values():
        walk(tree)
    return {c: labels for c, labels in counts.items() if labels}


def consent_of(prep: Prep, code: str) -> str:
    """Whose consent a course's prerequisites ask for (the first named; default instructor)."""
    kinds = prep.course(code).consent_kinds
    return kinds[0] if kinds else "instructor"

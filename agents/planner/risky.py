"""Courses a plan takes only when nothing else serves: the objective part that comes right
after the earliest graduation and before the fewest units.

- a **dormant** course (``Course.status``: not run for several years, possibly
  discontinued; or one whose every kind of term has lapsed, ``agents.catalog.history``)
  outside the required courses: another option of the same course set, or another
  elective, is preferred even at more units;
- a course a student **arranges** (an internship, independent study: ``free_elective``
  false) that a requirement lets in only by number, subject or level (``Leaf.named``), not
  asked for: a regular course of the requirement is preferred even at more units;
- a course taken **on consent although a course route exists** ("X or permission of the
  instructor"): taking X first is preferred even at X's units, and consent is used only
  when X does not fit before the course by the earliest graduation. A course whose
  prerequisites only a signature can meet (independent study) is not counted here: it is
  weighed against other courses by units, then by the consent tie-break.

``route_exists`` says whether a course's prerequisites can hold without anyone's consent
(for the pool, which brings in X, and for the objective); ``risky_parts`` gives the parts,
in priority order, for ``agents.planner.cpsat.weighted``; ``before_units`` puts them
before a units expression; ``consent_needed`` lists the planned courses someone must sign
for, and ``risky_count`` counts the risky ones in a finished plan (alternatives are
compared on it right after graduation, proofs on the whole catalog too).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import cast

from ortools.sat.python import cp_model

from agents.catalog import (
    AllOf,
    AnyOf,
    ConsentCond,
    CourseCond,
    FactCond,
    PrereqNode,
)
from agents.catalog.history import all_lapsed
from agents.planner.cpsat import weighted
from agents.planner.prep import Prep

Part = tuple[cp_model.LinearExpr | int, int]


def route_exists(prep: Prep, node: PrereqNode | None) -> bool:
    """Whether ``node`` can hold without anyone's consent: every course it needs is on the
    record or plannable, every program condition is one of the student's programs (standing
    and units conditions can be reached with time)."""
    if node is None:
        return True
    if isinstance(node, CourseCond):
        return prep.hist_ok(node.course, node.min_grade) or prep.plannable(node.course)
    if isinstance(node, ConsentCond):
        return False
    if isinstance(node, AllOf):
        return all(route_exists(prep, ch) for ch in node.all)
    if isinstance(node, AnyOf):
        return any(route_exists(prep, ch) for ch in node.any)
    if isinstance(node, FactCond):
        return prep.fact(node)
    return True


def risky_parts(
    prep: Prep, taken: Mapping[str, cp_model.IntVar], consent: Mapping[str, cp_model.IntVar]
) -> list[Part]:
    """Dormant optional courses taken, then arranged stand-ins, then courses on consent that
    have a course route (``consent``: the models' per-course "someone signs" literals);
    empty parts left out."""
    dormant = [v for c, v in taken.items() if c not in prep.must and _dormant(prep, c)]
    arranged = [v for c, v in taken.items() if arranged_stand_in(prep, c)]
    routine = [v for c, v in consent.items() if route_exists(prep, prep.course(c).prerequisites)]
    return [(cp_model.LinearExpr.sum(vs), len(vs)) for vs in (dormant, arranged, routine) if vs]


def risky_count(prep: Prep, planned: Collection[str], on_consent: Collection[str]) -> int:
    """The risky part of a finished plan: its dormant optional courses and arranged
    stand-ins plus its courses on consent (``on_consent``, from ``result.consent_needed``)
    that have a course route."""
    dormant = sum(1 for c in planned if c not in prep.must and _dormant(prep, c))
    arranged = sum(1 for c in planned if arranged_stand_in(prep, c))
    routine = sum(1 for c in on_consent if route_exists(prep, prep.course(c).prerequisites))
    return dormant + arranged + routine


def arranged_stand_in(prep: Prep, code: str) -> bool:
    """Whether ``code`` is a course a student arranges rather than fills a schedule with
    (``free_elective`` false: an internship, independent study, a thesis) that no
    requirement of the student's programs names (by code or attribute) - a requirement
    lets it in only by number, subject or level ("any course numbered 300 or above") - and
    the student did not ask for (required, included, pinned or forced)."""
    if prep.course(code).free_elective or code in prep.must or code in prep.forced:
        return False
    if code in prep.fixed or code in prep.include:
        return False  # asked for by name (an interest matched by words is not asking)
    named = prep.derived.get("risky.named")
    if not isinstance(named, frozenset):
        named = prep.derived["risky.named"] = frozenset(
            c for leaf in prep.leaves for c in leaf.named
        )
    return code not in named


def consent_needed(prep: Prep, placement: dict[str, int]) -> list[str]:
    """The planned courses (course -> term position) that someone must consent to: their
    prerequisites name a consent and do not hold without it."""
    return [
        c
        for c in sorted(placement)
        if prep.course(c).consent_kinds
        and not _holds(prep, prep.course(c).prerequisites, placement, c)
    ]


def _holds(prep: Prep, node: PrereqNode | None, placement: dict[str, int], code: str) -> bool:
    """Whether ``code``'s prerequisites hold without anyone's consent: the record or a course
    planned in an earlier term meets each course condition (the model already holds
    standing, units and program conditions)."""
    if node is None:
        return True
    if isinstance(node, CourseCond):
        if prep.hist_ok(node.course, node.min_grade):
            return True
        at = placement.get(node.course, placement[code] + 1)
        return at < placement[code] or (node.concurrent and at == placement[code])
    if isinstance(node, ConsentCond):
        return False
    if isinstance(node, AllOf):
        return all(_holds(prep, ch, placement, code) for ch in node.all)
    if isinstance(node, AnyOf):
        return any(_holds(prep, ch, placement, code) for ch in node.any)
    return True


def before_units(
    prep: Prep,
    taken: Mapping[str, cp_model.IntVar],
    consent: Mapping[str, cp_model.IntVar],
    units: cp_model.LinearExprT,
    most: int,
) -> cp_model.LinearExpr | int:
    """One objective: the risky parts, then ``units`` (at most ``most``)."""
    return weighted([*risky_parts(prep, taken, consent), (cast(cp_model.LinearExpr, units), most)])


def _dormant(prep: Prep, code: str) -> bool:
    """Possibly discontinued: dormant, or every kind of term it runs in has lapsed
    (``agents.catalog.history``: its pattern promised runs its records do not show)."""
    course = prep.course(code)
    return course.status == "dormant" or all_lapsed(prep.catalog, course)

"""No-good cuts: what keeps an alternative plan from repeating an earlier one
(``agents.planner.kbest``). The earlier plans are on the ``Prep``:

- ``other_sets``: at least one course of each earlier plan's course set is not taken
  (posted in every model that chooses courses: the course-set model and the time-indexed
  one, whose fixed-set variants then only accept a set that differs);
- ``other_placements``: at least one course of each earlier plan is not in the term it
  had there (posted in every time-indexed model).

A cut naming a course or a position the model cannot use already holds: it is not posted.
Courses a cut names are no longer interchangeable with their look-alikes, so the
time-indexed model leaves them out of its symmetry breaking (``cut_courses``): ordering
them could exclude the very plan that differs only by which of two look-alikes it takes.
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from agents.planner.prep import Prep


def post_set_cuts(m: cp_model.CpModel, prep: Prep, taken: dict[str, cp_model.IntVar]) -> None:
    """At least one course of each earlier course set is not taken."""
    for earlier in prep.other_sets:
        if all(c in taken for c in earlier):
            m.add_bool_or([taken[c].Not() for c in sorted(earlier)])


def post_placement_cuts(
    m: cp_model.CpModel, prep: Prep, x: dict[str, dict[int, cp_model.IntVar]]
) -> None:
    """At least one course of each earlier plan sits elsewhere (or is not taken)."""
    position = {code: i for i, code in enumerate(prep.term_codes)}
    for earlier in prep.other_placements:
        lits = []
        for course, term in sorted(earlier.items()):
            i = position.get(term)
            if i is None or i not in x.get(course, {}):
                break  # that course cannot sit there again: the cut holds already
            lits.append(x[course][i].Not())
        else:
            m.add_bool_or(lits)


def cut_courses(prep: Prep) -> set[str]:
    """Every course an earlier plan's cut names."""
    named: set[str] = set()
    for s in prep.other_sets:
        named |= s
    for p in prep.other_placements:
        named |= set(p)
    return named

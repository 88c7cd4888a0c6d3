"""Partial credit: once the allocation search has fixed what is met, each open leaf takes
what is left, greedily (``Allocator.rank``). That never meets anything new - the search
would have met it - so it only shows progress: the courses that count so far. A course
another leaf of the program counts is left to it, unless an overlap lets both count it."""

from __future__ import annotations

from agents.audit.alloc import Allocator
from agents.audit.pool import Option
from agents.audit.program import ProgramAlloc
from agents.catalog import CourseRequirement, CourseSetRequirement


def fill_partial(al: Allocator) -> None:
    """Leaves that cannot be met get what is left, for partial credit."""
    for a in al.allocs.values():
        open_ = _open_leaves(al, a)
        for idx in a.order:
            if idx in open_:
                _fill(al, a, idx)


def _open_leaves(al: Allocator, a: ProgramAlloc) -> set[int]:
    """Unmet leaves whose ancestors are all unmet (under a met node they are not needed)."""
    out: set[int] = set()

    def walk(idx: int) -> None:
        if al.node_met(a, idx):
            return
        if not a.nodes[idx].children:
            out.add(idx)
        for c in a.nodes[idx].children:
            walk(c)

    walk(0)
    return out


def _fill(al: Allocator, a: ProgramAlloc, idx: int) -> None:
    req = a.nodes[idx].req
    assert isinstance(req, CourseRequirement | CourseSetRequirement)
    choices = [o for o in al.candidates(a, idx, req) if _open_to(al, a, idx, o.key)]
    if isinstance(req, CourseSetRequirement) and req.distributed:
        _fill_distributed(al, a, idx, req, choices)
        return
    for opt in sorted(choices, key=lambda o: al.rank(a, o)):
        if al.counts_ok(req, a.taken.get(idx, [])):
            break
        if not _open_to(al, a, idx, opt.key):  # an overlap's limit reached meanwhile
            continue
        other = al.blocker(a, opt.key)
        if other is not None:
            a.blocked.setdefault(idx, {})[opt.key] = other
            continue
        al.take(a, idx, opt)


def _fill_distributed(
    al: Allocator, a: ProgramAlloc, idx: int, req: CourseSetRequirement, choices: list[Option]
) -> None:
    """A distributed set takes no course beyond a cap, and once it has the courses it
    needs, only courses of a subject it does not count yet or of a minimum it misses."""
    forms = al.forms
    for opt in sorted(choices, key=lambda o: al.rank(a, o)):
        taken = a.taken.get(idx, [])
        if forms.enough(req, taken):
            break
        if forms.broken_cap(req, [*taken, opt]) is not None:
            continue
        if al.counts_ok(req, taken) and not _helps(al, req, taken, opt):
            continue
        if not _open_to(al, a, idx, opt.key):
            continue
        other = al.blocker(a, opt.key)
        if other is not None:
            a.blocked.setdefault(idx, {})[opt.key] = other
            continue
        al.take(a, idx, opt)


def _helps(al: Allocator, req: CourseSetRequirement, taken: list[Option], opt: Option) -> bool:
    """Whether ``opt`` brings a set that has its courses closer: a subject it does not count
    yet (when short of subjects), or a course of a minimum it misses."""
    forms = al.forms
    spread = req.min_subjects is not None and len(forms.subjects(taken)) < req.min_subjects
    if spread and forms.subject(opt) not in forms.subjects(taken):
        return True
    short = {i for i, _, _ in forms.short(req, taken)}
    return bool(short.intersection(forms.minimums_of(req, opt.course)))


def _open_to(al: Allocator, a: ProgramAlloc, idx: int, key: str) -> bool:
    """Whether leaf ``idx`` may still count ``key``: no other leaf of the program counts it,
    or an overlap lets this one count it too."""
    return key not in a.used or (bool(al.overlaps) and al.may_join(a, idx, key))

"""Partial credit: once the allocation search has fixed what is met, each open leaf takes
what is left, greedily (``Allocator.rank``). That never meets anything new - the search
would have met it - so it only shows progress: the courses that count so far."""

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
    choices = [o for o in al.candidates(a, idx, req) if o.key not in a.used]
    if isinstance(req, CourseSetRequirement) and req.distributed:
        _fill_distributed(al, a, idx, req, choices)
        return
    for opt in sorted(choices, key=lambda o: al.rank(a, o)):
        if al.counts_ok(req, a.taken.get(idx, [])):
            break
        other = al.blocker(a, opt.key)
        if other is not None:
            a.blocked.setdefault(idx, {})[opt.key] = other
            continue
        al.take(a, idx, opt)


def _fill_distributed(
    al: Allocator, a: ProgramAlloc, idx: int, req: CourseSetRequirement, choices: list[Option]
) -> None:
    """A distributed set takes no course beyond a cap, and once it has the courses it
    needs, only courses of a subject it does not count yet."""
    forms = al.forms
    for opt in sorted(choices, key=lambda o: al.rank(a, o)):
        taken = a.taken.get(idx, [])
        if forms.enough(req, taken):
            break
        if forms.broken_cap(req, [*taken, opt]) is not None:
            continue
        if al.counts_ok(req, taken) and forms.subject(opt) in forms.subjects(taken):
            continue
        other = al.blocker(a, opt.key)
        if other is not None:
            a.blocked.setdefault(idx, {})[opt.key] = other
            continue
        al.take(a, idx, opt)

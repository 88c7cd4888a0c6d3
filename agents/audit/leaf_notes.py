"""What the audit says about the newer forms of a leaf (``leaves`` calls them): the minimums
of a course set from sub-lists ("2 from list B-1 (at least 2 courses)", "needs 1 more
course from list B-2 (minimum unmet), from: ..."), and courses an overlap would let a leaf
count too but for the overlap's limit.
"""

from __future__ import annotations

from agents.audit.alloc import Allocator
from agents.audit.explain import code_list, minimum_need, num, plural, rounded
from agents.audit.forms import cap_label
from agents.audit.pool import Option
from agents.audit.program import ProgramAlloc
from agents.catalog import CourseSetRequirement, credits_noun, credits_text

Missed = list[tuple[int, int, float]]  # (minimum index, courses short, units short)


def minimum_parts(
    al: Allocator,
    req: CourseSetRequirement,
    taken: list[Option],
    missed: Missed,
    options: list[str],
) -> tuple[list[str], list[str]]:
    """What counts toward each minimum, and what each missed minimum still needs (from
    ``options``, the courses that could still count)."""
    forms = al.forms
    have = []
    for i, low in enumerate(req.minimums):
        inside = [o for o in taken if i in forms.minimums_of(req, o.course)]
        counted = f"{len(inside)}"
        if low.min_units is not None:
            counted += f" ({credits_text(rounded(sum(o.units for o in inside)))})"
        have.append(f"{counted} from {cap_label(low)} ({minimum_need(low)})")
    needs = []
    for i, courses, units in missed:
        more = [f"{courses} more course" + ("" if courses == 1 else "s")] if courses else []
        if units:
            more.append(f"{num(rounded(units))} more {credits_noun(rounded(units))}")
        low = req.minimums[i]
        fits = [c for c in options if i in forms.minimums_of(req, c)]
        what = f"needs {' and '.join(more)} from {cap_label(low)} (minimum unmet)"
        needs.append(
            f"{what}, from: {code_list(fits)}"
            if fits
            else f"{what}, and no catalog course is left to count"
        )
    return have, needs


def minimum_courses(al: Allocator, req: CourseSetRequirement, missed: Missed) -> int:
    """Courses the missed minimums need at least: their sum when no course of the set
    counts toward two of them, else the largest."""
    counts = [n for _, n, _ in missed]
    if len(counts) < 2:
        return sum(counts)
    wanted = {i for i, _, _ in missed}
    twice = any(
        len(wanted.intersection(al.forms.minimums_of(req, c))) > 1
        for c in al.catalog.courses_matching(req)
    )
    return max(counts) if twice else sum(counts)


def overlap_reasons(al: Allocator, a: ProgramAlloc, idx: int) -> list[str]:
    """Courses other leaves of the program count that an overlap would let leaf ``idx``
    count too, but for the overlap's limit."""
    ov = al.overlaps.get(a.program.code)
    if ov is None:
        return []
    kept: dict[int, list[str]] = {}
    for k in a.cands[idx]:
        leaves = al.leaves_of(a, k)
        rules = [ov.rule(idx, j) for j in leaves]
        if leaves and idx not in leaves and None not in rules and not al.may_join(a, idx, k):
            kept.setdefault(min(r for r in rules if r is not None), []).append(k)
    out = []
    for r, keys in sorted(kept.items()):
        overlap = ov.rules[r][0]
        assert overlap.max_courses is not None  # an overlap without a limit has room
        both = ov.shared(al.held(a), r)
        used = sorted(al.pool[k][0].course for k, bit in al.bit.items() if bit & both)
        rule = f" (rule {overlap.rule})" if overlap.rule else ""
        courses = sorted(al.pool[k][0].course for k in keys)
        out.append(
            f"{code_list(courses)} already {'counts' if len(courses) == 1 else 'count'} "
            f"toward another requirement of {a.program.code}, and at most "
            f"{plural(overlap.max_courses, 'course')} may count toward both "
            f"{overlap.nodes[0]} and {overlap.nodes[1]}{rule}, already used by "
            f"{', '.join(used)}"
        )
    return out

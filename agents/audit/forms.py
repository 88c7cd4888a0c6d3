"""Course sets that cap what counts, ask for several subjects or have minimums from
sub-lists (``caps``, ``min_subjects``, ``minimums``; ``CourseSetRequirement.distributed``):
which of a leaf's courses may count together.

A set of courses *holds* for such a leaf when it breaks no cap (at most ``max_courses`` /
``max_units`` of the counted courses match each cap's selector), meets every minimum (at
least ``min_courses`` / ``min_units`` of them match its selector: they are counted courses,
so they count toward the set's own count too) and has the courses, units, subjects and GPA
the leaf asks. A bag of courses *can meet* the leaf when some part of it
holds: that reading only grows with the bag, so the allocation search treats these leaves
like any other (more courses never hurt), and the courses a leaf finally counts are such a
part (``witness``, then ``minimal``), best-ranked courses first.

``witness`` is a depth-first search over the bag in preference order (take a course, then
leave it), pruned by the caps, by an upper bound on the courses, units and subjects the rest
can still add (to the set and to each minimum) and, with a GPA minimum, by the best GPA the
rest can still reach; the bags are a student's courses matching one leaf, so they are small.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agents.audit.pool import Option
from agents.audit.program import required_count
from agents.catalog import Catalog, CourseCap, CourseSetRequirement, credits_text
from agents.catalog.credits import grade_average
from agents.catalog.requirements import CourseMinimum

EPS = 1e-9
MEMO_MAX = 50_000  # witness answers kept per allocation (the search asks the same bags often)

Gpa = Callable[[Sequence[Option]], "float | None"]
Grade = Callable[[Option], "tuple[bool, float]"]  # (counts in the GPA, grade points)


def cap_label(cap: CourseCap | CourseMinimum) -> str:
    """The courses a cap (or a minimum) covers, in words: its title, else its selector
    ('ENGL courses', 'courses at level 199 or below', 'courses matching 15-1xx')."""
    if cap.title:
        return cap.title
    if isinstance(cap, CourseCap) and cap.empty:
        return "all its courses"
    subjects = " or ".join(cap.subjects) + " " if cap.subjects else ""
    kinds = []
    if cap.patterns:
        kinds.append(f"{subjects}courses matching {' or '.join(cap.patterns)}")
    if cap.attributes:
        kinds.append(f"{subjects}courses with attribute {' or '.join(cap.attributes)}")
    restricted = cap.subjects or cap.min_level is not None or cap.max_level is not None
    if not kinds and restricted:
        kinds.append(f"{subjects}courses")
    what = " or ".join(kinds)
    if cap.min_level is not None and cap.max_level is not None:
        what += f" at levels {cap.min_level}-{cap.max_level}"
    elif cap.min_level is not None:
        what += f" at level {cap.min_level} or above"
    elif cap.max_level is not None:
        what += f" at level {cap.max_level} or below"
    if cap.courses:
        listed = ", ".join(cap.courses)
        what = f"{listed} and {what}" if what else listed
    return what


def cap_limit(cap: CourseCap) -> str:
    """'at most 2 courses', 'at most 6 units', 'at most 2 courses and 6 units'."""
    parts = []
    if cap.max_courses is not None:
        parts.append(f"{cap.max_courses:g} course" + ("" if cap.max_courses == 1 else "s"))
    if cap.max_units is not None:
        parts.append(credits_text(cap.max_units))
    return "at most " + " and ".join(parts)


class Forms:
    """Caps and subject distribution of the distributed course sets of one allocation."""

    def __init__(self, catalog: Catalog, gpa: Gpa, grade: Grade) -> None:
        self.catalog = catalog
        self.gpa = gpa
        self.grade = grade
        self._caps: dict[tuple[int, str], tuple[int, ...]] = {}
        self._mins: dict[tuple[int, str], tuple[int, ...]] = {}
        self._memo: dict[tuple[int, tuple[Option, ...]], tuple[Any, list[Option] | None]] = {}

    # ---- facts about one course

    def caps_of(self, req: CourseSetRequirement, course: str) -> tuple[int, ...]:
        """Indexes of the caps of ``req`` whose selector matches ``course``."""
        return self._matching(self._caps, req, req.caps, course)

    def minimums_of(self, req: CourseSetRequirement, course: str) -> tuple[int, ...]:
        """Indexes of the minimums of ``req`` whose selector matches ``course``."""
        return self._matching(self._mins, req, req.minimums, course)

    def _matching(
        self,
        memo: dict[tuple[int, str], tuple[int, ...]],
        req: CourseSetRequirement,
        selectors: Sequence[CourseCap | CourseMinimum],
        course: str,
    ) -> tuple[int, ...]:
        key = (id(req), course)
        hit = memo.get(key)
        if hit is None:
            c = self.catalog.course_by_code[course]
            hit = tuple(i for i, sel in enumerate(selectors) if sel.matches(c))
            memo[key] = hit
        return hit

    def subject(self, opt: Option) -> str:
        return self.catalog.course_by_code[opt.course].subject_code

    def look(self, req: CourseSetRequirement, opt: Option) -> tuple[object, ...]:
        """What tells two courses apart for ``req``: the caps they fall under, their
        subject (for ``min_subjects``) and the minimums they count toward."""
        subject = self.subject(opt) if req.min_subjects is not None else ""
        if req.minimums:
            return self.caps_of(req, opt.course), subject, self.minimums_of(req, opt.course)
        return self.caps_of(req, opt.course), subject

    # ---- one set of courses

    def broken_cap(self, req: CourseSetRequirement, taken: Sequence[Option]) -> int | None:
        """The first cap that ``taken`` breaks; None if it breaks none."""
        for i, cap in enumerate(req.caps):
            inside = [o for o in taken if i in self.caps_of(req, o.course)]
            if cap.max_courses is not None and len(inside) > cap.max_courses:
                return i
            if cap.max_units is not None and sum(o.units for o in inside) > cap.max_units + EPS:
                return i
        return None

    def never_counts(self, req: CourseSetRequirement, code: str) -> bool:
        """Whether a cap of ``req`` keeps catalog course ``code`` out however it is used."""
        units = self.catalog.course_by_code[code].units
        for i in self.caps_of(req, code):
            most, room = req.caps[i].max_courses, req.caps[i].max_units
            if most == 0 or (room is not None and units > room + EPS):
                return True
        return False

    def short(
        self, req: CourseSetRequirement, taken: Sequence[Option]
    ) -> list[tuple[int, int, float]]:
        """(minimum index, courses short, units short) of each minimum ``taken`` misses."""
        out = []
        for i, low in enumerate(req.minimums):
            inside = [o for o in taken if i in self.minimums_of(req, o.course)]
            courses = max(0, (low.min_courses or 0) - len(inside))
            units = sum(o.units for o in inside)
            left = max(0.0, low.min_units - units) if low.min_units is not None else 0.0
            if courses or left > EPS:
                out.append((i, courses, left if left > EPS else 0.0))
        return out

    def subjects(self, taken: Sequence[Option]) -> list[str]:
        return sorted({self.subject(o) for o in taken})

    def enough(self, req: CourseSetRequirement, taken: Sequence[Option]) -> bool:
        """Courses, units, subjects and minimums all reached (caps and GPA aside)."""
        if len(taken) < (required_count(req) or 0):
            return False
        if req.min_units is not None and sum(o.units for o in taken) < req.min_units - EPS:
            return False
        if req.minimums and self.short(req, taken):
            return False
        return req.min_subjects is None or len(self.subjects(taken)) >= req.min_subjects

    def gpa_ok(self, req: CourseSetRequirement, taken: Sequence[Option]) -> bool:
        if req.min_gpa is None:
            return True
        gpa = self.gpa(taken)
        return gpa is None or gpa >= req.min_gpa - EPS

    def holds(self, req: CourseSetRequirement, taken: Sequence[Option]) -> bool:
        """Whether ``taken``, all of it counted, meets ``req``."""
        return (
            self.broken_cap(req, taken) is None
            and self.enough(req, taken)
            and self.gpa_ok(req, taken)
        )

    # ---- the best part of a bag

    def witness(self, req: CourseSetRequirement, bag: Sequence[Option]) -> list[Option] | None:
        """A part of ``bag`` that holds for ``req`` (favouring earlier courses of ``bag``);
        None when no part does."""
        key = (id(req), tuple(bag))
        hit = self._memo.get(key)
        if hit is not None and hit[0] is req:
            return hit[1]
        found = _Search(self, req, list(bag)).run()
        if len(self._memo) >= MEMO_MAX:
            self._memo.clear()
        self._memo[key] = (req, found)
        return found

    def minimal(self, req: CourseSetRequirement, bag: Sequence[Option]) -> list[Option]:
        """The witness of ``bag`` without the courses it does not need (the latest in
        ``bag`` dropped first); ``bag`` must be able to meet ``req``."""
        part = self.witness(req, bag)
        assert part is not None, "only bags that can meet the set are completed"
        for opt in reversed(list(part)):
            rest = [o for o in part if o is not opt]
            if self.holds(req, rest):
                part = rest
        return list(part)


class _Search:
    """One ``Forms.witness`` search (see the module docstring)."""

    def __init__(self, forms: Forms, req: CourseSetRequirement, bag: list[Option]) -> None:
        self.forms, self.req, self.bag = forms, req, bag
        self.caps = [forms.caps_of(req, o.course) for o in bag]
        self.mins = [forms.minimums_of(req, o.course) for o in bag]
        self.subj = [forms.subject(o) for o in bag]
        self.need_units = req.min_units or 0.0
        self.need_subjects = req.min_subjects or 0
        self.need = required_count(req) or 0
        # States known to fail: what is left to decide and what the choice so far adds up
        # to (the rest of the search depends on nothing else).
        self.failed: set[tuple[object, ...]] = set()

    def run(self) -> list[Option] | None:
        count = [0] * len(self.req.caps)
        units = [0.0] * len(self.req.caps)
        return self._dfs(0, [], count, units)

    def _fits(self, j: int, count: list[int], units: list[float]) -> bool:
        for i in self.caps[j]:
            cap = self.req.caps[i]
            if cap.max_courses is not None and count[i] + 1 > cap.max_courses:
                return False
            if cap.max_units is not None and units[i] + self.bag[j].units > cap.max_units + EPS:
                return False
        return True

    def _hopeless(
        self, start: int, chosen: list[int], count: list[int], units: list[float]
    ) -> bool:
        """Whether even the best of ``bag[start:]`` cannot bring ``chosen`` to the courses,
        units and subjects needed: each later course is charged to its first cap, and a cap
        adds at most its room (its largest courses); nor more courses than any one cap and
        the courses outside it allow."""
        groups: dict[int, list[float]] = {}
        subjects = {self.subj[j] for j in chosen}
        fitting = [j for j in range(start, len(self.bag)) if self._fits(j, count, units)]
        for j in fitting:
            groups.setdefault(self.caps[j][0] if self.caps[j] else -1, []).append(self.bag[j].units)
            subjects.add(self.subj[j])
        if len(subjects) < self.need_subjects:
            return True
        for i, low in enumerate(self.req.minimums):  # each minimum from what can still count
            sizes = [self.bag[j].units for j in [*chosen, *fitting] if i in self.mins[j]]
            if len(sizes) < (low.min_courses or 0) or sum(sizes) < (low.min_units or 0) - EPS:
                return True
        for i in range(len(self.req.caps)):
            inside = [j for j in fitting if i in self.caps[j]]
            if len(chosen) + len(fitting) - len(inside) + self._room(i, inside, count, units) < (
                self.need
            ):
                return True
        more = 0
        more_units = 0.0
        for i, sizes in groups.items():
            sizes.sort(reverse=True)
            most = self.req.caps[i].max_courses if i >= 0 else None
            if most is not None:
                sizes = sizes[: most - count[i]]
            more += len(sizes)
            gain = sum(sizes)
            room = self.req.caps[i].max_units if i >= 0 else None
            if room is not None:
                gain = min(gain, room - units[i])
            more_units += gain
        have_units = sum(self.bag[j].units for j in chosen)
        if len(chosen) + more < self.need or have_units + more_units < self.need_units - EPS:
            return True
        return self._gpa_out_of_reach(start, chosen, count, units, self.need)

    def _room(self, i: int, inside: list[int], count: list[int], units: list[float]) -> int:
        """At most how many of ``inside`` cap ``i`` still lets count (smallest first)."""
        cap = self.req.caps[i]
        room = len(inside)
        if cap.max_courses is not None:
            room = min(room, cap.max_courses - count[i])
        if cap.max_units is not None:
            left, fit = cap.max_units - units[i], 0
            for size in sorted(self.bag[j].units for j in inside):
                if size > left + EPS:
                    break
                left, fit = left - size, fit + 1
            room = min(room, fit)
        return room

    def _gpa_out_of_reach(
        self, start: int, chosen: list[int], count: list[int], units: list[float], need: int
    ) -> bool:
        """Whether every way to add courses of ``bag[start:]`` up to the count needed leaves
        the GPA below the minimum: courses outside the GPA fill the count first, then the
        best grades, then any grade that raises the average (an upper bound: caps aside)."""
        minimum = self.req.min_gpa
        if minimum is None:
            return False
        pts = hours = 0.0
        counted: list[tuple[float, float]] = []  # (grade points, units) in the average
        for j in chosen:
            in_gpa, points = self.forms.grade(self.bag[j])
            if in_gpa:
                pts, hours = pts + points * self.bag[j].units, hours + self.bag[j].units
                counted.append((points, self.bag[j].units))
        outside = 0
        graded: list[tuple[float, float]] = []
        for j in range(start, len(self.bag)):
            if self._fits(j, count, units):
                in_gpa, points = self.forms.grade(self.bag[j])
                if in_gpa:
                    graded.append((points, self.bag[j].units))
                else:
                    outside += 1
        graded.sort(reverse=True)
        must = max(0, need - len(chosen) - outside)
        for k, (points, size) in enumerate(graded):
            if k >= must and (not hours or points <= pts / hours):
                break  # no GPA yet is no GPA to fail; a lower grade only lowers it
            pts, hours = pts + points * size, hours + size
            counted.append((points, size))
        gpa = grade_average(counted)  # as the audit rounds it (``credits.grade_average``)
        return gpa is not None and gpa < minimum - EPS

    def _dfs(
        self, start: int, chosen: list[int], count: list[int], units: list[float]
    ) -> list[Option] | None:
        taken = [self.bag[j] for j in chosen]
        if self.forms.enough(self.req, taken) and self.forms.gpa_ok(self.req, taken):
            return taken
        if start >= len(self.bag):
            return None
        state = self._state(start, taken, count, units)
        if state in self.failed or self._hopeless(start, chosen, count, units):
            self.failed.add(state)
            return None
        found = self._branch(start, chosen, count, units)
        if found is None:
            self.failed.add(state)
        return found

    def _state(
        self, start: int, taken: list[Option], count: list[int], units: list[float]
    ) -> tuple[object, ...]:
        grade = None
        if self.req.min_gpa is not None:
            graded = [(o, self.forms.grade(o)) for o in taken]
            grade = (
                round(sum(p * o.units for o, (g, p) in graded if g), 6),
                round(sum(o.units for o, (g, _) in graded if g), 6),
            )
        return (
            start,
            len(taken),
            round(sum(o.units for o in taken), 6),
            tuple(count),
            tuple(round(u, 6) for u in units),
            frozenset(self.forms.subject(o) for o in taken),
            grade,
            self._minimum_state(taken),
        )

    def _minimum_state(self, taken: list[Option]) -> tuple[tuple[int, float], ...]:
        """The courses and units ``taken`` counts toward each minimum."""
        out = []
        for i in range(len(self.req.minimums)):
            inside = [o for o in taken if i in self.forms.minimums_of(self.req, o.course)]
            out.append((len(inside), round(sum(o.units for o in inside), 6)))
        return tuple(out)

    def _branch(
        self, start: int, chosen: list[int], count: list[int], units: list[float]
    ) -> list[Option] | None:
        """Take ``bag[start]`` if it fits, else (or failing that) leave it."""
        if self._fits(start, count, units):
            for i in self.caps[start]:
                count[i] += 1
                units[i] += self.bag[start].units
            found = self._dfs(start + 1, [*chosen, start], count, units)
            for i in self.caps[start]:
                count[i] -= 1
                units[i] -= self.bag[start].units
            if found is not None:
                return found
        return self._dfs(start + 1, chosen, count, units)

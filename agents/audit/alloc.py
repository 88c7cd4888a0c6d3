"""Course allocation for the degree audit: which of a student's courses count toward which
requirement leaf of each program. ``stages`` and ``search`` find the allocation, ``build``
explains it; this module holds the rules and the allocator, ``pool`` the courses (keys and
their options) and ``program`` each program's tree and allocation state.

A *key* is one countable credit: a course code, or ``code@term`` for each passing attempt of
a repeatable course. Its *options* are the ways it can count, best first: the best passing
completed attempt (transfer/AP/exam credit included), the attempt in progress, the planned
enrollment. A *leaf* is a course or course-set requirement. An allocation gives each leaf a
set of keys, and obeys:

- within a program a key counts toward at most one leaf - or two whose nodes the program's
  ``overlaps`` pair, within the overlap's limit (``overlap``) - through its first option
  allowed in the stage whose grade meets the leaf's minimum (a pass/fail grade never meets a
  minimum; in-progress and planned courses are assumed to meet it);
- a key counted in two programs uses one shared slot of the pair's tightest sharing limit;
- a course leaf is met by one key; a course set by its course count and units, and by the GPA
  over the courses it counts; an all_of by all children, an n_of by ``n`` children;
- a course set with caps, a subject minimum or minimums from sub-lists (``forms``) counts no
  course beyond a cap, needs its courses from ``min_subjects`` subjects and at least each
  minimum's courses among those it counts; for the search, a bag of courses meets it
  when some part of the bag does (so more courses never hurt), and it counts that part.

What is met is a lexicographic maximum, found exactly. Target nodes are tried in a fixed order
and each is kept when some allocation meets every target kept so far plus the new one:

1. every program's root at once, so a complete allocation is found whenever one exists;
2. the nodes met at the end of the previous stage (below): all at once when step 1 failed
   (they fit together: they did with fewer courses), otherwise one by one in program and tree
   order;
3. program by program (majors first, then the institution's requirements, then minors and
   concentrations, each in the order given): the root, then every node in tree pre-order,
   skipping the subtree of a kept node.

So no allocation meets every met node plus any other node left open: an unmet requirement
cannot be met without giving up a met one that comes earlier in the order (a major's before a
minor's). Children of a met n_of beyond the ``n`` it needs get no courses ("not needed").

Stages: completed courses only, then with in-progress courses, then with planned ones (a stage
with nothing new is skipped). Step 2 carries each stage's met nodes into the next, so a node
met by completed courses stays met when in-progress and planned courses are added - unless
step 1 completes every program, when an n_of child the complete allocation does not need may
be swapped for another. ``met_by_completed`` is "met after the first stage and at the end".

Partial credit (``partial``): once the met set is fixed, each open leaf takes what is left,
greedily (``rank``); that never meets anything new, or the maximum would have kept it.

Limits: sharing limits only apply between the programs audited together; anti-requisites are
not checked here (the verifier does); a search that runs out of steps counts its target as
not met, and the audit says so in a warning.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

from agents.audit.forms import Forms
from agents.audit.overlap import ProgramOverlaps
from agents.audit.pool import Option
from agents.audit.program import Leaf, ProgramAlloc, flatten, required_count
from agents.catalog import (
    AllOfRequirement,
    Catalog,
    CourseRequirement,
    CourseSetRequirement,
    NOfRequirement,
    Program,
    SharingLimit,
    Term,
)
from agents.catalog.credits import grade_average

Target = tuple[str, int]  # (program code, node index in the flattened tree)

EPS = 1e-9
_RANK: dict[str, int] = {"completed": 0, "in_progress": 1, "planned": 2}
STAGES: tuple[frozenset[str], ...] = (
    frozenset({"completed"}),
    frozenset({"completed", "in_progress"}),
    frozenset({"completed", "in_progress", "planned"}),
)


def pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def sharing_limit(a: Program, b: Program) -> SharingLimit | None:
    """The tightest sharing limit between two programs, from either side; None if unlimited
    (the institution's requirements share freely unless a limit names them)."""
    found = [lim for lim in a.sharing if lim.applies(a, b)]
    found += [lim for lim in b.sharing if lim.applies(b, a)]
    return min(found, key=lambda lim: lim.max_courses) if found else None


class Allocator:
    """The allocation of the pool to the programs and its rules (see the module docstring):
    ``stages.allocate`` fills it in, the report builder (``build``) reads it."""

    def __init__(self, catalog: Catalog, pool: dict[str, list[Option]], programs: list[Program]):
        self.catalog = catalog
        self.pool = pool
        self.programs = {p.code: p for p in programs}
        self.forms = Forms(catalog, self.set_gpa, lambda o: (self.in_gpa(o), self.points(o)))
        order = [p for p in programs if p.kind == "major"]
        order += [p for p in programs if p.kind == "institution"]
        order += [p for p in programs if p.kind not in ("major", "institution")]
        self.allocs = {p.code: self._prepare(p) for p in order}
        # Programs whose overlaps let a course count twice, and each key as a bit for them.
        self.overlaps = {
            p.code: ProgramOverlaps(p, self.allocs[p.code].nodes) for p in programs if p.overlaps
        }
        self.bit = {k: 1 << i for i, k in enumerate(sorted(pool))} if self.overlaps else {}
        self.limits: dict[tuple[str, str], int] = {}
        for i, p in enumerate(programs):
            for q in programs[i + 1 :]:
                lim = sharing_limit(p, q)
                if lim is not None:
                    self.limits[pair(p.code, q.code)] = lim.max_courses
        self.used_by: dict[str, list[str]] = {}  # key -> programs counting it
        self.pair_shared: dict[tuple[str, str], list[str]] = {}  # program pair -> shared keys
        self.allowed = STAGES[-1]
        self.gave_up = False
        # Filled in by ``stages.allocate``, which runs the stages.
        self.met_by_completed: dict[str, set[int]] = {}

    # ---- matching and qualification

    def matches(self, req: Leaf, code: str) -> bool:
        if isinstance(req, CourseRequirement):
            return req.course == code
        return code in self.catalog.courses_matching(req)

    def disqualified(self, opt: Option, min_grade: str | None) -> str | None:
        """Why ``opt`` cannot count toward a leaf with ``min_grade``; None if it can."""
        if opt.status != "completed" or min_grade is None:
            return None
        if opt.pass_fail or opt.grade == "P":
            return (
                f"{opt.course} was taken pass/fail ({opt.grade}), which does not count toward "
                f"a minimum grade of {min_grade}"
            )
        if not self.catalog.grade_meets(opt.grade, min_grade):
            return f"{opt.course} earned {opt.grade}, below the minimum {min_grade}"
        return None

    def qualifying(self, key: str, req: Leaf) -> Option | None:
        """The first option of ``key`` allowed in this stage that can count toward ``req``."""
        return next(
            (
                o
                for o in self.pool[key]
                if o.status in self.allowed and self.disqualified(o, req.min_grade) is None
            ),
            None,
        )

    def points(self, opt: Option) -> float:
        g = self.catalog.grade_by_symbol.get(opt.grade or "")
        return g.points if g is not None and opt.status == "completed" else 0.0

    def in_gpa(self, opt: Option) -> bool:
        g = self.catalog.grade_by_symbol.get(opt.grade or "")
        return (
            opt.status == "completed"
            and opt.source == "institution"
            and not opt.pass_fail
            and g is not None
            and g.in_gpa
        )

    # ---- leaf and node state

    def counts_ok(self, req: Leaf, taken: Sequence[Option]) -> bool:
        if isinstance(req, CourseRequirement):
            return bool(taken)
        need = required_count(req)
        if need is not None and len(taken) < need:
            return False
        return req.min_units is None or sum(o.units for o in taken) >= req.min_units - EPS

    def set_gpa(self, taken: Iterable[Option]) -> float | None:
        points = self.catalog.grade_by_symbol
        return grade_average(
            (points[o.grade or ""].points, o.units) for o in taken if self.in_gpa(o)
        )

    def satisfies(self, req: Leaf, taken: Sequence[Option]) -> bool:
        """Whether ``taken`` meets ``req``; for a distributed set, whether some part does."""
        if isinstance(req, CourseSetRequirement) and req.distributed:
            return self.forms.witness(req, taken) is not None
        if not self.counts_ok(req, taken):
            return False
        if isinstance(req, CourseSetRequirement) and req.min_gpa is not None:
            gpa = self.set_gpa(taken)
            return gpa is None or gpa >= req.min_gpa - EPS
        return True

    def leaf_met(self, a: ProgramAlloc, idx: int) -> bool:
        req = a.nodes[idx].req
        assert isinstance(req, CourseRequirement | CourseSetRequirement)
        if isinstance(req, CourseSetRequirement) and req.distributed:
            return self.forms.holds(req, a.taken.get(idx, []))
        return self.satisfies(req, a.taken.get(idx, []))

    def node_met(self, a: ProgramAlloc, idx: int) -> bool:
        node = a.nodes[idx]
        if isinstance(node.req, AllOfRequirement):
            return all(self.node_met(a, c) for c in node.children)
        if isinstance(node.req, NOfRequirement):
            return sum(self.node_met(a, c) for c in node.children) >= node.req.n
        return self.leaf_met(a, idx)

    def met_nodes(self) -> dict[str, set[int]]:
        return {
            code: {n.idx for n in a.nodes if self.node_met(a, n.idx)}
            for code, a in self.allocs.items()
        }

    # ---- sharing

    def others(self, a: ProgramAlloc, key: str) -> list[str]:
        """Other programs already counting ``key``."""
        return [p for p in self.used_by.get(key, []) if p != a.program.code]

    def shared(self, a: ProgramAlloc, other: str) -> list[str]:
        return self.pair_shared.get(pair(a.program.code, other), [])

    def blocker(self, a: ProgramAlloc, key: str) -> str | None:
        """The program whose sharing limit with ``a`` is used up, if ``key`` counts there
        (a key ``a`` counts already takes no new slot)."""
        if key in a.used:
            return None
        for other in self.others(a, key):
            lim = self.limits.get(pair(a.program.code, other))
            if lim is not None and len(self.shared(a, other)) >= lim:
                return other
        return None

    # ---- counting a course twice in one program (``overlap``)

    def leaves_of(self, a: ProgramAlloc, key: str) -> list[int]:
        """The leaves of ``a`` counting ``key``."""
        return [a.used[key], *a.also.get(key, [])] if key in a.used else []

    def held(self, a: ProgramAlloc) -> dict[int, int]:
        """Leaf -> the keys it counts, as a bit mask."""
        return {i: sum({self.bit[o.key] for o in opts}) for i, opts in a.taken.items()}

    def may_join(self, a: ProgramAlloc, idx: int, key: str) -> bool:
        """Whether leaf ``idx`` may also count ``key``, which other leaves of ``a`` count:
        an overlap pairs it with each of them and its limit has room."""
        ov = self.overlaps.get(a.program.code)
        if ov is None or idx in self.leaves_of(a, key):
            return False
        return ov.fits(self.held(a), idx, self.bit[key])

    # ---- building the allocation

    def _prepare(self, program: Program) -> ProgramAlloc:
        nodes = flatten(program.requirement)
        leaves = [n for n in nodes if isinstance(n.req, CourseRequirement | CourseSetRequirement)]
        cands: dict[int, list[str]] = {}
        for n in leaves:
            assert isinstance(n.req, CourseRequirement | CourseSetRequirement)
            cands[n.idx] = [
                k for k in sorted(self.pool) if self.matches(n.req, self.pool[k][0].course)
            ]
        demand = {k: sum(k in ks for ks in cands.values()) for k in self.pool}
        order = [
            n.idx
            for n in sorted(
                leaves,
                key=lambda n: (
                    (1, len(cands[n.idx]), n.idx)
                    if isinstance(n.req, CourseSetRequirement)
                    else (0, 0, n.idx)
                ),
            )
        ]
        return ProgramAlloc(program, nodes, cands, demand, order)

    def rank(self, a: ProgramAlloc, opt: Option) -> tuple[Any, ...]:
        """Preference among courses that could fill a leaf: not counted by another program
        (so sharing limits are spent only when needed), then ``static_rank``."""
        return (bool(self.others(a, opt.key)), *self.static_rank(a, opt))

    def static_rank(self, a: ProgramAlloc, opt: Option) -> tuple[Any, ...]:
        """Wanted by the fewest other leaves, completed before in progress before planned,
        higher grade, earlier term, key."""
        return (
            a.demand[opt.key],
            _RANK[opt.status],
            -self.points(opt),
            Term.parse(opt.term).index,
            opt.key,
        )

    def take(self, a: ProgramAlloc, idx: int, opt: Option) -> None:
        if opt.key in a.used:  # a second leaf of the program, as an overlap allows
            a.taken.setdefault(idx, []).append(opt)
            a.also.setdefault(opt.key, []).append(idx)
            return
        for other in self.others(a, opt.key):
            self.pair_shared.setdefault(pair(a.program.code, other), []).append(opt.key)
        a.taken.setdefault(idx, []).append(opt)
        a.used[opt.key] = idx
        self.used_by.setdefault(opt.key, []).append(a.program.code)

    def materialize(
        self,
        required: Iterable[Target],
        picks: Mapping[Target, frozenset[str]],
        free: Mapping[Target, list[Option]],
    ) -> None:
        """Give every required leaf its contested keys plus the free keys it needs."""
        self.used_by, self.pair_shared = {}, {}
        need = set(required)
        for code, a in self.allocs.items():
            a.taken, a.used, a.blocked, a.also = {}, {}, {}, {}
            for idx in a.order:
                if (code, idx) not in need:
                    continue
                req = a.nodes[idx].req
                assert isinstance(req, CourseRequirement | CourseSetRequirement)
                chosen = [o for o in self.candidates(a, idx, req) if o.key in picks[(code, idx)]]
                for opt in self._complete(a, req, chosen, free[(code, idx)]):
                    self.take(a, idx, opt)

    def candidates(self, a: ProgramAlloc, idx: int, req: Leaf) -> list[Option]:
        return [o for k in a.cands[idx] if (o := self.qualifying(k, req)) is not None]

    def _complete(
        self, a: ProgramAlloc, req: Leaf, base: list[Option], free: list[Option]
    ) -> list[Option]:
        """``base`` plus the best-ranked free courses that meet ``req``."""
        chosen = list(base)
        for opt in sorted(free, key=lambda o: self.rank(a, o)):
            if self.satisfies(req, chosen):
                break
            chosen.append(opt)
        if isinstance(req, CourseSetRequirement) and req.distributed:
            return self.forms.minimal(req, chosen)  # the part that counts
        if self.satisfies(req, chosen):
            return chosen
        # A course set with a GPA minimum where the ranked order took a low grade: use the
        # search's witness instead, without the courses it does not need.
        extra = completion(self, req, base, free)
        assert extra is not None, "the search only picks completable contested sets"
        chosen = base + extra
        for opt in sorted(extra, key=lambda o: self.rank(a, o), reverse=True):
            rest = [o for o in chosen if o is not opt]
            if self.satisfies(req, rest):
                chosen = rest
        return chosen


def completion(
    al: Allocator, req: Leaf, base: Sequence[Option], free: Sequence[Option]
) -> list[Option] | None:
    """Free courses that, added to ``base``, meet ``req``; None if no subset of ``free`` does.

    Without a GPA minimum (or for a distributed set, met when a part of the bag is) more
    courses never hurt, so all of ``free`` is the test. With one, courses outside the GPA or
    at or above the minimum never lower a qualifying average, so they are always added; the
    ones below it are tried in every combination (there are few).
    """
    if not (isinstance(req, CourseSetRequirement) and req.min_gpa is not None) or req.distributed:
        return list(free) if al.satisfies(req, [*base, *free]) else None
    minimum = req.min_gpa
    good = [o for o in free if not al.in_gpa(o) or al.points(o) >= minimum - EPS]
    low = [o for o in free if al.in_gpa(o) and al.points(o) < minimum - EPS]
    for size in range(len(low) + 1):
        for combo in combinations(low, size):
            if al.satisfies(req, [*base, *good, *combo]):
                return [*good, *combo]
    return None

"""The degree audit's allocation search: exactly which requirement nodes can be met together.

``stages.allocate`` runs the stages and the order of ``alloc``'s docstring (``stages.lexmax``),
asking ``Search.solve`` one question at a time: is there an allocation meeting every target
node, and which? No solver library on purpose: the plan verifier uses the audit as an
independent check of the CP-SAT planner, so this stays a plain search whose exactness is easy
to argue and is tested against brute force (tests/test_audit_alloc.py).

Why the search is exact. It branches only on *contested* keys; a key is *free* for a leaf
when no other leaf of its program can count it (an overlap without a limit lets the other
count it too, ``overlap``) and no other program that can has a sharing limit with this one.
Three reductions, each keeping some solution if one exists:

- Free keys never constrain anything else, so each leaf takes all the free keys it needs
  and the search only decides its contested keys.
- A leaf never needs more contested keys than a *minimal* completing set: dropping extra keys
  frees them and can only help other leaves and sharing slots. So a leaf's options are its
  minimal completing sets (for a course or count-only set: any ``need`` keys; with units: sets
  that fail without their smallest course; with a GPA minimum, caps, a subject minimum or
  minimums from sub-lists: enumerated).
- Keys with the same claimant leaves, counting the same way toward each (units where units
  matter, grade where GPA matters, the caps and minimums they fall under and their subject
  where those matter), and the same owners so far (leaves too, where overlaps let a key
  count twice) are interchangeable: swapping two maps every completion to another. So a
  leaf takes the first few of each such class.

An n_of takes children that free keys alone meet, or are required anyway, before trying
combinations of the others. The depth-first search takes the most constrained item first (a
leaf with no option left fails at once) and remembers failed states (required nodes, pending
items, keys owned per program: the rest of the search depends on nothing else).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

import structlog

from agents.audit.alloc import EPS, Allocator, Target, completion, pair
from agents.audit.overlap import held_in, picks_in
from agents.audit.pool import Option
from agents.audit.program import Leaf, required_count
from agents.audit.selections import count_selections, selections
from agents.catalog import (
    AllOfRequirement,
    CourseRequirement,
    CourseSetRequirement,
    NOfRequirement,
)

log = structlog.get_logger(__name__)

SEARCH_BUDGET = 20_000  # depth-first steps per question; far above what real records need


class _OutOfBudget(Exception):
    pass


@dataclass
class State:
    """A partial allocation: the nodes that must be met and the contested keys chosen.

    Sets of contested keys are bit masks (``Search.bit``): the search spends its time
    intersecting them.
    """

    required: set[Target]
    pending: list[Target]  # required leaves without contested keys yet, n_of without children
    picks: dict[Target, int]  # required leaf -> its contested keys
    own: list[int]  # per program (``Search.index``): the contested keys it counts

    def copy(self) -> State:
        return State(set(self.required), list(self.pending), dict(self.picks), list(self.own))

    def signature(self) -> tuple[object, ...]:
        """Everything the rest of a search depends on (picks only through ``own``)."""
        return frozenset(self.required), frozenset(self.pending), tuple(self.own)


class Search:
    """One stage's search data (per leaf: free and contested courses, best first) and a memo
    of states that cannot be completed.

    A leaf's options are generated when it is branched on, from the contested keys still open
    to it: listing them up front would not do, a course set can have thousands (any four of
    eighteen humanities courses).
    """

    def __init__(self, al: Allocator) -> None:
        self.al = al
        self.free: dict[Target, list[Option]] = {}
        self.cont: dict[Target, list[tuple[int, Option]]] = {}  # contested, best first
        self.need: dict[Target, int | None] = {}  # contested keys a count-only leaf needs
        self.alone: dict[Target, bool] = {}  # can be met if nothing else had to be
        self.free_ok: dict[Target, bool] = {}  # can be met by free courses alone
        self.gave_up = False
        self._failed: set[tuple[object, ...]] = set()
        self._steps = 0
        codes = list(al.allocs)
        self.index = {code: i for i, code in enumerate(codes)}
        # program index -> (other program's index, sharing limit) for each limited pair
        self._partners: list[list[tuple[int, int]]] = [
            [
                (j, al.limits[pair(p, q)])
                for j, q in enumerate(codes)
                if q != p and pair(p, q) in al.limits
            ]
            for p in codes
        ]
        cands: dict[Target, list[Option]] = {}
        claims: dict[str, list[Target]] = {}
        ov = al.overlaps
        for code, a in al.allocs.items():
            for idx in a.order:
                cands[(code, idx)] = al.candidates(a, idx, self.leaf((code, idx)))
                for o in cands[(code, idx)]:
                    claims.setdefault(o.key, []).append((code, idx))
        contested: dict[Target, list[Option]] = {}
        for t, opts in cands.items():
            self.free[t], contested[t] = [], []
            for o in opts:
                rivals = [
                    c
                    for c in claims[o.key]
                    if c != t
                    and (c[0] == t[0] or pair(c[0], t[0]) in al.limits)
                    and not (c[0] == t[0] and t[0] in ov and ov[t[0]].unlimited(t[1], c[1]))
                ]
                (contested[t] if rivals else self.free[t]).append(o)
        self.keys = sorted({o.key for opts in contested.values() for o in opts})
        self.bit = {k: 1 << i for i, k in enumerate(self.keys)}
        # Keys with the same claimants, counting the same way toward each, are
        # interchangeable: which of them a leaf takes only matters through their owners.
        looks: dict[str, list[tuple[Target, float, tuple[bool, float], tuple[object, ...]]]] = {}
        for t, opts in cands.items():
            req = self.leaf(t)
            spread = isinstance(req, CourseSetRequirement) and req.distributed
            units = isinstance(req, CourseSetRequirement) and (
                req.min_units is not None
                or any(c.max_units is not None for c in req.caps)
                or any(m.min_units is not None for m in req.minimums)
            )
            gpa = isinstance(req, CourseSetRequirement) and req.min_gpa is not None
            for o in opts:
                grade = (al.in_gpa(o), al.points(o)) if gpa else (False, 0.0)
                form = al.forms.look(req, o) if isinstance(req, CourseSetRequirement) else ()
                looks.setdefault(o.key, []).append(
                    (t, o.units if units else 0.0, grade, form if spread else ())
                )
        self._kind = {k: tuple(sorted(looks[k])) for k in self.keys}
        for t in cands:
            a, req = al.allocs[t[0]], self.leaf(t)
            ranked = sorted(contested[t], key=lambda o: al.static_rank(a, o))
            self.cont[t] = [(self.bit[o.key], o) for o in ranked]
            self.need[t] = None
            if isinstance(req, CourseRequirement):
                self.need[t] = max(0, 1 - len(self.free[t]))
            elif req.min_units is None and req.min_gpa is None and not req.distributed:
                self.need[t] = max(0, (required_count(req) or 0) - len(self.free[t]))
        for code, a in al.allocs.items():
            for node in reversed(a.nodes):  # children before parents
                t = (code, node.idx)
                if not node.children:
                    self.alone[t] = self._completable(t, contested[t])
                    self.free_ok[t] = self._completable(t, [])
                    continue
                kids = [(code, c) for c in node.children]
                need = node.req.n if isinstance(node.req, NOfRequirement) else len(kids)
                self.alone[t] = sum(self.alone[k] for k in kids) >= need
                self.free_ok[t] = sum(self.free_ok[k] for k in kids) >= need

    def leaf(self, t: Target) -> Leaf:
        req = self.al.allocs[t[0]].nodes[t[1]].req
        assert isinstance(req, CourseRequirement | CourseSetRequirement)
        return req

    def _completable(self, t: Target, extra: Sequence[Option]) -> bool:
        """Whether some of ``extra`` and the free courses meet leaf ``t``."""
        return completion(self.al, self.leaf(t), [], [*extra, *self.free[t]]) is not None

    def keys_of(self, mask: int) -> frozenset[str]:
        return frozenset(k for k in self.keys if self.bit[k] & mask)

    # ---- questions

    def empty(self) -> State:
        return State(set(), [], {}, [0] * len(self.index))

    def met(self, st: State, t: Target) -> bool:
        """Whether a finished state meets node ``t``."""
        if t in st.required:
            return True
        node = self.al.allocs[t[0]].nodes[t[1]]
        if not node.children:
            return False
        need = node.req.n if isinstance(node.req, NOfRequirement) else len(node.children)
        return sum(self.met(st, (t[0], c)) for c in node.children) >= need

    def solve(
        self, targets: Sequence[Target], base: State | None, hint: State | None
    ) -> State | None:
        """A finished state that meets every target on top of ``base`` (None: from nothing),
        trying ``hint``'s choices first; None when there is none."""
        st = base.copy() if base is not None else self.empty()
        for t in targets:
            if not self._require(st, t):
                return None
        self._steps = 0
        try:
            return self._dfs(st, hint)
        except _OutOfBudget:
            self.gave_up = True
            log.warning("audit.search_gave_up", targets=list(targets), steps=SEARCH_BUDGET)
            return None

    # ---- the search

    def _require(self, st: State, t: Target) -> bool:
        if t in st.required:
            return True
        if not self.alone[t]:
            return False
        st.required.add(t)
        node = self.al.allocs[t[0]].nodes[t[1]]
        if isinstance(node.req, AllOfRequirement):
            return all(self._require(st, (t[0], c)) for c in node.children)
        if not node.children and self.free_ok[t]:
            st.picks[t] = 0
        else:
            st.pending.append(t)
        return True

    def _dfs(self, st: State, hint: State | None) -> State | None:
        if not st.pending:
            return st
        sig = st.signature()
        if self.al.overlaps:  # which leaf holds a key matters where it may count twice
            sig = (*sig, frozenset(picks_in(st.picks, self.al.overlaps)))
        if sig in self._failed:
            return None
        self._tick()
        t, fewest = st.pending[0], 1 << 62
        for item in st.pending:  # most constrained first; counting stops at the best so far
            n = self._count(st, item, fewest)
            if n < fewest:
                t, fewest = item, n
                if n <= 1:
                    break
        for opt in self._options(st, t, hint) if fewest else ():
            nxt = st.copy()
            nxt.pending.remove(t)
            if self._apply(nxt, t, opt):
                found = self._dfs(nxt, hint)
                if found is not None:
                    return found
        self._failed.add(sig)
        return None

    def _options(
        self, st: State, t: Target, hint: State | None
    ) -> list[tuple[Target, ...]] | Iterator[int]:
        if t in self.cont:
            return self._leaf_options(st, t, hint)
        return self._children_options(st, t, hint)

    def _children_options(
        self, st: State, t: Target, hint: State | None
    ) -> list[tuple[Target, ...]]:
        """Which children a required n_of meets."""
        node = self.al.allocs[t[0]].nodes[t[1]]
        assert isinstance(node.req, NOfRequirement)
        kids = [(t[0], c) for c in node.children]
        # Children already required, then ones free courses meet: they cost nothing.
        have = [k for k in kids if k in st.required]
        have += [k for k in kids if k not in st.required and self.free_ok[k]]
        if len(have) >= node.req.n:
            return [tuple(have[: node.req.n])]
        rest = [k for k in kids if k not in have and self.alone[k]]
        combos = [(*have, *c) for c in combinations(rest, node.req.n - len(have))]
        if hint is not None:
            combos.sort(key=lambda c: not all(k in hint.required for k in c))
        return combos

    def _open(self, st: State, t: Target) -> list[tuple[int, Option]]:
        """Contested keys that leaf ``t`` could still take one at a time."""
        return [(bit, o) for bit, o in self.cont[t] if self._fits(st, t, bit)]

    def _leaf_options(self, st: State, t: Target, hint: State | None) -> Iterator[int]:
        first = hint.picks.get(t) if hint is not None else None
        if first is not None and self._fits(st, t, first):
            yield first
        for mask in self._minimal_sets(t, self._groups(st, self._open(st, t))):
            if mask != first and self._fits(st, t, mask):
                yield mask

    def _groups(self, st: State, keys: list[tuple[int, Option]]) -> list[list[tuple[int, Option]]]:
        """``keys`` (best first) in classes of interchangeable keys with the same owners now;
        a leaf only ever takes the first few of a class (any others would do the same)."""
        groups: dict[tuple[object, ...], list[tuple[int, Option]]] = {}
        held = picks_in(st.picks, self.al.overlaps) if self.al.overlaps else []
        for bit, o in keys:
            owners: tuple[object, ...] = tuple(i for i, own in enumerate(st.own) if own & bit)
            owners += tuple(t for t, mask in held if mask & bit)
            groups.setdefault((self._kind[o.key], owners), []).append((bit, o))
        return list(groups.values())

    def _minimal_sets(self, t: Target, groups: list[list[tuple[int, Option]]]) -> Iterator[int]:
        """The minimal sets of keys from ``groups`` that complete leaf ``t``, up to swapping
        interchangeable keys: fewest keys first, then the best-ranked."""
        need = self.need[t]
        if need is not None:  # count only: any ``need`` keys, and no fewer
            for chosen in selections(groups, need):
                yield sum(bit for bit, _ in chosen)
            return
        req, free = self.leaf(t), self.free[t]
        if isinstance(req, CourseSetRequirement) and (req.min_gpa is not None or req.distributed):
            yield from self._enumerated_sets(req, groups, free)
            return
        # Units (and maybe a count): more never hurts, so a completing set is minimal exactly
        # when dropping its smallest course breaks it, and sizes are bounded by the units.
        assert isinstance(req, CourseSetRequirement) and req.min_units is not None
        deficit = req.min_units - sum(o.units for o in free)
        units = sorted((o.units for g in groups for _, o in g), reverse=True)
        lo = next((k for k in range(len(units) + 1) if sum(units[:k]) >= deficit - EPS), None)
        if lo is None:
            return
        hi = int((deficit - EPS) // units[-1]) + 1 if units and deficit > EPS else 0
        counted = (required_count(req) or 0) - len(free)
        lo, hi = max(lo, counted, 0), max(hi, counted, 0)
        al = self.al
        for size in range(lo, min(hi, len(units)) + 1):
            for chosen in selections(groups, size):
                opts = [o for _, o in chosen]
                if not al.satisfies(req, [*free, *opts]):
                    continue
                smallest = min(range(size), key=lambda i: opts[i].units) if opts else None
                rest = [o for i, o in enumerate(opts) if i != smallest]
                if smallest is None or not al.satisfies(req, [*free, *rest]):
                    yield sum(bit for bit, _ in chosen)

    def _enumerated_sets(
        self,
        req: CourseSetRequirement,
        groups: list[list[tuple[int, Option]]],
        free: list[Option],
    ) -> Iterator[int]:
        found: list[int] = []
        for size in range(sum(len(g) for g in groups) + 1):
            fresh = False
            for combo in selections(groups, size):
                mask = sum(bit for bit, _ in combo)
                if any(f & mask == f for f in found):
                    continue
                fresh = True
                self._tick()
                if completion(self.al, req, [o for _, o in combo], free) is not None:
                    found.append(mask)
                    yield mask
            if not fresh:
                return  # every larger set contains one already found

    def _tick(self) -> None:
        self._steps += 1
        if self._steps > SEARCH_BUDGET:
            raise _OutOfBudget

    def _count(self, st: State, t: Target, cap: int) -> int:
        """How many options ``t`` has, about (exact when 0): for choosing the most
        constrained item, counting no further than ``cap``."""
        if t not in self.cont:
            return min(cap, len(self._children_options(st, t, None)))
        keys = self._open(st, t)
        need = self.need[t]
        if need is not None:
            return min(cap, count_selections([len(g) for g in self._groups(st, keys)], need))
        return min(cap, len(keys)) if self._completable(t, [o for _, o in keys]) else 0

    def _fits(self, st: State, t: Target, mask: int) -> bool:
        p, own, ov = self.index[t[0]], st.own, self.al.overlaps.get(t[0])
        if mask & own[p] and (ov is None or not ov.fits(held_in(st.picks, t[0]), t[1], mask)):
            return False  # a key counts once per program, twice only where overlaps allow
        new = mask & ~own[p]  # a key counted twice here uses one shared slot, not two
        for q, lim in self._partners[p]:
            both = new & own[q]
            if both and (own[p] & own[q]).bit_count() + both.bit_count() > lim:
                return False  # no shared slot left with that program
        return True

    def _apply(self, st: State, t: Target, opt: tuple[Target, ...] | int) -> bool:
        if isinstance(opt, tuple):  # an n_of's children
            return all(self._require(st, k) for k in opt)
        st.own[self.index[t[0]]] |= opt
        st.picks[t] = opt
        return True

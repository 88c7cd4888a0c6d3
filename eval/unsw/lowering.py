"""Turning a parsed circles condition into the catalog's prerequisite and corequisite trees.

Each leaf becomes a catalog condition, or is dropped, and is counted in the tally under the
row that says which: a course of the undergraduate list stays a course, ``[...]`` becomes a
corequisite (``concurrent(X)`` where it stands inside an ``or``), ``48UOC`` becomes
``units(48)``, enrolment in a program or specialisation of this catalog ``program(X)``.
What the format cannot state is approximated or dropped (see ``RULES``). A group emptied by
drops disappears; nested groups of the same operator are flattened; a repeated member is
kept once - neither changes what the condition means.

After every course is lowered, ``break_cycles`` removes the prerequisite edges that close a
cycle (the loader refuses cycles), counting each.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field, replace

from eval.unsw.conditions import Group, Leaf, Node
from eval.unsw.tally import Outcome, Tally

SECTION = "Prerequisite conditions (one per leaf of a circles expression)"

RULES: dict[str, tuple[Outcome, str]] = {
    "course": ("exact", "A course completed: the course."),
    "corequisite": (
        "exact",
        "A corequisite `[X]` (taken before or in the same term): the corequisites column, "
        "or `concurrent(X)` where it stands inside an `or`.",
    ),
    "uoc": ("exact", "`NUOC` (N units of credit completed): `units(N)`."),
    "enrolment": (
        "exact",
        "Enrolment in a program or specialisation this catalog holds: `program(X)`.",
    ),
    "uoc_category": (
        "approximate",
        "`NUOC in <level/subject/faculty>`: `units(N)` of any courses - the format has no "
        "units-completed-in-a-category condition.",
    ),
    "grade_course": (
        "approximate",
        "`NGRADE in X` (a mark of at least N in X): X with any passing grade - a minimum "
        "grade is one capital letter (`C`, `B+`), so UNSW's HD/DN/CR/PS cannot be named, "
        "and a mark is no form at all.",
    ),
    "grade_other": (
        "approximate",
        "A mark over a category of courses: dropped - no such form.",
    ),
    "wam": (
        "approximate",
        "A WAM (weighted average mark) threshold: dropped - prerequisite expressions have no "
        "GPA/WAM condition.",
    ),
    "course_outside": (
        "approximate",
        "A course not in the undergraduate list (postgraduate, discontinued or 0 UOC): "
        "dropped - the loader refuses unknown courses; in an `or` this removes a route, in "
        "an `and` a condition.",
    ),
    "course_self": ("approximate", "The course naming itself: dropped."),
    "mixed": (
        "approximate",
        "`&&` and `||` at one level without brackets (`A || B && C`, one per group): read "
        "as `(A or B) and C`, as the handbook's 'A or B, and C' phrasing means - circles "
        "leaves the order undefined.",
    ),
    "program_outside": (
        "approximate",
        "Enrolment in a program this catalog does not hold: dropped; the course is marked "
        "`free_elective: no` so the planner never adds it on its own.",
    ),
    "spec_outside": (
        "approximate",
        "Enrolment in a specialisation this catalog does not hold: dropped; the course is "
        "marked `free_elective: no`.",
    ),
    "program_type": (
        "approximate",
        "Enrolment in a kind of program (`COMP#`: any Computer Science program): dropped - "
        "the data does not say which programs are of a kind; `free_elective: no`.",
    ),
    "spec_wildcard": (
        "approximate",
        "Enrolment in any honours specialisation of a subject (`BABS?H`): dropped; "
        "`free_elective: no`.",
    ),
    "cycle": (
        "approximate",
        "A prerequisite that closes a cycle (A needs B needs A, or two corequisites "
        "written as `concurrent`): the edge that closes it in a depth-first walk in code "
        "order is removed - the loader refuses cycles.",
    ),
}
ENROLMENT_DROPS = frozenset({"program_outside", "spec_outside", "program_type", "spec_wildcard"})


@dataclass(frozen=True)
class Known:
    """What references may resolve to: the catalog's course and program codes."""

    courses: Collection[str]
    programs: Collection[str]


@dataclass
class Lowered:
    """A course's conditions in catalog terms, and which rules converted them."""

    prerequisites: Node | None
    corequisites: Node | None
    rules: list[str] = field(default_factory=list)
    unread: bool = False  # the expression could not be read: nothing was kept

    @property
    def exact(self) -> bool:
        return all(RULES[r][0] == "exact" for r in self.rules)

    @property
    def arranged(self) -> bool:
        """Whether an enrolment condition was dropped: the course is then no filler."""
        return any(r in ENROLMENT_DROPS for r in self.rules)


def lower(course: str, node: Node | None, known: Known) -> Lowered:
    """The catalog trees of ``course``'s parsed condition."""
    rules: list[str] = []
    tree = _lower(course, node, known, rules) if node is not None else None
    pre, co = split_corequisites(tree)
    return Lowered(pre, co, rules)


def count(tally: Tally, course: str, rules: Iterable[str]) -> None:
    for r in rules:
        outcome, why = RULES[r]
        tally.add(SECTION, outcome, r, why, course)


def _lower(course: str, node: Node, known: Known, rules: list[str]) -> Node | None:
    if isinstance(node, Group):
        if node.mixed:
            rules.append("mixed")
        items = [x for i in node.items if (x := _lower(course, i, known, rules)) is not None]
        return simplify(Group(node.op, tuple(items)))
    rule, out = _leaf(course, node, known)
    rules.append(rule)
    return out


def _leaf(course: str, leaf: Leaf, known: Known) -> tuple[str, Node | None]:
    if leaf.kind == "course":
        if leaf.value == course:
            return "course_self", None
        if leaf.value not in known.courses:
            return "course_outside", None
        return ("corequisite" if leaf.concurrent else "course"), Leaf(
            "course", leaf.value, concurrent=leaf.concurrent
        )
    if leaf.kind == "uoc":
        rule = "uoc" if leaf.category is None else "uoc_category"
        return rule, Leaf("uoc", number=leaf.number)
    if leaf.kind == "wam":
        return "wam", None
    if leaf.kind == "grade":
        target = leaf.category or ""
        if target == course:
            return "course_self", None
        if target in known.courses:
            return "grade_course", Leaf("course", target)
        if len(target) == 8 and target[4:].isdigit():
            return "course_outside", None
        return "grade_other", None
    if leaf.kind in ("program", "spec"):
        if leaf.value in known.programs:
            return "enrolment", Leaf("program", leaf.value)
        return ("program_outside" if leaf.kind == "program" else "spec_outside"), None
    if leaf.kind == "spec_in_program":
        codes = (leaf.value, leaf.category or "")
        if all(c in known.programs for c in codes):
            return "enrolment", Group("and", tuple(Leaf("program", c) for c in codes))
        return "spec_outside", None
    return leaf.kind, None  # program_type, spec_wildcard


def simplify(node: Node | None) -> Node | None:
    """Drop empty groups, unwrap single members, flatten same-operator nesting and keep a
    repeated member once."""
    if node is None or isinstance(node, Leaf):
        return node
    flat: list[Node] = []
    for item in node.items:
        s = simplify(item)
        if s is None:
            continue
        members = s.items if isinstance(s, Group) and s.op == node.op else (s,)
        for m in members:
            if m not in flat:
                flat.append(m)
    if not flat:
        return None
    return flat[0] if len(flat) == 1 else Group(node.op, tuple(flat))


def _all_concurrent(node: Node) -> bool:
    if isinstance(node, Leaf):
        return node.kind == "course" and node.concurrent
    return all(_all_concurrent(i) for i in node.items)


def _plain(node: Node) -> Node:
    if isinstance(node, Leaf):
        return replace(node, concurrent=False)
    return Group(node.op, tuple(_plain(i) for i in node.items))


def split_corequisites(tree: Node | None) -> tuple[Node | None, Node | None]:
    """(prerequisites, corequisites): conjuncts of the root made only of corequisite
    courses go to the corequisites; a corequisite anywhere else stays in the prerequisites
    as ``concurrent(X)``."""
    if tree is None:
        return None, None
    parts = tree.items if isinstance(tree, Group) and tree.op == "and" else (tree,)
    co = [_plain(p) for p in parts if _all_concurrent(p)]
    pre = [p for p in parts if not _all_concurrent(p)]
    return simplify(Group("and", tuple(pre))), simplify(Group("and", tuple(co)))


def to_expression(node: Node | None, parent: str | None = None) -> str:
    """The catalog expression of a lowered tree (``and`` binds tighter than ``or``)."""
    if node is None:
        return ""
    if isinstance(node, Leaf):
        if node.kind == "course":
            return f"concurrent({node.value})" if node.concurrent else node.value
        if node.kind == "uoc":
            return f"units({node.number})"
        return f"program({node.value})"
    inner = f" {node.op} ".join(to_expression(i, node.op) for i in node.items)
    return f"({inner})" if parent is not None else inner


def courses_of(node: Node | None) -> list[Leaf]:
    """The course leaves of a lowered tree (corequisite ones included)."""
    if node is None:
        return []
    if isinstance(node, Leaf):
        return [node] if node.kind == "course" else []
    return [leaf for i in node.items for leaf in courses_of(i)]


def without(node: Node | None, drop: Leaf) -> Node | None:
    """``node`` less every occurrence of the course leaf ``drop``."""
    if node is None or node == drop:
        return None
    if isinstance(node, Leaf):
        return node
    kept = (without(i, drop) for i in node.items)
    return simplify(Group(node.op, tuple(x for x in kept if x is not None)))


def break_cycles(trees: dict[str, Node | None], tally: Tally) -> dict[str, Node | None]:
    """The prerequisite trees with every edge that closes a cycle removed, found by a
    depth-first walk in code order (deterministic); each removal is counted."""
    out = dict(trees)
    state: dict[str, int] = {}

    def edges(code: str) -> list[Leaf]:
        return list(dict.fromkeys(x for x in courses_of(out.get(code)) if x.value in out))

    for start in sorted(out):
        if start in state:
            continue
        stack: list[tuple[str, list[Leaf]]] = [(start, edges(start))]
        state[start] = 1
        while stack:
            code, todo = stack[-1]
            if not todo:
                state[code] = 2
                stack.pop()
                continue
            leaf = todo.pop(0)
            nxt = leaf.value
            if state.get(nxt) == 1:
                out[code] = without(out[code], leaf)
                count(tally, code, ["cycle"])
            elif nxt not in state:
                state[nxt] = 1
                stack.append((nxt, edges(nxt)))
    return out

"""Degree audit: which requirements of each program a student's record meets, and what is left.

``audit(catalog, student)`` walks every program's requirement tree and counts the student's
courses toward it. A course counts as *completed* (best passing attempt, transfer/AP/exam
credit included), *in_progress* or *planned* (``planned`` maps course -> term; planned and
in-progress courses are assumed passed with a grade meeting any minimum). A node is ``met``
counting all three, and separately ``met_by_completed`` counting completed courses only.

Allocation (deterministic, greedy; the limits are listed at the end):

1. Stages: completed courses are placed first (in every program), then in-progress courses
   fill what is still open, then planned courses. Nothing placed is moved by a later stage,
   so ``met_by_completed`` (the state after the first stage) always implies ``met``, and a
   plan can only add to what the record already meets.
2. Within a stage programs go one at a time: majors first, then minors and concentrations,
   each group in the order given.
3. Within a program a course (for a repeatable course: one attempt) counts toward at most one
   leaf. Leaves are filled most specific first: single-course leaves in tree order, then
   course sets by how few of the student's courses (any stage) match them (ties: tree order).
4. A course set picks, among the qualifying unused courses of the stage: courses not counted
   by another program first (so sharing budgets are spent only when needed), then courses
   wanted by the fewest other leaves of the program, then completed before in progress, then
   higher grade, earlier term, code.
5. A course already counted by another program is shared only while the sharing limit
   between the two programs (the smallest applicable ``SharingLimit`` of either program) has
   room; otherwise it is skipped and the explanation names the limit and its rule.
6. When an ``n_of`` node has more children met than it needs, it keeps the ``n`` met children
   with the fewest not-yet-completed courses (ties: tree order); the other children give their
   courses back and are marked "not needed", and open leaves are filled again with the freed
   courses (repeated until nothing changes). Freed courses stay free for later programs, so
   they do not use up a sharing limit.

Known limits: the greedy choice is not a global optimum - two course sets that compete for
the same few courses can be left with one unmet where a different assignment meets both, and
a completed course placed in the first stage is not moved to make room for a planned one;
a later program never takes courses away from an earlier one; sharing limits only apply
between the programs audited together; anti-requisites are not checked here (the verifier
does); course-set GPA minimums are checked over the courses counted, not every matching one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import structlog
from pydantic import BaseModel, ConfigDict, Field

from agents.tools.catalog import (
    AllOfRequirement,
    Catalog,
    Course,
    CourseRequirement,
    CourseSetRequirement,
    NOfRequirement,
    Program,
    RequirementNode,
    SharingLimit,
)
from agents.tools.prereq import ClassStanding
from agents.tools.student import (
    AttemptSource,
    CourseAttempt,
    StudentRecord,
    check_student_against_catalog,
)
from agents.tools.terms import Term

log = structlog.get_logger(__name__)

SCHEMA_FILE = "audit.schema.json"

Status = Literal["met", "partly_met", "unmet"]
CountedStatus = Literal["completed", "in_progress", "planned"]
RequirementKind = Literal["course", "all_of", "n_of", "course_set", "total_units", "program_gpa"]


# --------------------------------------------------------------------------- result models


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CountedCourse(_Model):
    """A course (or one attempt of a repeatable course) counted toward a requirement."""

    course: str = Field(description="Course code.")
    title: str = Field(description="Course title from the catalog.")
    term: str = Field(description="Term taken, being taken, or planned.")
    grade: str | None = Field(description="Grade earned; None while in progress or planned.")
    units: float = Field(description="Units the attempt carries.")
    status: CountedStatus = Field(
        description="'completed', 'in_progress' (assumed passed) or 'planned' (assumed passed "
        "with a grade meeting any minimum)."
    )
    source: AttemptSource = Field(
        description="Where the credit comes from: taken here, or transfer / AP / exam credit."
    )
    note: str = Field(
        description="Why this attempt is the one that counts when there were several; "
        "empty otherwise."
    )


class RequirementAudit(_Model):
    """The audit of one requirement node (catalog node or synthetic program check)."""

    id: str = Field(
        description="Requirement id from the catalog, or 'total-units' / 'program-gpa'."
    )
    title: str = Field(description="Readable name of the requirement.")
    kind: RequirementKind = Field(description="Node kind.")
    status: Status = Field(
        description="'met' counting completed, in-progress and planned courses; 'partly_met' "
        "with some progress; 'unmet' with none."
    )
    met_by_completed: bool = Field(description="Whether completed courses alone satisfy it.")
    counted: list[CountedCourse] = Field(
        description="Courses counted toward this leaf, by term then code (empty for groups)."
    )
    courses_needed: int = Field(
        description="Courses still needed (for course sets with only a unit minimum: 0)."
    )
    units_needed: float = Field(
        description="Units still needed; for course counts a lower bound from the cheapest options."
    )
    options: list[str] = Field(
        description="Course codes that could still satisfy it, sorted; excludes courses already "
        "counted in this program and courses blocked by a sharing limit."
    )
    children: list[RequirementAudit] = Field(description="Audits of the child nodes, in order.")
    explanation: str = Field(description="One sentence saying why the node has its status.")


class SharedCourse(_Model):
    """A course counted toward this program and another one."""

    course: str = Field(description="Course code.")
    term: str = Field(description="Term of the attempt that counts.")
    with_program: str = Field(description="The other program's code.")
    requirement: str = Field(description="Requirement id it counts toward in this program.")
    other_requirement: str = Field(description="Requirement id it counts toward in the other.")


class ProgramAudit(_Model):
    """The audit of one program."""

    code: str = Field(description="Program code.")
    name: str = Field(description="Official name.")
    kind: Literal["major", "minor", "concentration"] = Field(description="Program kind.")
    what_if: bool = Field(description="True when the student has not declared the program.")
    eligible: bool = Field(description="Whether the student may add or hold the program.")
    eligibility_note: str = Field(description="Why not eligible; empty when eligible.")
    status: Status = Field(description="Combined status of the tree and the program checks.")
    met_by_completed: bool = Field(description="Whether completed courses alone satisfy it.")
    root: RequirementAudit = Field(description="Audit of the program's requirement tree.")
    checks: list[RequirementAudit] = Field(
        description="Program-wide checks outside the tree: 'total-units' when the program has "
        "total_units, 'program-gpa' when it has min_gpa."
    )
    total_units_required: float | None = Field(description="Program.total_units, if any.")
    units_toward_total: float | None = Field(
        description="All units earned, in progress and planned (every course, not only "
        "requirement courses); None when the program has no unit total."
    )
    gpa: float | None = Field(
        description="GPA over the completed graded institution courses counted in the program."
    )
    shared_courses: list[SharedCourse] = Field(
        description="Courses also counted toward another audited program, by code."
    )
    sharing_notes: list[str] = Field(
        description="Sharing limits with the other audited programs, and courses a limit kept out."
    )


class AuditReport(_Model):
    """A degree audit of one student against one or more programs."""

    student_id: str = Field(description="Student id.")
    catalog_year: str = Field(description="Catalog year of the catalog audited against.")
    as_of_term: str = Field(description="The student's current term.")
    class_standing: ClassStanding = Field(description="Class standing from completed units.")
    gpa: float | None = Field(description="Cumulative GPA (given, or computed from grades).")
    units_earned: float = Field(description="Units earned by completed courses.")
    units_in_progress: float = Field(description="Units of courses in progress.")
    units_planned: float = Field(description="New units of planned courses.")
    programs: list[ProgramAudit] = Field(description="One audit per program, in the order given.")
    all_met: bool = Field(
        description="Every program met counting completed, in-progress and planned courses."
    )
    all_met_by_completed: bool = Field(description="Every program met by completed courses.")
    warnings: list[str] = Field(
        description="Problems with the inputs that the audit worked around."
    )


def audit_schema() -> dict[str, Any]:
    """The audit report's JSON Schema as generated from the models (the published file's source)."""
    schema = AuditReport.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://advising.example/schemas/audit.schema.json"
    return schema


def published_audit_schema() -> dict[str, Any]:
    text = (resources.files("agents") / "schemas" / SCHEMA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def write_audit_schema(directory: Path) -> Path:
    """Write the published schema file (used when the models change)."""
    target = directory / SCHEMA_FILE
    target.write_text(json.dumps(audit_schema(), indent=2, sort_keys=True) + "\n", "utf-8")
    return target


# --------------------------------------------------------------------------- small helpers


_RANK: dict[str, int] = {"completed": 0, "in_progress": 1, "planned": 2}
_EPS = 1e-9


def _r(x: float) -> float:
    return round(x + 0.0, 2)


def _num(x: float) -> str:
    return f"{x:g}"


def _plural(n: float, word: str) -> str:
    return f"{_num(n)} {word}" + ("" if n == 1 else "s")


def _codes(items: Iterable[str], limit: int = 8) -> str:
    items = list(items)
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f" and {len(items) - limit} more"


def _label(node: RequirementNode) -> str:
    return node.title or node.id


def sharing_limit(a: Program, b: Program) -> SharingLimit | None:
    """The tightest sharing limit between two programs, from either side; None if unlimited."""

    def applies(lim: SharingLimit, other: Program) -> bool:
        return (lim.with_program is None or lim.with_program == other.code) and (
            lim.with_kind is None or lim.with_kind == other.kind
        )

    found = [lim for lim in a.sharing if applies(lim, b)]
    found += [lim for lim in b.sharing if applies(lim, a)]
    return min(found, key=lambda lim: lim.max_courses) if found else None


def _limit_text(lim: SharingLimit, other: str) -> str:
    rule = f" (rule {lim.rule})" if lim.rule else ""
    return f"at most {_plural(lim.max_courses, 'course')} may be shared with {other}{rule}"


def _node(
    req_id: str,
    title: str,
    kind: RequirementKind,
    status: Status,
    met_by_completed: bool,
    explanation: str,
    **rest: Any,
) -> RequirementAudit:
    """A RequirementAudit with the leaf defaults (nothing counted, needed or open)."""
    fields: dict[str, Any] = {
        "counted": [],
        "courses_needed": 0,
        "units_needed": 0.0,
        "options": [],
        "children": [],
    }
    fields.update(rest)
    return RequirementAudit(
        id=req_id,
        title=title,
        kind=kind,
        status=status,
        met_by_completed=met_by_completed,
        explanation=explanation,
        **fields,
    )


# --------------------------------------------------------------------------- candidates


@dataclass(frozen=True)
class _Option:
    """One way a course can count: an attempt or a planned enrollment."""

    key: str  # allocation identity: the course code, or code@term for repeatable courses
    course: str
    term: str
    grade: str | None
    units: float
    status: CountedStatus
    source: AttemptSource
    pass_fail: bool
    note: str


def _note(counted: CourseAttempt | None, attempts: list[CourseAttempt]) -> str:
    """'best attempt; also R in F2025' when other attempts of the course exist."""
    others = [a for a in attempts if a is not counted]
    if not others:
        return ""
    head = "best attempt" if counted is not None and counted.status == "completed" else "retake"
    parts = [f"{a.grade or 'in progress'} in {a.term}" for a in others]
    return f"{head}; also {', '.join(parts)}"


def _passed(catalog: Catalog, attempt: CourseAttempt) -> bool:
    return attempt.grade is not None and catalog.grade_meets(attempt.grade, None)


def _planned(key: str, course: Course, term: str, note: str) -> _Option:
    return _Option(
        key, course.code, term, None, course.units, "planned", "institution", False, note
    )


def _build_pool(
    catalog: Catalog, student: StudentRecord, planned: Mapping[str, str]
) -> dict[str, list[_Option]]:
    """Options per allocation key, best first (completed, then in progress, then planned)."""
    pool: dict[str, list[_Option]] = {}
    for code in sorted({a.course for a in student.courses} | set(planned)):
        course = catalog.course_by_code.get(code)
        if course is None:
            continue  # reported as a warning by the caller
        attempts = sorted(student.attempts_of(code), key=lambda a: Term.parse(a.term).index)

        def taken(key: str, a: CourseAttempt, note: str) -> _Option:
            units = student.units_of(a, catalog)
            return _Option(
                key, a.course, a.term, a.grade, units, a.status, a.source, a.pass_fail, note
            )

        plan_term = planned.get(code)
        if course.repeatable:  # every passing attempt is its own credit
            for a in attempts:
                if a.status == "in_progress" or _passed(catalog, a):
                    pool.setdefault(f"{code}@{a.term}", []).append(taken(f"{code}@{a.term}", a, ""))
            if plan_term is not None:
                key = f"{code}@{plan_term}" + ("#plan" if f"{code}@{plan_term}" in pool else "")
                pool[key] = [_planned(key, course, plan_term, "")]
            continue
        opts: list[_Option] = []
        best = student.best_attempt(code, catalog)
        if (
            best is not None
            and best.status == "completed"
            and catalog.grade_meets(best.grade, None)
        ):
            opts.append(taken(code, best, _note(best, attempts)))
        current = [a for a in attempts if a.status == "in_progress"]
        if current:
            opts.append(taken(code, current[-1], _note(current[-1], attempts)))
        if plan_term is not None:
            opts.append(_planned(code, course, plan_term, _note(None, attempts)))
        if opts:
            pool[code] = opts
    return pool


# --------------------------------------------------------------------------- allocation


_Leaf = CourseRequirement | CourseSetRequirement


@dataclass(frozen=True)
class _Node:
    idx: int
    req: RequirementNode
    parent: int | None
    children: tuple[int, ...]


def _flatten(root: RequirementNode) -> list[_Node]:
    out: list[_Node] = []

    def visit(node: RequirementNode, parent: int | None) -> int:
        idx = len(out)
        out.append(_Node(idx, node, parent, ()))
        kids: list[int] = []
        if isinstance(node, AllOfRequirement | NOfRequirement):
            kids = [visit(c, idx) for c in node.children]
        out[idx] = _Node(idx, node, parent, tuple(kids))
        return idx

    visit(root, None)
    return out


def _required_count(req: CourseSetRequirement) -> int | None:
    if req.min_courses is not None:
        return req.min_courses
    if req.min_units is None:  # the loader rejects this; count it as "all listed, or one"
        return len(req.courses) or 1
    return None


@dataclass
class _Alloc:
    """One program's allocation state."""

    program: Program
    nodes: list[_Node]
    cands: dict[int, list[str]]  # leaf -> matching pool keys, sorted
    demand: dict[str, int]  # key -> leaves of this program it matches
    order: list[int]  # leaf fill order
    taken: dict[int, list[_Option]] = field(default_factory=dict)
    used: dict[str, int] = field(default_factory=dict)  # key -> leaf
    released: set[int] = field(default_factory=set)
    blocked: dict[int, dict[str, str]] = field(default_factory=dict)  # leaf -> key -> program


_STAGES: tuple[frozenset[str], ...] = (
    frozenset({"completed"}),
    frozenset({"completed", "in_progress"}),
    frozenset({"completed", "in_progress", "planned"}),
)


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


class _Allocator:
    """Allocates the pool to the programs in stages (see the module docstring)."""

    def __init__(self, catalog: Catalog, pool: dict[str, list[_Option]], programs: list[Program]):
        self.catalog = catalog
        self.pool = pool
        self.programs = {p.code: p for p in programs}
        self.used_by: dict[str, list[str]] = {}  # key -> programs counting it
        self.pair_shared: dict[tuple[str, str], list[str]] = {}  # program pair -> shared keys
        self.allowed = _STAGES[-1]
        order = [p for p in programs if p.kind == "major"]
        order += [p for p in programs if p.kind != "major"]
        self.allocs = {p.code: self._prepare(p) for p in order}
        self.met_by_completed: dict[str, set[int]] = {}
        for stage in _STAGES:
            self.allowed = stage
            for a in self.allocs.values():
                self._run(a)
            if not self.met_by_completed:
                self.met_by_completed = {
                    code: {n.idx for n in a.nodes if self.node_met(a, n.idx)}
                    for code, a in self.allocs.items()
                }

    # ---- matching and qualification

    def matches(self, req: _Leaf, code: str) -> bool:
        if isinstance(req, CourseRequirement):
            return req.course == code
        course = self.catalog.course_by_code.get(code)
        return course is not None and req.matches(course)

    def disqualified(self, opt: _Option, min_grade: str | None) -> str | None:
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

    def qualifying(self, key: str, req: _Leaf) -> _Option | None:
        """The first option of ``key`` allowed in this stage that can count toward ``req``."""
        return next(
            (
                o
                for o in self.pool[key]
                if o.status in self.allowed and self.disqualified(o, req.min_grade) is None
            ),
            None,
        )

    def points(self, opt: _Option) -> float:
        g = self.catalog.grade_by_symbol.get(opt.grade or "")
        return g.points if g is not None and opt.status == "completed" else 0.0

    # ---- leaf state

    def counts_ok(self, req: _Leaf, taken: list[_Option]) -> bool:
        if isinstance(req, CourseRequirement):
            return bool(taken)
        need = _required_count(req)
        if need is not None and len(taken) < need:
            return False
        return req.min_units is None or sum(o.units for o in taken) >= req.min_units - _EPS

    def set_gpa(self, taken: Iterable[_Option]) -> float | None:
        pts = units = 0.0
        for o in taken:
            g = self.catalog.grade_by_symbol.get(o.grade or "")
            if (
                o.status != "completed"
                or o.source != "institution"
                or o.pass_fail
                or g is None
                or not g.in_gpa
            ):
                continue
            pts += g.points * o.units
            units += o.units
        return round(pts / units, 2) if units else None

    def leaf_met(self, a: _Alloc, idx: int) -> bool:
        req = a.nodes[idx].req
        assert isinstance(req, CourseRequirement | CourseSetRequirement)
        taken = a.taken.get(idx, [])
        if not self.counts_ok(req, taken):
            return False
        if isinstance(req, CourseSetRequirement) and req.min_gpa is not None:
            gpa = self.set_gpa(taken)
            return gpa is None or gpa >= req.min_gpa - _EPS
        return True

    def node_met(self, a: _Alloc, idx: int) -> bool:
        node = a.nodes[idx]
        if isinstance(node.req, AllOfRequirement):
            return all(self.node_met(a, c) for c in node.children)
        if isinstance(node.req, NOfRequirement):
            return sum(self.node_met(a, c) for c in node.children) >= node.req.n
        return self.leaf_met(a, idx)

    def leaves_under(self, a: _Alloc, idx: int) -> list[int]:
        node = a.nodes[idx]
        if not node.children:
            return [idx]
        return [leaf for c in node.children for leaf in self.leaves_under(a, c)]

    # ---- filling

    def others(self, a: _Alloc, key: str) -> list[str]:
        """Other programs already counting ``key``."""
        return [p for p in self.used_by.get(key, []) if p != a.program.code]

    def shared(self, a: _Alloc, other: str) -> list[str]:
        return self.pair_shared.get(_pair(a.program.code, other), [])

    def blocker(self, a: _Alloc, key: str) -> str | None:
        """The program whose sharing limit with ``a`` is used up, if ``key`` counts there."""
        for other in self.others(a, key):
            lim = sharing_limit(a.program, self.programs[other])
            if lim is not None and len(self.shared(a, other)) >= lim.max_courses:
                return other
        return None

    def _take(self, a: _Alloc, idx: int, opt: _Option) -> None:
        for other in self.others(a, opt.key):
            self.pair_shared.setdefault(_pair(a.program.code, other), []).append(opt.key)
        a.taken.setdefault(idx, []).append(opt)
        a.used[opt.key] = idx
        self.used_by.setdefault(opt.key, []).append(a.program.code)

    def _release(self, a: _Alloc, idx: int) -> None:
        for opt in a.taken.pop(idx, []):
            del a.used[opt.key]
            self.used_by[opt.key].remove(a.program.code)
            for other in self.used_by[opt.key]:
                self.pair_shared[_pair(a.program.code, other)].remove(opt.key)
        a.released.add(idx)

    def _fill(self, a: _Alloc, idx: int) -> None:
        req = a.nodes[idx].req
        assert isinstance(req, CourseRequirement | CourseSetRequirement)
        if idx in a.released or self.counts_ok(req, a.taken.get(idx, [])):
            return
        choices: list[tuple[tuple[Any, ...], _Option]] = []
        for key in a.cands[idx]:
            opt = None if key in a.used else self.qualifying(key, req)
            if opt is None:
                continue
            # Unshared first, then least wanted elsewhere, then completed, best grade, earliest.
            rank = (
                bool(self.others(a, key)),
                a.demand[key],
                _RANK[opt.status],
                -self.points(opt),
                Term.parse(opt.term).index,
                key,
            )
            choices.append((rank, opt))
        for _rank, opt in sorted(choices, key=lambda c: c[0]):
            if self.counts_ok(req, a.taken.get(idx, [])):
                break
            other = self.blocker(a, opt.key)
            if other is not None:
                a.blocked.setdefault(idx, {})[opt.key] = other
                continue
            self._take(a, idx, opt)

    def _release_surplus(self, a: _Alloc) -> bool:
        changed = False
        for node in reversed(a.nodes):  # descendants before ancestors
            if not isinstance(node.req, NOfRequirement):
                continue
            met = [c for c in node.children if self.node_met(a, c)]
            if len(met) < node.req.n:
                continue

            def pending(c: int) -> int:
                return sum(
                    o.status != "completed"
                    for leaf in self.leaves_under(a, c)
                    for o in a.taken.get(leaf, [])
                )

            keep = set(sorted(met, key=lambda c: (pending(c), c))[: node.req.n])
            for c in node.children:
                for leaf in [] if c in keep else self.leaves_under(a, c):
                    if leaf not in a.released:
                        changed = changed or bool(a.taken.get(leaf))
                        self._release(a, leaf)
        return changed

    def _prepare(self, program: Program) -> _Alloc:
        nodes = _flatten(program.requirement)
        leaves = [n for n in nodes if isinstance(n.req, CourseRequirement | CourseSetRequirement)]
        cands: dict[int, list[str]] = {}
        for n in leaves:
            assert isinstance(n.req, CourseRequirement | CourseSetRequirement)
            cands[n.idx] = [
                k for k in sorted(self.pool) if self.matches(n.req, self.pool[k][0].course)
            ]
        # Counted over every stage's options, so early stages already leave room for later ones.
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
        return _Alloc(program, nodes, cands, demand, order)

    def _run(self, a: _Alloc) -> None:
        for idx in a.order:
            self._fill(a, idx)
        while self._release_surplus(a):
            for idx in a.order:
                self._fill(a, idx)


# --------------------------------------------------------------------------- building results


class _Builder:
    """Turns the finished allocation into result models with explanations."""

    def __init__(self, catalog: Catalog, student: StudentRecord, allocator: _Allocator) -> None:
        self.catalog = catalog
        self.student = student
        self.allocator = allocator

    def counted(self, opt: _Option) -> CountedCourse:
        return CountedCourse(
            course=opt.course,
            title=self.catalog.course_by_code[opt.course].title,
            term=opt.term,
            grade=opt.grade,
            units=_r(opt.units),
            status=opt.status,
            source=opt.source,
            note=opt.note,
        )

    def node(self, a: _Alloc, idx: int) -> RequirementAudit:
        node = a.nodes[idx]
        mbc = idx in self.allocator.met_by_completed[a.program.code]
        if isinstance(node.req, CourseRequirement):
            out = self.course_leaf(a, idx, node.req, mbc)
        elif isinstance(node.req, CourseSetRequirement):
            out = self.set_leaf(a, idx, node.req, mbc)
        else:
            out = self.group(a, node, mbc)
        parent = a.nodes[node.parent] if node.parent is not None else None
        if (
            parent is not None
            and isinstance(parent.req, NOfRequirement)
            and out.status != "met"
            and self.allocator.node_met(a, parent.idx)
        ):
            met = sum(self.allocator.node_met(a, c) for c in parent.children)
            note = f"not needed: {_label(parent.req)} needs {parent.req.n} and has {met} met"
            out = out.model_copy(
                update={
                    "explanation": note,
                    "courses_needed": 0,
                    "units_needed": 0.0,
                    "options": [],
                }
            )
        return out

    def group(self, a: _Alloc, node: _Node, mbc: bool) -> RequirementAudit:
        req = node.req
        assert isinstance(req, AllOfRequirement | NOfRequirement)
        kids = [self.node(a, c) for c in node.children]
        met = [k for k in kids if k.status == "met"]
        open_ = [k for k in kids if k.status != "met"]
        need = len(kids) if isinstance(req, AllOfRequirement) else req.n
        if len(met) >= need:
            status: Status = "met"
        elif all(k.status == "unmet" for k in kids):
            status = "unmet"
        else:
            status = "partly_met"
        missing = max(0, need - len(met))
        cheapest = sorted(open_, key=lambda k: (k.courses_needed, k.units_needed))[:missing]
        courses_needed = sum(k.courses_needed for k in cheapest)
        units_needed = _r(sum(k.units_needed for k in cheapest))
        options = sorted({o for k in open_ for o in k.options}) if status != "met" else []
        if isinstance(req, AllOfRequirement):
            if status == "met":
                why = f"all {len(kids)} parts met"
            else:
                why = (
                    f"{len(met)} of {len(kids)} parts met; still open: "
                    f"{', '.join(k.title or k.id for k in open_)}"
                )
        elif status == "met":
            why = f"{len(met)} of {len(kids)} options met; {req.n} needed"
        elif all(isinstance(a.nodes[c].req, CourseRequirement) for c in node.children):
            codes = sorted(
                r.course
                for c, k in zip(node.children, kids, strict=True)
                if k.status != "met" and isinstance(r := a.nodes[c].req, CourseRequirement)
            )
            why = f"needs {missing} more of: {', '.join(codes)}"
        else:
            why = (
                f"{len(met)} of the {req.n} needed met; needs {missing} more of: "
                f"{', '.join(k.title or k.id for k in open_)}"
            )
        return _node(
            req.id,
            req.title,
            req.kind,
            status,
            mbc,
            why,
            children=kids,
            options=options,
            courses_needed=0 if status == "met" else courses_needed,
            units_needed=0.0 if status == "met" else units_needed,
        )

    # ---- leaves

    def excluded(self, a: _Alloc, idx: int, req: _Leaf) -> set[str]:
        """Courses that cannot satisfy this leaf any more: counted elsewhere or blocked."""
        out = {
            self.allocator.pool[k][0].course
            for k in a.used
            if not self.catalog.course_by_code[self.allocator.pool[k][0].course].repeatable
        }
        for k in a.cands[idx]:
            if (
                k not in a.used
                and self.allocator.qualifying(k, req) is not None
                and self.allocator.blocker(a, k) is not None
            ):
                out.add(self.allocator.pool[k][0].course)
        return out

    def blocked_reasons(self, a: _Alloc, idx: int) -> list[str]:
        by_program: dict[str, list[str]] = {}
        for key, other in sorted(a.blocked.get(idx, {}).items()):
            if key not in a.used:
                by_program.setdefault(other, []).append(self.allocator.pool[key][0].course)
        out = []
        for other, courses in sorted(by_program.items()):
            lim = sharing_limit(a.program, self.allocator.programs[other])
            assert lim is not None
            used = sorted(self.allocator.pool[k][0].course for k in self.allocator.shared(a, other))
            by = f", already used by {', '.join(used)}" if used else ""
            verb = "counts" if len(courses) == 1 else "count"
            out.append(
                f"{', '.join(courses)} already {verb} toward {other}, and "
                f"{_limit_text(lim, other)}{by}"
            )
        return out

    def grade_reasons(self, a: _Alloc, idx: int, req: _Leaf) -> list[str]:
        out = []
        for k in a.cands[idx]:
            if k in a.used or self.allocator.qualifying(k, req) is not None:
                continue
            reasons = (
                self.allocator.disqualified(o, req.min_grade) for o in self.allocator.pool[k]
            )
            out.append(next(r for r in reasons if r is not None))
        return out

    def met_text(self, opt: _Option, min_grade: str | None) -> str:
        if opt.status == "completed":
            if opt.source == "institution":
                return f"{opt.course} completed with {opt.grade} in {opt.term}"
            label = {"transfer": "transfer", "ap": "AP", "exam": "exam"}[opt.source]
            return f"{opt.course} counted from {label} credit ({opt.grade}, {opt.term})"
        at_least = f" with at least {min_grade}" if min_grade else ""
        if opt.status == "in_progress":
            return f"{opt.course} in progress in {opt.term}, assumed passed{at_least}"
        return f"{opt.course} planned for {opt.term}, assumed passed{at_least}"

    def course_leaf(
        self, a: _Alloc, idx: int, req: CourseRequirement, mbc: bool
    ) -> RequirementAudit:
        course = self.catalog.course_by_code.get(req.course)
        units = course.units if course is not None else 0.0
        taken = a.taken.get(idx, [])
        if taken:
            why = self.met_text(taken[0], req.min_grade)
            return _node(
                req.id, req.title, "course", "met", mbc, why, counted=[self.counted(taken[0])]
            )
        reasons = [
            f"{req.course} already counts toward {a.nodes[a.used[k]].req.id} in this program"
            for k in a.cands[idx]
            if k in a.used
        ]
        reasons += self.blocked_reasons(a, idx) + self.grade_reasons(a, idx, req)
        if not reasons:
            failed = [
                x
                for x in self.student.attempts_of(req.course)
                if x.status == "completed" and x.grade is not None
            ]
            if failed:
                grades = " and ".join(f"{x.grade} in {x.term}" for x in failed)
                reasons.append(f"{req.course} earned {grades}, which earns no credit")
            else:
                at_least = f" (minimum grade {req.min_grade})" if req.min_grade else ""
                reasons.append(f"{req.course} not taken yet{at_least}")
        options = [] if req.course in self.excluded(a, idx, req) else [req.course]
        return _node(
            req.id,
            req.title,
            "course",
            "unmet",
            mbc,
            "; ".join(reasons),
            courses_needed=1,
            units_needed=_r(units),
            options=options,
        )

    def set_leaf(
        self, a: _Alloc, idx: int, req: CourseSetRequirement, mbc: bool
    ) -> RequirementAudit:
        taken = sorted(a.taken.get(idx, []), key=lambda o: (Term.parse(o.term).index, o.key))
        units = _r(sum(o.units for o in taken))
        need = _required_count(req)
        counts_ok = self.allocator.counts_ok(req, taken)
        gpa = self.allocator.set_gpa(taken) if req.min_gpa is not None else None
        gpa_ok = req.min_gpa is None or gpa is None or gpa >= req.min_gpa - _EPS
        status: Status = "met" if counts_ok and gpa_ok else "partly_met" if taken else "unmet"
        courses_needed = max(0, need - len(taken)) if need is not None else 0
        options: list[str] = []
        if status != "met":
            excluded = self.excluded(a, idx, req)
            options = sorted(
                c.code for c in self.catalog.courses if req.matches(c) and c.code not in excluded
            )
        units_left = max(0.0, req.min_units - units) if req.min_units is not None else 0.0
        # A lower bound: the cheapest options, or any matching course when too few are left.
        pick = options
        if len(options) < courses_needed:
            pick = [c.code for c in self.catalog.courses if req.matches(c)]
        cheapest = sorted(self.catalog.course_by_code[c].units for c in pick)
        units_needed = _r(max(units_left, sum(cheapest[:courses_needed])))
        if status == "met":
            courses_needed, units_needed = 0, 0.0

        have = []
        if need is not None:
            have.append(f"{len(taken)} of {_plural(need, 'course')}")
        if req.min_units is not None:
            have.append(f"{_num(units)} of {_plural(req.min_units, 'unit')}")
        grade = f" (minimum grade {req.min_grade})" if req.min_grade else ""
        parts = [f"{' and '.join(have)} counted{grade}"]
        if not counts_ok:
            more = []
            if courses_needed:
                noun = "course" if courses_needed == 1 else "courses"
                more.append(f"{courses_needed} more {noun}")
            if units_left > _EPS:
                more.append(f"{_num(_r(units_left))} more units")
            if not options:
                parts.append(f"needs {' and '.join(more)}, and no catalog course is left to count")
            elif len(options) < courses_needed:
                left = _plural(len(options), "catalog course")
                parts.append(
                    f"needs {' and '.join(more)}, but only {left} can still count: "
                    f"{_codes(options)}"
                )
            else:
                parts.append(f"needs {' and '.join(more)} from: {_codes(options)}")
        if req.min_gpa is not None and taken:
            if gpa is None:
                parts.append("GPA not known yet (no completed graded course counted)")
            elif gpa_ok:
                parts.append(f"GPA {gpa:.2f} meets the minimum {req.min_gpa:.2f}")
            else:
                parts.append(
                    f"GPA {gpa:.2f} over the counted courses is below the minimum {req.min_gpa:.2f}"
                )
        if status != "met":
            parts += self.blocked_reasons(a, idx) + self.grade_reasons(a, idx, req)
        return _node(
            req.id,
            req.title,
            "course_set",
            status,
            mbc,
            "; ".join(parts),
            counted=[self.counted(o) for o in taken],
            courses_needed=courses_needed,
            units_needed=units_needed,
            options=options,
        )

    # ---- programs

    def total_units_check(
        self, total: float, units: tuple[float, float, float]
    ) -> RequirementAudit:
        earned, in_progress, planned = units
        toward = _r(earned + in_progress + planned)
        met = toward >= total - _EPS
        status: Status = "met" if met else "partly_met" if toward > 0 else "unmet"
        why = (
            f"{_num(total)} units required; {_num(toward)} counted ({_num(earned)} earned, "
            f"{_num(in_progress)} in progress, {_num(planned)} planned)"
        )
        if not met:
            why += f"; needs {_num(_r(total - toward))} more"
        return _node(
            "total-units",
            "Total units",
            "total_units",
            status,
            earned >= total - _EPS,
            why,
            units_needed=0.0 if met else _r(total - toward),
        )

    def gpa_check(self, minimum: float, full: list[_Option]) -> RequirementAudit:
        gpa = self.allocator.set_gpa(full)  # completed courses only, so it is also the "done" GPA
        mbc = gpa is not None and gpa >= minimum - _EPS
        if gpa is None:
            status: Status = "met" if full else "unmet"
            why = f"no completed graded course counted yet; minimum program GPA {minimum:.2f}" + (
                ", assumed met" if full else ""
            )
        elif gpa >= minimum - _EPS:
            status, why = "met", f"program GPA {gpa:.2f} meets the minimum {minimum:.2f}"
        else:
            status = "partly_met"
            why = f"program GPA {gpa:.2f} is below the minimum {minimum:.2f}"
        return _node("program-gpa", "Program GPA", "program_gpa", status, mbc, why)

    def program(
        self,
        program: Program,
        order: list[str],
        what_if: bool,
        eligibility: tuple[bool, str],
        units: tuple[float, float, float],
    ) -> ProgramAudit:
        a = self.allocator.allocs[program.code]
        root = self.node(a, 0)
        all_full = [o for opts in a.taken.values() for o in opts]
        checks = []
        if program.total_units is not None:
            checks.append(self.total_units_check(program.total_units, units))
        if program.min_gpa is not None:
            checks.append(self.gpa_check(program.min_gpa, all_full))
        parts = [root, *checks]
        if all(p.status == "met" for p in parts):
            status: Status = "met"
        elif all(p.status == "unmet" for p in parts):
            status = "unmet"
        else:
            status = "partly_met"

        shared: list[SharedCourse] = []
        for key, leaf in a.used.items():
            for other in self.allocator.used_by.get(key, []):
                if other == program.code:
                    continue
                oa = self.allocator.allocs[other]
                opt = next(o for o in a.taken[leaf] if o.key == key)
                shared.append(
                    SharedCourse(
                        course=opt.course,
                        term=opt.term,
                        with_program=other,
                        requirement=a.nodes[leaf].req.id,
                        other_requirement=oa.nodes[oa.used[key]].req.id,
                    )
                )
        shared.sort(key=lambda s: (s.course, s.term, s.with_program))

        notes = []
        for other in order:
            if other == program.code:
                continue
            lim = sharing_limit(program, self.allocator.programs[other])
            codes = [s.course for s in shared if s.with_program == other]
            if lim is not None:
                rule = f" (rule {lim.rule})" if lim.rule else ""
                notes.append(
                    f"At most {_plural(lim.max_courses, 'course')} may count toward both "
                    f"{program.code} and {other}{rule}; shared: {', '.join(codes) or 'none'}."
                )
            elif codes:
                notes.append(f"Shared with {other} (no sharing limit): {', '.join(codes)}.")
            kept_out = sorted(
                {
                    self.allocator.pool[k][0].course
                    for b in a.blocked.values()
                    for k, o in b.items()
                    if o == other and k not in a.used
                }
            )
            if kept_out:
                notes.append(
                    f"Kept out of {program.code} by the limit with {other}: "
                    f"{', '.join(kept_out)} (already counted toward {other})."
                )
        earned, in_progress, planned = units
        return ProgramAudit(
            code=program.code,
            name=program.name,
            kind=program.kind,
            what_if=what_if,
            eligible=eligibility[0],
            eligibility_note=eligibility[1],
            status=status,
            met_by_completed=all(p.met_by_completed for p in parts),
            root=root,
            checks=checks,
            total_units_required=program.total_units,
            units_toward_total=(
                _r(earned + in_progress + planned) if program.total_units is not None else None
            ),
            gpa=self.allocator.set_gpa(all_full),
            shared_courses=shared,
            sharing_notes=notes,
        )


# --------------------------------------------------------------------------- entry points


def _eligibility(program: Program, majors: list[str]) -> tuple[bool, str]:
    others = [m for m in majors if m != program.code]
    bad = sorted(set(program.excluded_majors) & set(others))
    if bad:
        return False, f"{program.code} is not open to students in {', '.join(bad)}"
    if program.eligible_majors and not set(program.eligible_majors) & set(others):
        return False, (
            f"{program.code} is open only to students in "
            f"{', '.join(sorted(program.eligible_majors))}; the student's majors: "
            f"{', '.join(others) or 'none'}"
        )
    return True, ""


def _planned_units(
    catalog: Catalog, student: StudentRecord, plan: dict[str, str], warnings: list[str]
) -> float:
    current = Term.parse(student.current_term)
    have = student.earned_courses(catalog, include_in_progress=True)
    total = 0.0
    for code, term in plan.items():
        course = catalog.course_by_code.get(code)
        if course is None:
            warnings.append(f"planned course {code!r} is not in the catalog; ignored")
            continue
        if Term.parse(term) <= current:
            warnings.append(
                f"planned course {code} is in {term}, not after the current term {current.code}"
            )
        if course.repeatable or code not in have:
            total += course.units
            continue
        best = student.best_attempt(code, catalog)
        assert best is not None
        if best.status == "in_progress":
            warnings.append(f"planned course {code} ({term}) is already in progress in {best.term}")
        else:
            warnings.append(
                f"planned course {code} ({term}) was already passed with {best.grade} in "
                f"{best.term}; a retake earns no new units"
            )
    return _r(total)


def audit(
    catalog: Catalog,
    student: StudentRecord,
    programs: Sequence[str] | None = None,
    *,
    add_programs: Sequence[str] = (),
    planned: Mapping[str, str] | None = None,
) -> AuditReport:
    """Audit ``student`` against ``programs`` (default: the declared ones) plus what-if
    ``add_programs``, counting ``planned`` courses (course -> term) as future enrollments.

    Raises ``UnknownProgramError`` for a program code the catalog does not have and
    ``TermError`` for a planned term that cannot be read.
    """
    requested = list(student.programs if programs is None else programs)
    for code in [*requested, *add_programs]:
        catalog.program(code)
    warnings: list[str] = []
    order: list[str] = []
    for code in [*requested, *add_programs]:
        if code in order:
            warnings.append(f"program {code} is listed more than once; audited once")
        else:
            order.append(code)
    if student.catalog_year != catalog.catalog_year:
        warnings.append(
            f"the student follows catalog year {student.catalog_year!r} but the audit uses "
            f"the {catalog.catalog_year!r} catalog"
        )
    warnings += [f"student record: {p}" for p in check_student_against_catalog(student, catalog)]
    plan = {code: Term.parse(term).code for code, term in sorted((planned or {}).items())}
    earned = _r(student.units_earned(catalog))
    in_progress = _r(student.units_earned(catalog, include_in_progress=True) - earned)
    units_planned = _planned_units(catalog, student, plan, warnings)
    plan = {c: t for c, t in plan.items() if c in catalog.course_by_code}

    progs = [catalog.program(c) for c in order]
    allocator = _Allocator(catalog, _build_pool(catalog, student, plan), progs)
    builder = _Builder(catalog, student, allocator)
    majors = sorted(
        {
            c
            for c in student.programs
            if c in catalog.program_by_code and catalog.program_by_code[c].kind == "major"
        }
        | {p.code for p in progs if p.kind == "major"}
    )
    audits = [
        builder.program(
            p,
            order,
            p.code not in student.programs,
            _eligibility(p, majors),
            (earned, in_progress, units_planned),
        )
        for p in progs
    ]
    report = AuditReport(
        student_id=student.id,
        catalog_year=catalog.catalog_year,
        as_of_term=student.current_term,
        class_standing=student.class_standing(catalog),
        gpa=student.computed_gpa(catalog),
        units_earned=earned,
        units_in_progress=in_progress,
        units_planned=units_planned,
        programs=audits,
        all_met=all(p.status == "met" for p in audits),
        all_met_by_completed=all(p.met_by_completed for p in audits),
        warnings=warnings,
    )
    log.debug(
        "audit.done",
        student=student.id,
        programs=order,
        all_met=report.all_met,
        unmet=len(unmet(report)),
    )
    return report


def unmet(report: AuditReport) -> list[tuple[str, str, str]]:
    """(program code, requirement id, explanation) for every unmet or partly met leaf that
    keeps its program from being met (leaves under a met node are skipped), in tree order;
    the program checks ('total-units', 'program-gpa') count as leaves."""
    out: list[tuple[str, str, str]] = []

    def walk(code: str, node: RequirementAudit) -> None:
        if node.status == "met":
            return
        if not node.children:
            out.append((code, node.id, node.explanation))
        for child in node.children:
            walk(code, child)

    for program in report.programs:
        for node in [program.root, *program.checks]:
            walk(program.code, node)
    return out

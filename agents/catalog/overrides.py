"""How the audit and the planner honour a student's program exceptions: by rewriting the
requirement trees of a copy of the catalog (the student's *effective* catalog), so every
tool that reads program trees - audit, planner, verifier, critique - sees the same thing.
The effective catalog starts from the versions of the programs in the catalog years the
student follows (``agents.catalog.years``); the exceptions then apply to those versions.

Each exception becomes a change of one or more requirement leaves:

- ``substitute X for Y``: a leaf asking for course Y becomes "Y or X" (a one-course set of
  the two, same id, title and minimum grade); a course set that matches Y also matches X.
  Only requirements change: prerequisites still ask for Y.
- ``substitute X for node N`` / ``apply X to N``: leaf N also accepts X; ``apply`` also
  takes X out of every other leaf of that program (a leaf that asks for X itself can then
  only be met by another exception - the report says so).
- ``waive N``: node N becomes a course set that needs no course (met by nothing); with
  ``units_owed`` it becomes a set of that many units of any course. A course counts toward
  one node of a program, so the owed units come from courses no other node counts; when
  too few are free, the audit shares them out as it does for any requirements, earlier
  nodes of the tree first (a waived node early in the tree may take a later one's course).

An exception that names a program, node or course the catalog does not have, a group node
where a leaf is needed, or a node another exception already waived is *invalid* or
*conflicting*: it is not applied, and ``ExceptionUse`` says why. ``effective_catalog`` is
memoized with the base catalog; calling it on an effective catalog starts from the base, so
applying twice is applying once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.catalog.exceptions import (
    Application,
    Approval,
    ExceptionUse,
    ProgramException,
    Substitution,
    Waiver,
    use_of,
)
from agents.catalog.model import Catalog, with_institution
from agents.catalog.programs import Program
from agents.catalog.requirements import (
    AllOfRequirement,
    CourseRequirement,
    CourseSetRequirement,
    NOfRequirement,
    RequirementNode,
)
from agents.catalog.student import StudentRecord
from agents.catalog.years import dated_programs, years_key

_MEMO_SIZE = 32


# --------------------------------------------------------------------------- resolution


@dataclass
class Applied:
    """One program exception that passed the checks: where it acts."""

    exception: ProgramException
    program: str
    requirement: str | None  # the node for waive/apply/substitute-for-node
    leaves: list[str] = field(default_factory=list)  # leaves it changed (substitute-for-course)
    refused: list[str] = field(default_factory=list)  # leaves an applied course left (apply)


@dataclass
class Overrides:
    """The result of resolving a record's program exceptions against a catalog."""

    applied: list[Applied] = field(default_factory=list)
    rejected: list[ExceptionUse] = field(default_factory=list)


def _nodes(node: RequirementNode) -> list[RequirementNode]:
    out = [node]
    if isinstance(node, AllOfRequirement | NOfRequirement):
        for child in node.children:
            out += _nodes(child)
    return out


def _find(node: RequirementNode, node_id: str) -> RequirementNode | None:
    return next((n for n in _nodes(node) if n.id == node_id), None)


def _within(node: RequirementNode, ancestor_id: str, node_id: str) -> bool:
    """Whether ``node_id`` is ``ancestor_id`` or below it."""
    top = _find(node, ancestor_id)
    return top is not None and _find(top, node_id) is not None


def _programs_for(catalog: Catalog, student: StudentRecord, e: ProgramException) -> list[str]:
    if e.program is not None:
        return [e.program]
    own = with_institution(catalog, [p for p in student.programs if p in catalog.program_by_code])
    return own


def _locate(
    catalog: Catalog, student: StudentRecord, e: Waiver | Application | Substitution
) -> tuple[str, RequirementNode] | str:
    """The (program, node) an exception's ``requirement`` names, or why it cannot be found."""
    node_id = e.requirement
    assert node_id is not None
    if e.program is not None:
        if e.program not in catalog.program_by_code:
            return f"unknown program {e.program!r}"
        found = _find(catalog.program_by_code[e.program].requirement, node_id)
        if found is None:
            return f"program {e.program} has no requirement {node_id!r}"
        return e.program, found
    for scope in (_programs_for(catalog, student, e), [p.code for p in catalog.programs]):
        hits = [
            (code, n)
            for code in scope
            if (n := _find(catalog.program_by_code[code].requirement, node_id)) is not None
        ]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            names = ", ".join(code for code, _ in hits)
            return f"requirement {node_id!r} is in {names}; name the program"
    return f"no program has a requirement {node_id!r}"


def resolve(catalog: Catalog, student: StudentRecord) -> Overrides:
    """Check the record's program exceptions against the catalog, in record order."""
    out = Overrides()
    waived: list[tuple[str, str]] = []
    applied_courses: dict[tuple[str, str], str] = {}
    for e in student.exceptions:
        if isinstance(e, Approval):
            continue
        course = getattr(e, "course", None)
        if course is not None and course not in catalog.course_by_code:
            out.rejected.append(use_of(e, "invalid", f"course {course} is not in the catalog"))
            continue
        if isinstance(e, Substitution) and e.for_course is not None:
            if e.for_course not in catalog.course_by_code:
                out.rejected.append(
                    use_of(e, "invalid", f"course {e.for_course} is not in the catalog")
                )
                continue
            programs = _programs_for(catalog, student, e)
            unknown = [p for p in programs if p not in catalog.program_by_code]
            if unknown:
                out.rejected.append(use_of(e, "invalid", f"unknown program {unknown[0]!r}"))
                continue
            out.applied.extend(Applied(e, p, None) for p in programs)
            continue
        located = _locate(catalog, student, e)  # type: ignore[arg-type]
        if isinstance(located, str):
            out.rejected.append(use_of(e, "invalid", located))
            continue
        program, node = located
        root = catalog.program_by_code[program].requirement
        if not isinstance(e, Waiver) and not isinstance(
            node, CourseRequirement | CourseSetRequirement
        ):
            out.rejected.append(
                use_of(
                    e,
                    "invalid",
                    f"{node.id} in {program} is a group ({node.kind}); name one of its course "
                    f"or course-set parts: {', '.join(c.id for c in node.children)}",
                    program=program,
                )
            )
            continue
        cover = next((w for w in waived if w[0] == program and _within(root, w[1], node.id)), None)
        if cover is not None:
            out.rejected.append(
                use_of(
                    e,
                    "conflicting",
                    f"{node.id} in {program} is already waived (under {cover[1]})",
                    program=program,
                )
            )
            continue
        if isinstance(e, Application):
            earlier = applied_courses.get((program, e.course))
            if earlier is not None:
                out.rejected.append(
                    use_of(
                        e,
                        "conflicting",
                        f"{e.course} is already applied to {earlier} in {program}",
                        program=program,
                    )
                )
                continue
            applied_courses[(program, e.course)] = node.id
        if isinstance(e, Waiver):
            waived.append((program, node.id))
        out.applied.append(Applied(e, program, node.id))
    return out


# --------------------------------------------------------------------------- rewriting


def _either(req: CourseRequirement, extra: str) -> CourseSetRequirement:
    """A course leaf that now also accepts ``extra``: one course of the two."""
    return CourseSetRequirement(
        id=req.id,
        title=req.title or req.course,
        kind="course_set",
        courses=[req.course, extra],
        min_courses=1,
        min_grade=req.min_grade,
    )


def _accept(req: CourseRequirement | CourseSetRequirement, code: str) -> RequirementNode:
    if isinstance(req, CourseRequirement):
        return req if req.course == code else _either(req, code)
    return req.model_copy(
        update={
            "courses": [*req.courses, code] if code not in req.courses else req.courses,
            "exclude": [c for c in req.exclude if c != code],
        }
    )


def _refuse(req: CourseRequirement | CourseSetRequirement, code: str) -> RequirementNode:
    if isinstance(req, CourseRequirement):
        # Asked for the applied course itself: a set that matches nothing (still unmet).
        return CourseSetRequirement(
            id=req.id,
            title=req.title or req.course,
            kind="course_set",
            courses=[code],
            exclude=[code],
            min_courses=1,
            min_grade=req.min_grade,
        )
    if code in req.exclude:
        return req
    return req.model_copy(update={"exclude": [*req.exclude, code]})


def _waived(node: RequirementNode, owed: float | None) -> RequirementNode:
    if owed is None:
        # A set that needs no course: met by nothing (the model asks for at least one
        # course, hence construct; every reader takes a missing count as zero).
        return CourseSetRequirement.model_construct(
            id=node.id, title=node.title, kind="course_set", min_courses=0
        )
    return CourseSetRequirement(
        id=node.id, title=node.title, kind="course_set", min_level=0, min_units=owed
    )


Rewrite = Callable[[RequirementNode], RequirementNode | None]


def _map(node: RequirementNode, fn: Rewrite) -> RequirementNode:
    """``node`` with every node ``fn`` rewrites replaced (pre-order; a replaced node's
    children are not visited)."""
    new = fn(node)
    if new is not None:
        return new
    if isinstance(node, AllOfRequirement | NOfRequirement):
        kids = [_map(c, fn) for c in node.children]
        if any(a is not b for a, b in zip(kids, node.children, strict=True)):
            return node.model_copy(update={"children": kids})
    return node


def _rewrite(catalog: Catalog, program: Program, items: Sequence[Applied]) -> Program:
    root = program.requirement
    for item in items:
        e = item.exception
        if isinstance(e, Waiver):

            def waive(n: RequirementNode, e: Waiver = e) -> RequirementNode | None:
                return _waived(n, e.units_owed) if n.id == e.requirement else None

            root = _map(root, waive)
            continue
        if isinstance(e, Substitution) and e.for_course is not None:
            y, x = e.for_course, e.course

            def sub(n: RequirementNode, y: str = y, x: str = x, item: Applied = item) -> Any:
                if isinstance(n, CourseRequirement) and n.course == y:
                    item.leaves.append(n.id)
                    return _either(n, x)
                if (
                    isinstance(n, CourseSetRequirement)
                    and y in catalog.courses_matching(n)
                    and x not in catalog.courses_matching(n)
                ):
                    item.leaves.append(n.id)
                    return _accept(n, x)
                return None

            root = _map(root, sub)
            continue
        assert isinstance(e, Substitution | Application) and item.requirement is not None
        code, target = e.course, item.requirement

        def give(
            n: RequirementNode, code: str = code, target: str = target, item: Applied = item
        ) -> Any:
            if not isinstance(n, CourseRequirement | CourseSetRequirement):
                return None
            if n.id == target:
                return _accept(n, code)
            if isinstance(item.exception, Application) and _leaf_matches(catalog, n, code):
                item.refused.append(n.id)
                return _refuse(n, code)
            return None

        root = _map(root, give)
    return program.model_copy(update={"requirement": root})


def _leaf_matches(catalog: Catalog, n: CourseRequirement | CourseSetRequirement, code: str) -> bool:
    if isinstance(n, CourseRequirement):
        return n.course == code
    return code in catalog.courses_matching(n)


def _resolved(catalog: Catalog, student: StudentRecord) -> tuple[Catalog, Overrides]:
    """The effective catalog for ``student`` and the resolution it came from, memoized with
    the base catalog (the base itself and an empty resolution when the student follows
    every program's base version and has no program exceptions)."""
    base: Catalog = catalog.derived.get("overrides.base", catalog)
    program_exceptions = [e for e in student.exceptions if not isinstance(e, Approval)]
    years = years_key(base, student)
    if not program_exceptions and not years:
        return base, Overrides()
    key = (
        tuple(student.programs),
        years,
        tuple(e.model_dump_json() for e in program_exceptions),
    )
    memo: dict[Any, tuple[Catalog, Overrides]] = base.derived.setdefault("overrides", {})
    hit = memo.get(key)
    if hit is None:
        hit = _build(base, student)
        if len(memo) >= _MEMO_SIZE:
            memo.pop(next(iter(memo)))
        memo[key] = hit
    return hit


def effective_catalog(catalog: Catalog, student: StudentRecord) -> Catalog:
    """``catalog`` with ``student``'s program exceptions applied to the requirement trees
    (the catalog itself when the record has none that apply)."""
    return _resolved(catalog, student)[0]


def base_catalog(catalog: Catalog) -> Catalog:
    """The catalog an effective catalog was made from (``catalog`` itself when it is one)."""
    base: Catalog = catalog.derived.get("overrides.base", catalog)
    return base


def overrides_of(catalog: Catalog, student: StudentRecord) -> Overrides:
    """The resolution ``effective_catalog`` used for ``student`` (empty without exceptions)."""
    return _resolved(catalog, student)[1]


def _build(base: Catalog, student: StudentRecord) -> tuple[Catalog, Overrides]:
    dated = dated_programs(base, student)  # the versions of the years the student follows
    start = base if dated is None else base.model_copy(update={"programs": dated})
    found = resolve(start, student)
    if dated is None and not found.applied:
        return base, found
    by_program: dict[str, list[Applied]] = {}
    for item in found.applied:
        by_program.setdefault(item.program, []).append(item)
    programs = [
        _rewrite(start, p, by_program[p.code]) if p.code in by_program else p
        for p in start.programs
    ]
    eff = base.model_copy(update={"programs": programs})
    eff.derived["overrides.base"] = base
    # Course-set matches are keyed by node identity; unchanged nodes keep their answers.
    eff.derived["courses_matching"] = base.derived.setdefault("courses_matching", {})
    return eff, found

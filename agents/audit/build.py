"""Turns a finished course allocation into the audit's result models, with explanations.

``audit.audit`` builds one ``ProgramAudit`` per program with ``Builder.program``; the
allocation itself is ``audit_alloc`` / ``audit_search``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agents.audit.alloc import (
    EPS,
    Allocator,
    FlatNode,
    Leaf,
    Option,
    ProgramAlloc,
    required_count,
    sharing_limit,
)
from agents.audit.core import (
    CountedCourse,
    ProgramAudit,
    RequirementAudit,
    RequirementKind,
    SharedCourse,
    Status,
)
from agents.catalog import (
    AllOfRequirement,
    Catalog,
    CourseRequirement,
    CourseSetRequirement,
    NOfRequirement,
    Program,
    RequirementNode,
    SharingLimit,
    StudentRecord,
    Term,
)


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


class Builder:
    """Turns the finished allocation into result models with explanations."""

    def __init__(self, catalog: Catalog, student: StudentRecord, allocator: Allocator) -> None:
        self.catalog = catalog
        self.student = student
        self.allocator = allocator

    def counted(self, opt: Option) -> CountedCourse:
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

    def node(self, a: ProgramAlloc, idx: int) -> RequirementAudit:
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

    def group(self, a: ProgramAlloc, node: FlatNode, mbc: bool) -> RequirementAudit:
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

    def excluded(self, a: ProgramAlloc, idx: int, req: Leaf) -> set[str]:
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

    def blocked_reasons(self, a: ProgramAlloc, idx: int) -> list[str]:
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

    def grade_reasons(self, a: ProgramAlloc, idx: int, req: Leaf) -> list[str]:
        out = []
        for k in a.cands[idx]:
            if k in a.used or self.allocator.qualifying(k, req) is not None:
                continue
            reasons = (
                self.allocator.disqualified(o, req.min_grade) for o in self.allocator.pool[k]
            )
            out.append(next(r for r in reasons if r is not None))
        return out

    def met_text(self, opt: Option, min_grade: str | None) -> str:
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
        self, a: ProgramAlloc, idx: int, req: CourseRequirement, mbc: bool
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
        self, a: ProgramAlloc, idx: int, req: CourseSetRequirement, mbc: bool
    ) -> RequirementAudit:
        taken = sorted(a.taken.get(idx, []), key=lambda o: (Term.parse(o.term).index, o.key))
        units = _r(sum(o.units for o in taken))
        need = required_count(req)
        counts_ok = self.allocator.counts_ok(req, taken)
        gpa = self.allocator.set_gpa(taken) if req.min_gpa is not None else None
        gpa_ok = req.min_gpa is None or gpa is None or gpa >= req.min_gpa - EPS
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
            if units_left > EPS:
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
        met = toward >= total - EPS
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
            earned >= total - EPS,
            why,
            units_needed=0.0 if met else _r(total - toward),
        )

    def gpa_check(self, minimum: float, full: list[Option]) -> RequirementAudit:
        gpa = self.allocator.set_gpa(full)  # completed courses only, so it is also the "done" GPA
        mbc = gpa is not None and gpa >= minimum - EPS
        if gpa is None:
            status: Status = "met" if full else "unmet"
            why = f"no completed graded course counted yet; minimum program GPA {minimum:.2f}" + (
                ", assumed met" if full else ""
            )
        elif gpa >= minimum - EPS:
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

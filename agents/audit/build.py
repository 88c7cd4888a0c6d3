"""Turns a finished course allocation into the audit's result models, with explanations.

``core.audit`` builds one ``ProgramAudit`` per program with ``Builder.program``: the tree's
groups and the program checks are explained here, the leaves by ``leaves``; the allocation
itself is ``alloc`` / ``search`` / ``stages``.
"""

from __future__ import annotations

from agents.audit.alloc import EPS, Allocator, sharing_limit
from agents.audit.explain import audit_node, node_label, num, plural, rounded
from agents.audit.leaves import LeafBuilder
from agents.audit.pool import Option
from agents.audit.program import FlatNode, ProgramAlloc
from agents.audit.report import ProgramAudit, RequirementAudit, SharedCourse, Status
from agents.catalog import (
    AllOfRequirement,
    Catalog,
    CourseRequirement,
    CourseSetRequirement,
    NOfRequirement,
    Program,
    StudentRecord,
    credit_sub,
    credit_sum,
    credits_text,
    unit_name,
)


class Builder:
    """Turns the finished allocation into result models with explanations."""

    def __init__(self, catalog: Catalog, student: StudentRecord, allocator: Allocator) -> None:
        self.allocator = allocator
        self.leaves = LeafBuilder(catalog, student, allocator)

    def node(self, a: ProgramAlloc, idx: int) -> RequirementAudit:
        node = a.nodes[idx]
        mbc = idx in self.allocator.met_by_completed[a.program.code]
        if isinstance(node.req, CourseRequirement):
            out = self.leaves.course_leaf(a, idx, node.req, mbc)
        elif isinstance(node.req, CourseSetRequirement):
            out = self.leaves.set_leaf(a, idx, node.req, mbc)
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
            note = f"not needed: {node_label(parent.req)} needs {parent.req.n} and has {met} met"
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
        units_needed = rounded(credit_sum(k.units_needed for k in cheapest))
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
        return audit_node(
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

    # ---- programs

    def total_units_check(
        self, total: float, units: tuple[float, float, float]
    ) -> RequirementAudit:
        earned, in_progress, planned = units
        toward = rounded(earned + in_progress + planned)
        met = toward >= total - EPS
        status: Status = "met" if met else "partly_met" if toward > 0 else "unmet"
        why = (
            f"{credits_text(total)} required; {num(toward)} counted ({num(earned)} earned, "
            f"{num(in_progress)} in progress, {num(planned)} planned)"
        )
        if not met:
            why += f"; needs {num(rounded(total - toward))} more"
        return audit_node(
            "total-units",
            f"Total {unit_name()}",
            "total_units",
            status,
            earned >= total - EPS,
            why,
            units_needed=0.0 if met else rounded(credit_sub(total, toward)),
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
        return audit_node("program-gpa", "Program GPA", "program_gpa", status, mbc, why)

    def overlap_notes(self, a: ProgramAlloc) -> list[str]:
        """For each overlap of the program: the courses counted toward both of its nodes."""
        al = self.allocator
        ov = al.overlaps.get(a.program.code)
        if ov is None:
            return []
        held = al.held(a)
        out = []
        for r, (overlap, _, _) in enumerate(ov.rules):
            both = ov.shared(held, r)
            codes = sorted(al.pool[k][0].course for k, bit in al.bit.items() if bit & both)
            most = (
                f"at most {plural(overlap.max_courses, 'course')}"
                if overlap.max_courses is not None
                else "any course"
            )
            rule = f" (rule {overlap.rule})" if overlap.rule else ""
            out.append(
                f"{most.capitalize()} may count toward both {overlap.nodes[0]} and "
                f"{overlap.nodes[1]}{rule}; counted toward both: {', '.join(codes) or 'none'}."
            )
        return out

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
        # A course two leaves count (an overlap allows it) is in the program GPA once.
        all_full = list({o.key: o for opts in a.taken.values() for o in opts}.values())
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
                    f"At most {plural(lim.max_courses, 'course')} may count toward both "
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
        notes += self.overlap_notes(a)
        earned, in_progress, planned = units
        return ProgramAudit(
            code=program.code,
            name=program.name,
            kind=program.kind,
            catalog_year=program.catalog_year,
            what_if=what_if,
            eligible=eligibility[0],
            eligibility_note=eligibility[1],
            status=status,
            met_by_completed=all(p.met_by_completed for p in parts),
            root=root,
            checks=checks,
            total_units_required=program.total_units,
            units_toward_total=(
                rounded(earned + in_progress + planned) if program.total_units is not None else None
            ),
            gpa=self.allocator.set_gpa(all_full),
            shared_courses=shared,
            sharing_notes=notes,
        )

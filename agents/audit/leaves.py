"""Audits of requirement leaves (one course, or a course set) with their explanations: what
counted, and why anything else could not (counted elsewhere, kept out by a sharing limit, an
overlap's limit or a cap of the set, a grade below the minimum, not taken yet, too few
subjects, a minimum from a sub-list missed). ``build`` calls them for each leaf of a program.
"""

from __future__ import annotations

from agents.audit.alloc import EPS, Allocator, sharing_limit
from agents.audit.explain import (
    audit_node,
    code_list,
    limit_text,
    num,
    plural,
    rounded,
)
from agents.audit.forms import cap_label, cap_limit
from agents.audit.leaf_notes import minimum_courses, minimum_parts, overlap_reasons
from agents.audit.pool import Option
from agents.audit.program import Leaf, ProgramAlloc, required_count
from agents.audit.report import CountedCourse, RequirementAudit, Status
from agents.catalog import (
    Catalog,
    CourseRequirement,
    CourseSetRequirement,
    StudentRecord,
    Term,
    credit_sub,
    credit_sum,
    credits_noun,
    credits_text,
)


class LeafBuilder:
    """Audits one leaf of a program's allocation, with the reasons it is not met."""

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
            units=rounded(opt.units),
            status=opt.status,
            source=opt.source,
            note=opt.note,
        )

    def excluded(self, a: ProgramAlloc, idx: int, req: Leaf) -> set[str]:
        """Courses that cannot satisfy this leaf any more: counted elsewhere or blocked."""
        al = self.allocator
        out = {
            al.pool[k][0].course
            for k in a.used
            if not self.catalog.course_by_code[al.pool[k][0].course].repeatable
            and not (al.overlaps and al.may_join(a, idx, k))
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
                f"{limit_text(lim, other)}{by}"
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

    @staticmethod
    def spread_text(left: int, courses: int, some: bool) -> str:
        """How the courses still needed must spread over subjects, ending in a comma."""
        if not some:
            return f" in at least {plural(left, 'subject')},"
        where = "a subject" if left == 1 else f"{left} subjects"
        if courses > left:
            where = f"at least {left} in " + ("a subject" if left == 1 else "subjects")
            return f", {where} not counted yet (subject distribution unmet),"
        return f" in {where} not counted yet (subject distribution unmet),"

    def distributed_options(
        self,
        a: ProgramAlloc,
        idx: int,
        req: CourseSetRequirement,
        options: list[str],
        subjects: list[str] | None,
        short: set[int] | None,
    ) -> list[str]:
        """What could still help a distributed set: not the student's own courses (the
        search found they cannot; ``cap_reasons`` says why), not a course no cap lets
        count, and once the count is reached (``subjects`` / ``short`` given) only courses
        of a subject not counted yet (when short of subjects) or of a minimum it misses."""
        mine = {o.course for o in self.allocator.candidates(a, idx, req) if o.key not in a.used}
        forms = self.allocator.forms
        out = [c for c in options if c not in mine and not forms.never_counts(req, c)]
        if subjects is not None or short is not None:
            by_code = self.catalog.course_by_code
            out = [
                c
                for c in out
                if (subjects is not None and by_code[c].subject_code not in subjects)
                or (short and short.intersection(forms.minimums_of(req, c)))
            ]
        return out

    def cap_reasons(
        self, a: ProgramAlloc, idx: int, req: CourseSetRequirement, taken: list[Option]
    ) -> list[str]:
        """Courses that could count here but for a cap the counted courses have reached."""
        forms = self.allocator.forms
        kept: dict[int, list[str]] = {}
        for opt in self.allocator.candidates(a, idx, req):
            if opt.key in a.used:
                continue
            i = forms.broken_cap(req, [*taken, opt])
            if i is not None:
                kept.setdefault(i, []).append(opt.course)
        out = []
        for i, courses in sorted(kept.items()):
            cap = req.caps[i]
            inside = [o.course for o in taken if i in forms.caps_of(req, o.course)]
            verb = "does" if len(inside) == 1 else "do"
            counted = f", and {code_list(inside)} already {verb}" if inside else ""
            out.append(
                f"{code_list(courses)} cannot count (cap reached): of {cap_label(cap)}, "
                f"{cap_limit(cap)} may count{counted}"
            )
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
            return audit_node(
                req.id, req.title, "course", "met", mbc, why, counted=[self.counted(taken[0])]
            )
        ov = self.allocator.overlaps.get(a.program.code)
        reasons = []
        for k in a.cands[idx]:  # counted by a leaf this one may not share it with
            held = self.allocator.leaves_of(a, k)
            blocking = [j for j in held if ov is None or ov.rule(idx, j) is None]
            if blocking:
                node = a.nodes[blocking[0]].req.id
                reasons.append(f"{req.course} already counts toward {node} in this program")
        reasons += overlap_reasons(self.allocator, a, idx)
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
        return audit_node(
            req.id,
            req.title,
            "course",
            "unmet",
            mbc,
            "; ".join(reasons),
            courses_needed=1,
            units_needed=rounded(units),
            options=options,
        )

    def set_leaf(
        self, a: ProgramAlloc, idx: int, req: CourseSetRequirement, mbc: bool
    ) -> RequirementAudit:
        taken = sorted(a.taken.get(idx, []), key=lambda o: (Term.parse(o.term).index, o.key))
        units = rounded(credit_sum(o.units for o in taken))
        need = required_count(req)
        counts_ok = self.allocator.counts_ok(req, taken)
        gpa = self.allocator.set_gpa(taken) if req.min_gpa is not None else None
        gpa_ok = req.min_gpa is None or gpa is None or gpa >= req.min_gpa - EPS
        forms = self.allocator.forms
        subjects = forms.subjects(taken) if req.min_subjects is not None else []
        spread_left = max(0, (req.min_subjects or 0) - len(subjects))
        missed = forms.short(req, taken) if req.minimums else []
        met = counts_ok and gpa_ok and not spread_left and not missed
        status: Status = "met" if met else "partly_met" if taken else "unmet"
        count_left = max(0, need - len(taken)) if need is not None else 0
        courses_needed = max(count_left, spread_left, minimum_courses(self.allocator, req, missed))
        options: list[str] = []
        if status != "met":
            excluded = self.excluded(a, idx, req)
            options = sorted(self.catalog.courses_matching(req) - set(excluded))
            if req.distributed:
                focus = counts_ok and (spread_left > 0 or bool(missed))
                options = self.distributed_options(
                    a,
                    idx,
                    req,
                    options,
                    subjects if focus and spread_left else None,
                    {i for i, _, _ in missed} if focus and missed else None,
                )
        units_left = (
            max(0.0, credit_sub(req.min_units, units)) if req.min_units is not None else 0.0
        )

        # A lower bound: the cheapest options, or any matching course when too few are left.
        pick = options
        if len(options) < courses_needed:
            pick = [c.code for c in self.catalog.courses if req.matches(c)]
        cheapest = sorted(self.catalog.course_by_code[c].units for c in pick)
        units_needed = rounded(max(units_left, credit_sum(cheapest[:courses_needed])))
        units_needed = max([units_needed, *(rounded(u) for _, _, u in missed)])
        if status == "met":
            courses_needed, units_needed = 0, 0.0

        have = []
        if need is not None:
            have.append(f"{len(taken)} of {plural(need, 'course')}")
        if req.min_units is not None:
            have.append(f"{num(units)} of {credits_text(req.min_units)}")
        grade = f" (minimum grade {req.min_grade})" if req.min_grade else ""
        parts = [f"{' and '.join(have)} counted{grade}"]
        if req.min_subjects is not None and taken:
            parts.append(
                f"from {plural(len(subjects), 'subject')} ({', '.join(subjects)}) "
                f"of the {req.min_subjects} needed"
            )
        if not counts_ok or spread_left:
            more = []
            if courses_needed:
                noun = "course" if courses_needed == 1 else "courses"
                more.append(f"{courses_needed} more {noun}")
            if units_left > EPS:
                short = rounded(units_left)
                more.append(f"{num(short)} more {credits_noun(short)}")
            wanted = " and ".join(more)
            if spread_left:
                wanted += self.spread_text(spread_left, courses_needed, bool(taken))
            if not options:
                parts.append(f"needs {wanted.rstrip(',')}, and no catalog course is left to count")
            elif len(options) < courses_needed:
                left = plural(len(options), "catalog course")
                parts.append(
                    f"needs {wanted.rstrip(',')}, but only {left} can still count: "
                    f"{code_list(options)}"
                )
            else:
                parts.append(f"needs {wanted} from: {code_list(options)}")
        if req.minimums:
            have_min, needs_min = minimum_parts(self.allocator, req, taken, missed, options)
            parts[1:1] = ["; ".join(have_min)] if taken else []
            parts += needs_min
        if req.min_gpa is not None and taken:
            if gpa is None:
                parts.append("GPA not known yet (no completed graded course counted)")
            elif gpa_ok:
                parts.append(f"GPA {gpa:.2f} meets the minimum {req.min_gpa:.2f}")
            else:
                parts.append(
                    f"GPA {gpa:.2f} over the counted courses is below the minimum {req.min_gpa:.2f}"
                )
        parts += self.cap_reasons(a, idx, req, taken)
        if status != "met":
            parts += self.blocked_reasons(a, idx) + self.grade_reasons(a, idx, req)
            parts += overlap_reasons(self.allocator, a, idx)
        return audit_node(
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

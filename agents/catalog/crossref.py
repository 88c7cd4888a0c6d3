"""Cross-reference checks of a typed catalog: what a JSON Schema cannot see.

Every reference must resolve (courses, programs, grades, policy rules, documents and their
sections), ids must be unique, sections must fall in terms the course is offered, terms
listed as published must have sections (``offerings.offering_problems``), and the
prerequisite graph must have no cycle. Each problem names the JSON path and the item.
"""

from __future__ import annotations

from collections.abc import Iterable

from agents.catalog.codes import code_problems
from agents.catalog.model import Catalog
from agents.catalog.offerings import offering_problems
from agents.catalog.policies import Document
from agents.catalog.prereq import CourseCond, ProgramCond, courses_in, iter_prereq
from agents.catalog.programs import Program
from agents.catalog.requirements import (
    AllOfRequirement,
    CourseCap,
    CourseMinimum,
    CourseRequirement,
    CourseSetRequirement,
    NOfRequirement,
    RequirementNode,
    pattern_matches,
)
from agents.catalog.rulecheck import rule_problems
from agents.catalog.session_offerings import offering_problem
from agents.catalog.years import version_problems
from agents.errors import TermError


def _dupes(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        if item in seen and item not in out:
            out.append(item)
        seen.add(item)
    return out


def _walk_req(node: RequirementNode, path: str) -> Iterable[tuple[RequirementNode, str]]:
    yield node, path
    if isinstance(node, AllOfRequirement | NOfRequirement):
        for i, c in enumerate(node.children):
            yield from _walk_req(c, f"{path}.children[{i}]")


def _grade_problems(cat: Catalog, grade: str | None, where: str) -> list[str]:
    if grade is None or grade in cat.grade_by_symbol:
        return []
    scale = ", ".join(g.grade for g in cat.grade_scale)
    return [f"{where}: unknown grade {grade!r}; the grade scale has {scale}"]


def _program_problems(cat: Catalog, prog: Program, at: str) -> list[str]:
    """Unresolved references and duplicate ids of one program (or one of its versions)."""
    problems: list[str] = []
    codes = cat.course_by_code
    programs = cat.program_by_code

    def grade_ok(grade: str | None, where: str) -> None:
        problems.extend(_grade_problems(cat, grade, where))

    ids = []
    for node, path in _walk_req(prog.requirement, f"{at}.requirement"):
        ids.append(node.id)
        if isinstance(node, CourseRequirement):
            if node.course not in codes:
                problems.append(f"{path}: unknown course {node.course!r}")
            grade_ok(node.min_grade, path)
        elif isinstance(node, NOfRequirement) and node.n > len(node.children):
            problems.append(f"{path}: n_of needs {node.n} of only {len(node.children)} children")
        elif isinstance(node, CourseSetRequirement):
            for code in [*node.courses, *node.exclude]:
                if code not in codes:
                    problems.append(f"{path}: unknown course {code!r}")
            grade_ok(node.min_grade, path)
            if node.min_courses is None and node.min_units is None:
                problems.append(f"{path}: course_set needs min_courses or min_units")
            for pat in node.patterns:
                if not any(pattern_matches(pat, c) for c in codes):
                    problems.append(f"{path}: pattern {pat!r} matches no course")
            for attr in node.attributes:
                if not any(attr in c.attributes for c in cat.courses):
                    problems.append(f"{path}: attribute {attr!r} is on no course")
            problems.extend(_form_problems(cat, node, path))
    for d in _dupes(ids):
        problems.append(f"{at}.requirement: duplicate requirement id {d!r}")
    for j, overlap in enumerate(prog.overlaps):
        if overlap.rule is not None and overlap.rule not in cat.rule_by_id:
            problems.append(f"{at}.overlaps[{j}]: unknown policy rule {overlap.rule!r}")
    for j, lim in enumerate(prog.sharing):
        if lim.with_program is not None and lim.with_program not in programs:
            problems.append(f"{at}.sharing[{j}]: unknown program {lim.with_program!r}")
        if lim.rule is not None and lim.rule not in cat.rule_by_id:
            problems.append(f"{at}.sharing[{j}]: unknown policy rule {lim.rule!r}")
    for field in ("eligible_majors", "excluded_majors"):
        for code in getattr(prog, field):
            if code not in programs:
                problems.append(f"{at}.{field}: unknown program {code!r}")
        if prog.kind == "institution" and getattr(prog, field):
            problems.append(
                f"{at}.{field}: the institution's requirements apply to every student; "
                f"remove {field}"
            )
    if prog.document is not None and prog.document not in cat.document_by_id:
        problems.append(f"{at}.document: unknown document {prog.document!r}")
    if prog.concentration_required and prog.kind != "major":
        problems.append(
            f"{at}.concentration_required: only a major requires a concentration; this "
            f"program is a {prog.kind} - remove the field"
        )
    elif prog.concentration_required and not concentrations_of(cat, prog.code):
        problems.append(
            f"{at}.concentration_required: no program of kind 'concentration' names "
            f"{prog.code} in its eligible_majors - add its concentrations or remove the field"
        )
    return problems


def concentrations_of(cat: Catalog, major: str) -> list[str]:
    """Codes of the concentrations a student of ``major`` may declare, in catalog order."""
    return [
        p.code for p in cat.programs if p.kind == "concentration" and major in p.eligible_majors
    ]


def reference_problems(cat: Catalog) -> list[str]:
    """Every reference that does not resolve, every duplicate id, every prerequisite cycle."""
    problems: list[str] = []
    codes = cat.course_by_code
    programs = cat.program_by_code

    for kind, items in (
        ("course code", [c.code for c in cat.courses]),
        ("program code", [p.code for p in cat.programs]),
        ("policy rule id", [r.id for r in cat.policies]),
        ("document id", [d.id for d in cat.documents]),
    ):
        for d in _dupes(items):
            problems.append(f"duplicate {kind} {d!r}")
    problems += code_problems([c.code for c in cat.courses], cat.course_code_pattern)

    def grade_ok(grade: str | None, where: str) -> None:
        problems.extend(_grade_problems(cat, grade, where))

    for i, c in enumerate(cat.courses):
        at = f"$.courses[{i}] ({c.code})"
        for field in ("prerequisites", "corequisites"):
            for n in iter_prereq(getattr(c, field)):
                if isinstance(n, CourseCond):
                    if n.course not in codes:
                        problems.append(f"{at}.{field}: unknown course {n.course!r}")
                    elif n.course == c.code:
                        problems.append(f"{at}.{field}: the course requires itself")
                    grade_ok(n.min_grade, f"{at}.{field}")
                elif isinstance(n, ProgramCond) and n.program not in programs:
                    problems.append(f"{at}.{field}: unknown program {n.program!r}")
        for a in c.antirequisites:
            if a not in codes:
                problems.append(f"{at}.antirequisites: unknown course {a!r}")
        for field in ("open_to_programs", "closed_to_programs"):
            for prog in getattr(c, field):
                if prog not in programs:
                    problems.append(f"{at}.{field}: unknown program {prog!r}")
        for d in _dupes(f"{s.term}/{s.id}" for s in c.sections):
            problems.append(f"{at}.sections: duplicate section {d!r}")
        cal = cat.calendar
        bad_kinds = [w for w in c.offered.terms if cal.kind_code(w) is None]
        for w in bad_kinds:
            problems.append(
                f"{at}.offered.terms: {w!r} is not a kind of term of the catalog's calendar; "
                "use a code, name or alias of "
                + ", ".join(f"{k.code} ({k.name})" for k in cal.terms)
            )
        for w in c.offered.terms:  # a session its kind does not have ('summer:IV')
            if (why := offering_problem(cal, w)) is not None:
                problems.append(f"{at}.offered.terms: {why}")
        for j, code in enumerate(c.offered.only_in):
            try:
                only = cal.parse(code)
            except TermError as exc:
                problems.append(f"{at}.offered.only_in[{j}]: {exc}")
                continue
            if not bad_kinds and not cal.offered(c.offered.terms, only):
                problems.append(
                    f"{at}.offered.only_in[{j}]: {code!r} is not one of the kinds of term the "
                    f"course runs in ({', '.join(c.offered.terms)}); add its kind to "
                    "offered.terms or correct the term"
                )
        for j, s in enumerate(c.sections):
            try:
                term = cal.parse(s.term)
            except TermError as exc:
                problems.append(f"{at}.sections[{j}].term: {exc}")
                continue
            if not bad_kinds and not c.offered.offered_in(term):
                problems.append(
                    f"{at}.sections[{j}]: section {s.id!r} is in {s.term}, a term the course "
                    f"is not offered (offered: {', '.join(c.offered.terms)}, "
                    f"{c.offered.years} year)"
                )
            for k, m in enumerate(s.meetings):
                if m.end <= m.start:
                    problems.append(
                        f"{at}.sections[{j}].meetings[{k}]: ends at {m.end} before it starts "
                        f"at {m.start}"
                    )

    for i, prog in enumerate(cat.programs):
        problems += _program_problems(cat, prog, f"$.programs[{i}] ({prog.code})")
    for i, prog in enumerate(cat.program_versions):
        at = f"$.program_versions[{i}] ({prog.code} {prog.catalog_year})"
        problems += _program_problems(cat, prog, at)
    problems += version_problems(cat)

    doc: Document | None  # a policy may cite an unknown document
    for i, doc in enumerate(cat.documents):
        for d in _dupes(s.id for s in doc.sections):
            problems.append(f"$.documents[{i}] ({doc.id}): duplicate section id {d!r}")

    for i, rule in enumerate(cat.policies):
        at = f"$.policies[{i}] ({rule.id})"
        doc = cat.document_by_id.get(rule.citation.document)
        if doc is None:
            problems.append(f"{at}.citation.document: unknown document {rule.citation.document!r}")
        elif not any(s.id == rule.citation.section for s in doc.sections):
            problems.append(
                f"{at}.citation.section: document {doc.id!r} has no section "
                f"{rule.citation.section!r}; it has {', '.join(s.id for s in doc.sections)}"
            )

    problems.extend(rule_problems(cat))
    problems.extend(offering_problems(cat))
    problems.extend(_cycle_problems(cat))
    return problems


def _form_problems(cat: Catalog, node: CourseSetRequirement, path: str) -> list[str]:
    """Subjects, levels, distribution and caps of a course set that cannot work."""
    problems: list[str] = []
    subjects = {c.subject_code for c in cat.courses}
    codes = cat.course_by_code
    parts: list[tuple[CourseSetRequirement | CourseCap | CourseMinimum, str]] = [(node, path)]
    parts += [(c, f"{path}.caps[{i}]") for i, c in enumerate(node.caps)]
    parts += [(m, f"{path}.minimums[{i}]") for i, m in enumerate(node.minimums)]
    for sel, where in parts:
        for s in sel.subjects:
            if s not in subjects:
                problems.append(f"{where}: subject {s!r} has no course")
        if sel is not node:
            for code in sel.courses:
                if code not in codes:
                    problems.append(f"{where}: unknown course {code!r}")
    restricted = node.subjects or node.min_level is not None or node.max_level is not None
    if not (restricted or node.distributed):
        return problems
    matching = [cat.course_by_code[c] for c in sorted(cat.courses_matching(node))]
    if restricted and not matching:
        problems.append(f"{path}: no course matches the set (subjects and levels included)")
    have = len({c.subject_code for c in matching})
    if node.min_subjects is not None and matching and have < node.min_subjects:
        problems.append(
            f"{path}: min_subjects is {node.min_subjects} but the matching courses come from "
            f"only {have} subject{'s' if have != 1 else ''}"
        )
    for i, cap in enumerate(node.caps):
        if matching and not any(cap.matches(c) for c in matching):
            problems.append(
                f"{path}.caps[{i}]: the cap's selector matches none of the set's courses"
            )
    for i, low in enumerate(node.minimums):
        inside = [c for c in matching if low.matches(c)]
        if matching and not inside:
            problems.append(
                f"{path}.minimums[{i}]: the minimum's selector matches none of the set's courses"
            )
        elif inside and len(inside) < (low.min_courses or 0):
            problems.append(
                f"{path}.minimums[{i}]: min_courses is {low.min_courses} but only "
                f"{len(inside)} of the set's courses match the minimum"
            )
    if node.min_courses is not None and node.caps and matching:
        # An upper bound on what can count: each capped course charged to its first cap.
        free = sum(not any(cap.matches(c) for cap in node.caps) for c in matching)
        charged = [0] * len(node.caps)
        for c in matching:
            first = next((i for i, cap in enumerate(node.caps) if cap.matches(c)), None)
            if first is not None:
                charged[first] += 1
        most = free + sum(
            n if cap.max_courses is None else min(n, cap.max_courses)
            for n, cap in zip(charged, node.caps, strict=True)
        )
        if most < node.min_courses:
            problems.append(
                f"{path}: min_courses is {node.min_courses} but the caps let at most {most} "
                "matching courses count"
            )
    return problems


def _cycle_problems(cat: Catalog) -> list[str]:
    graph = {
        c.code: [p for p in courses_in(c.prerequisites) if p in cat.course_by_code]
        for c in cat.courses
    }
    state: dict[str, int] = {}
    stack: list[str] = []
    found: list[str] = []
    seen_cycles: set[frozenset[str]] = set()

    def visit(code: str) -> None:
        state[code] = 1
        stack.append(code)
        for nxt in graph[code]:
            if state.get(nxt) == 1:
                cycle = [*stack[stack.index(nxt) :], nxt]
                key = frozenset(cycle)
                if key not in seen_cycles:
                    seen_cycles.add(key)
                    found.append("prerequisite cycle: " + " -> ".join(cycle))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[code] = 2

    for code in sorted(graph):
        if code not in state:
            visit(code)
    return found

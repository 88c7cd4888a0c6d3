"""Risks of single planned courses that no policy rule states, for the critique.

- consent: a course whose prerequisites the plan meets only with someone's signature - one
  risk per course, in the term it is first planned;
- alternate-year offerings: a course that fills a requirement naming it alone and whose
  next offering after the planned one (``agents.catalog.next_offered``: the pattern and the
  published schedules) is past graduation;
- possibly discontinued courses (``status: dormant``): one risk per course, naming when it
  last ran (``agents.catalog.dormant_note``), whatever slot it fills; so is a course planned
  in a kind of term whose runs have lapsed (``agents.catalog.history.lapse_note``: "last ran
  in Fall 2019; its pattern promised 3 fall runs since that did not happen");
- a course a student arranges (``free_elective`` false: an internship, independent study)
  counted toward a requirement that lets it in only by number, subject or level, and not
  asked for: the planner takes one only where no regular course fits
  (``agents.planner.risky``), and it still has to be arranged.
"""

from __future__ import annotations

from agents.artifacts import Risk
from agents.catalog import (
    AllOf,
    AnyOf,
    ConsentCond,
    CourseCond,
    CourseRequirement,
    CourseSetRequirement,
    PrereqNode,
    RequirementNode,
    Term,
    dormant_note,
    next_offered,
)
from agents.catalog.history import lapse_note
from agents.policy import PlanCheck, label

LOOKAHEAD = 12
"""How many terms after a planned one the next offering is looked for."""


def course_risks(ctx: PlanCheck) -> list[Risk]:
    """Consent, alternate-year offerings, possibly discontinued and arranged courses."""
    return consent_risks(ctx) + offering_risks(ctx) + dormant_risks(ctx) + arranged_risks(ctx)


def consent_risks(ctx: PlanCheck) -> list[Risk]:
    """Courses whose prerequisites can only be met with someone's consent, once each."""
    have: set[str] = set()
    if ctx.record is not None:
        have = ctx.record.earned_courses(ctx.catalog, include_in_progress=True)
    risks: list[Risk] = []
    said: set[str] = set()
    for t in ctx.enrolled_terms:
        for sc in t.courses:
            course = ctx.catalog.course_by_code.get(sc.course)
            tree = course.prerequisites if course else None
            who = _consenters(tree)
            if tree is not None and who and not _holds(tree, have) and sc.course not in said:
                said.add(sc.course)
                risks.append(
                    Risk(
                        kind="consent_needed",
                        message=f"{sc.course} in {label(t.term)} needs {' or '.join(who)} "
                        "consent before registration",
                        term=t.term,
                    )
                )
        have |= {sc.course for sc in t.courses}
    return risks


def _holds(node: PrereqNode, have: set[str]) -> bool:
    """Whether the tree holds without consent. Standing, units and program conditions
    count as met: the verifier checks them; this is only about who must sign."""
    if isinstance(node, CourseCond):
        return node.course in have
    if isinstance(node, ConsentCond):
        return False
    if isinstance(node, AllOf):
        return all(_holds(c, have) for c in node.all)
    if isinstance(node, AnyOf):
        return any(_holds(c, have) for c in node.any)
    return True


def _consenters(node: PrereqNode | None) -> list[str]:
    if isinstance(node, ConsentCond):
        return [node.consent]
    children = node.all if isinstance(node, AllOf) else node.any if isinstance(node, AnyOf) else []
    return sorted({w for c in children for w in _consenters(c)})


def offering_risks(ctx: PlanCheck) -> list[Risk]:
    """Alternate-year courses whose next offering after the planned one is past graduation:
    a failed or dropped attempt would delay the degree by a year or more."""
    grad = ctx.schedule.graduation_term
    if grad is None:
        return []
    end = Term.parse(grad)
    risks: list[Risk] = []
    for t in ctx.enrolled_terms:
        for sc in t.courses:
            course = ctx.catalog.course_by_code.get(sc.course)
            if course is None or course.offered.years == "every":
                continue
            if not _named_requirement(ctx, sc.satisfies, sc.course):
                continue  # an elective slipping has every-year substitutes
            nxt = next_offered(ctx.catalog, course, Term.parse(t.term), LOOKAHEAD)
            if nxt is not None and nxt <= end:
                continue
            when = f"next offered {nxt.label()}" if nxt else "not offered again soon"
            risks.append(
                Risk(
                    kind="offering",
                    message=f"{sc.course} runs only in {course.offered.years} years; if it "
                    f"slips from {label(t.term)} it is {when}, after graduation in {end.label()}",
                    term=t.term,
                )
            )
    return risks


def dormant_risks(ctx: PlanCheck) -> list[Risk]:
    """Planned courses that may be discontinued (the planner takes one only where no other
    course serves): the course, when it last ran, and what to do before relying on it."""
    risks: list[Risk] = []
    said: set[str] = set()
    for t in ctx.enrolled_terms:
        for sc in t.courses:
            course = ctx.catalog.course_by_code.get(sc.course)
            if course is None or sc.course in said:
                continue
            note = dormant_note(ctx.catalog, course)
            if note is None:  # a run its records do not back (``agents.catalog.history``)
                note = lapse_note(ctx.catalog, course, Term.parse(t.term))
            if note is None:
                continue
            said.add(sc.course)
            risks.append(
                Risk(
                    kind="offering",
                    message=f"{note}; it is planned in {label(t.term)} - confirm with the "
                    "department that it will run, or ask for a substitute",
                    term=t.term,
                )
            )
    return risks


def arranged_risks(ctx: PlanCheck) -> list[Risk]:
    """Arranged courses (an internship, independent study) the plan counts toward a
    requirement that does not name them, without the student asking for them."""
    c = ctx.schedule.constraints
    asked = set(c.include) | set(c.fixed) | set(c.forced) if c is not None else set()
    risks: list[Risk] = []
    for t in ctx.enrolled_terms:
        for sc in t.courses:
            course = ctx.catalog.course_by_code.get(sc.course)
            if course is None or course.free_elective or sc.course in asked:
                continue
            nodes = [n for key in sc.satisfies if (n := _node(ctx, key)) is not None]
            if not nodes or any(_names(n, course.code, course.attributes) for n in nodes):
                continue
            where = ", ".join(n.title or n.id for n in nodes)
            risks.append(
                Risk(
                    kind="other",
                    message=f"{sc.course} ({course.title}) is arranged with the department "
                    f"rather than enrolled in like a regular course; the plan counts it "
                    f"toward {where} in {label(t.term)} only because no regular course fits "
                    "there - arrange it early, or ask an advisor for a substitute",
                    term=t.term,
                )
            )
    return risks


def _node(ctx: PlanCheck, key: str) -> RequirementNode | None:
    """The requirement node ``key`` ('PROGRAM/requirement-id') names, if any."""
    program, _, req_id = key.partition("/")
    prog = ctx.catalog.program_by_code.get(program)
    stack: list[RequirementNode] = [prog.requirement] if prog is not None else []
    while stack:
        node = stack.pop()
        if node.id == req_id:
            return node
        stack.extend(getattr(node, "children", []))
    return None


def _names(node: RequirementNode, code: str, attributes: list[str]) -> bool:
    """Whether ``node`` names the course (by code or attribute), not merely lets it in."""
    if isinstance(node, CourseRequirement):
        return node.course == code
    if isinstance(node, CourseSetRequirement):
        return code in node.courses or bool(set(node.attributes) & set(attributes))
    return False


def _named_requirement(ctx: PlanCheck, satisfies: list[str], code: str) -> bool:
    """Whether the course fills a requirement that names it alone (no substitute)."""
    for key in satisfies:
        node = _node(ctx, key)
        if isinstance(node, CourseRequirement):
            return node.course == code
    return False

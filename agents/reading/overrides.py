"""The student's own overrides of the plan, read at intake: courses pinned to a term and
courses forced into the plan.

- A **pin** ("I want 15-445 in Fall 2027") keeps a course in one term. The course must be
  in the catalog, the term readable and after the current term. A pin to a term the course
  is not offered in is asked about (the plan could not keep it) unless the course is also
  forced.
- A **forced** course ("put 15-440 in even though I don't have 15-213 yet") is planned
  although its prerequisite or offering check fails: the planner leaves those checks out
  for it, the verifier still reports what fails, and the critique turns that into a
  warning and a risk instead of refusing the plan.

Pinned and forced courses are wanted courses too; a course both pinned or forced and
avoided is asked about.
"""

from __future__ import annotations

from agents.artifacts import PlanRequest
from agents.catalog import Catalog, Term, not_offered, offered_in
from agents.catalog.lookup import find_course
from agents.llm import IntakeExtraction
from agents.reading.goals import Collector, term_or_ask


def read_overrides(
    request: PlanRequest,
    ext: IntakeExtraction,
    catalog: Catalog,
    current: Term,
    avoid: list[str],
    c: Collector,
) -> tuple[dict[str, str], list[str]]:
    """The pins (course -> term code) and forced courses of ``request`` (the text's where
    the request gives none), each checked against the catalog."""
    forced: list[str] = []
    for said in request.force_courses or ext.force_courses:
        code = find_course(catalog, said) or said  # any case and spacing: 'cs101'
        if code not in catalog.course_by_code:
            c.ask("force_courses", f"{code!r} is not a course in the catalog", code)
        elif code in avoid:
            c.ask("force_courses", f"{code} is both forced and to be avoided; which is it?", code)
        elif code not in forced:
            forced.append(code)
    pins: dict[str, str] = {}
    text_pins = {p.course: p.term for p in ext.pins}
    for said, when in (request.pin_courses or text_pins).items():
        code = find_course(catalog, said) or said
        course = catalog.course_by_code.get(code)
        if course is None:
            c.ask("pin_courses", f"{code!r} is not a course in the catalog", code)
            continue
        if code in avoid:
            c.ask("pin_courses", f"{code} is both pinned and to be avoided; which is it?", code)
            continue
        term = term_or_ask(when, "pin_courses", c)
        if term is None:
            continue
        if term <= current:
            c.ask(
                "pin_courses",
                f"{code} is pinned to {term.label()}, which is not after the current term "
                f"{current.label()}; which term should it be in?",
                code,
            )
            continue
        if not offered_in(catalog, course, term) and code not in forced:
            why = f"({_offered(course.offered.terms)})"
            if course.status == "retired" or course.offered.offered_in(term):
                why = "(" + (not_offered(catalog, course, term) or "").partition(": ")[2] + ")"
            c.ask(
                "pin_courses",
                f"{code} is not offered in {term.label()} {why}; "
                f"pin it to a term it runs in, or force it if the department has agreed to "
                "run it then",
                code,
            )
            continue
        pins[code] = term.code
        c.notes.append(f"{code} is pinned to {term.label()}")
    for code in forced:
        where = f" in {Term.parse(pins[code]).label()}" if code in pins else ""
        c.notes.append(
            f"{code} is forced into the plan{where}: its prerequisite and offering checks "
            "are reported as risks, not refusals"
        )
    return pins, forced


def _offered(kinds: list[str]) -> str:
    return f"offered in {', '.join(kinds)}" if kinds else "not offered in any term"

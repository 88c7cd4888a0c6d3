"""Finding a program or a course from what a person types, and where a course is used.

``resolve_program`` accepts what the catalog itself lists for a program: its code in any
case ('cs-min'), an alias ('business minor') or its name, ignoring case and extra spaces.
It does no fuzzy matching: the free-text reader (``agents.llm.textparse_programs``) guesses
from context words, a lookup does not - and the catalog layer may not import the LLM layer.
``resolve_course`` and ``find_course`` accept a course code in any case and spacing, with or
without separators ('cs101', 'CS-101' and 'cs 101' for 'CS 101', '15150' for '15-150':
``agents.catalog.codes.code_key``, the one comparison of codes every lookup uses); an unknown
one is answered with the nearest codes (``difflib``). ``respell_courses`` writes a student
record's course codes as the catalog does. ``program_uses`` lists the requirements that count
a course.

The two errors below belong beside their parents in ``agents.errors``; they live here
until that module gains them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from agents.catalog.codes import SUGGESTIONS as SUGGESTIONS
from agents.catalog.exceptions import Application, Substitution
from agents.catalog.model import Catalog
from agents.catalog.programs import Program
from agents.catalog.requirements import (
    AllOfRequirement,
    CourseRequirement,
    CourseSetRequirement,
    NOfRequirement,
    RequirementNode,
)
from agents.catalog.student import StudentRecord
from agents.errors import AmbiguousProgramError, UnknownCourseError, UnknownProgramError


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def resolve_program(catalog: Catalog, text: str) -> str:
    """The code of the program ``text`` names: a code ('cs-min'), then a name, then an
    alias ('business minor'), each compared ignoring case and spaces around and between
    words. Raises ``UnknownProgramError`` (listing every code) when nothing matches, and
    ``AmbiguousProgramError`` when a name or alias belongs to several programs."""
    wanted = _norm(text)
    readings: tuple[tuple[str, ...], ...] = (
        tuple(p.code for p in catalog.programs if _norm(p.code) == wanted),
        tuple(p.code for p in catalog.programs if _norm(p.name) == wanted),
        tuple(p.code for p in catalog.programs if wanted in map(_norm, p.aliases)),
    )
    for codes in readings:
        if len(codes) == 1:
            return codes[0]
        if codes:
            raise AmbiguousProgramError(text.strip(), sorted(codes))
    raise UnknownProgramError(text.strip(), sorted(catalog.program_by_code))


def resolve_course(catalog: Catalog, text: str) -> str:
    """The catalog's code for course ``text`` ('15-112', ' cs 101 ' or 'CS101' for 'CS 101',
    '15150' for '15-150'), compared by ``code_key``. Raises ``UnknownCourseError`` with up
    to ``SUGGESTIONS`` close codes when the catalog has no such course."""
    hit = find_course(catalog, text)
    if hit is not None:
        return hit
    raise UnknownCourseError(text.strip(), catalog.code_index.suggest(text))


def find_course(catalog: Catalog, text: str) -> str | None:
    """The catalog's code for course ``text`` (any case and spacing), or None."""
    if text in catalog.course_by_code:
        return text
    return catalog.code_index.find(text)


def respell_courses(student: StudentRecord, catalog: Catalog) -> tuple[StudentRecord, list[str]]:
    """``student`` with every course code written as the catalog writes it ('cs101' ->
    'CS 101'), and a note for each code changed; codes the catalog does not have stay."""
    changed: dict[str, str] = {}

    def spelt(code: str | None) -> str | None:
        hit = None if code is None else find_course(catalog, code)
        if code is None or hit is None or hit == code:
            return code
        changed[code] = hit
        return hit

    courses = [a.model_copy(update={"course": spelt(a.course)}) for a in student.courses]
    registered = [r.model_copy(update={"course": spelt(r.course)}) for r in student.registered]
    exceptions = []
    for e in student.exceptions:
        if isinstance(e, Substitution):
            e = e.model_copy(update={"course": spelt(e.course), "for_course": spelt(e.for_course)})
        elif isinstance(e, Application):
            e = e.model_copy(update={"course": spelt(e.course)})
        exceptions.append(e)
    if not changed:
        return student, []
    update = {"courses": courses, "registered": registered, "exceptions": exceptions}
    notes = [f"read the record's {old!r} as {new}" for old, new in changed.items()]
    return student.model_copy(update=update), notes


@dataclass(frozen=True)
class ProgramUse:
    """A requirement of a program that a course can count toward."""

    program: str
    requirement: str
    title: str
    how: str  # 'named': the requirement names the course; 'course set': a set matches it


def _walk(node: RequirementNode) -> Iterator[RequirementNode]:
    yield node
    if isinstance(node, AllOfRequirement | NOfRequirement):
        for child in node.children:
            yield from _walk(child)


def program_uses(catalog: Catalog, code: str) -> list[ProgramUse]:
    """Every requirement, in catalog and tree order, that names course ``code`` or whose
    course set matches it (``Catalog.courses_matching``)."""
    out: list[ProgramUse] = []
    for program in catalog.programs:
        out.extend(_uses_in(catalog, program, code))
    return out


def _uses_in(catalog: Catalog, program: Program, code: str) -> Iterator[ProgramUse]:
    for node in _walk(program.requirement):
        if isinstance(node, CourseRequirement) and node.course == code:
            yield ProgramUse(program.code, node.id, node.title, "named")
        elif isinstance(node, CourseSetRequirement) and code in catalog.courses_matching(node):
            how = "named" if code in node.courses else "course set"
            yield ProgramUse(program.code, node.id, node.title, how)

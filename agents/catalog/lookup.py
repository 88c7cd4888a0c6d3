"""Finding a program or a course from what a person types, and where a course is used.

``resolve_program`` accepts what the catalog itself lists for a program: its code in any
case ('cs-min'), an alias ('business minor') or its name, ignoring case and extra spaces.
It does no fuzzy matching: the free-text reader (``agents.llm.textparse_programs``) guesses
from context words, a lookup does not - and the catalog layer may not import the LLM layer.
``resolve_course`` accepts a course code in any case; an unknown one is answered with the
nearest codes (``difflib``). ``program_uses`` lists the requirements that count a course.

The two errors below belong beside their parents in ``agents.errors``; they live here
until that module gains them.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass

from agents.catalog.model import Catalog
from agents.catalog.programs import Program
from agents.catalog.requirements import (
    AllOfRequirement,
    CourseRequirement,
    CourseSetRequirement,
    NOfRequirement,
    RequirementNode,
)
from agents.errors import AmbiguousProgramError, UnknownCourseError, UnknownProgramError

SUGGESTIONS = 5
"""How many close course codes an unknown code is answered with."""


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
    """The catalog's code for course ``text`` ('15-112', ' cs 101 ' for 'CS 101'), compared
    ignoring case and surrounding spaces. Raises ``UnknownCourseError`` with up to
    ``SUGGESTIONS`` close codes when the catalog has no such course."""
    wanted = _norm(text)
    by_key = {_norm(c.code): c.code for c in catalog.courses}
    hit = by_key.get(wanted)
    if hit is not None:
        return hit
    raise UnknownCourseError(text.strip(), [by_key[k] for k in _closest(wanted, list(by_key))])


def _squash(code: str) -> str:
    return "".join(ch for ch in code if ch.isalnum())


def _closest(wanted: str, keys: list[str]) -> list[str]:
    """Up to ``SUGGESTIONS`` keys like ``wanted`` (difflib ratio 0.6 or more): first one
    spelt with other separators ('15112' for '15-112'), then codes that start with it
    ('15-11' -> '15-110', '15-112'), then by similarity; ties in code order."""
    matcher = difflib.SequenceMatcher(b=wanted)
    ranked = []
    for key in keys:
        matcher.set_seq1(key)
        ratio = matcher.ratio()
        if ratio >= 0.6:
            ranked.append(
                (_squash(key) != _squash(wanted), not key.startswith(wanted), -ratio, key)
            )
    return [key for *_, key in sorted(ranked)[:SUGGESTIONS]]


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

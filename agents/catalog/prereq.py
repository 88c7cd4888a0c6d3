"""Prerequisite and corequisite trees, their readable expression syntax, parser and printer.

A tree is made of course conditions (optionally with a minimum grade, or taken concurrently),
``all`` / ``any`` groups, and other conditions (class standing, units completed, program
membership, test scores and placements, consent). As an expression::

    15-112 and (21-127 or 21-128[C]) and concurrent(15-151)
    standing(junior) and units(180) and program(CS-BS)
    consent(instructor) or score(AP-CALC-BC, 4) or placement(MATH-PLACEMENT, MATH 2B)
    met(ELWR)

``met(ELWR)`` asks for a milestone the catalog declares (``agents.catalog.milestones``): met
when the record lists it (``MetFlag``) or when its own expression holds (``MetCond``).

``and`` binds tighter than ``or``; parentheses group. A minimum grade follows a code in
brackets. A course code is any code of the catalog (``agents.catalog.codes``), spaces and
``&`` included: ``A&B SCI 6B and (CHEM H2A or PHYS 7LC)``. The parser is
``agents.catalog.prereq_parse``."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Annotated, Any, Literal, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from agents.catalog.codes import COURSE_CODE_PATTERN as COURSE_CODE_PATTERN  # the rule
from agents.catalog.test_scores import ScoreCond

ClassStanding = Literal["first_year", "sophomore", "junior", "senior"]
STANDINGS: tuple[ClassStanding, ...] = ("first_year", "sophomore", "junior", "senior")

GRADE_PATTERN = r"^[A-Z][+-]?$"


class _Node(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CourseCond(_Node):
    """The named course must be completed (or in progress) with at least the grade given."""

    course: str = Field(description="Course code, e.g. '15-112'.", pattern=COURSE_CODE_PATTERN)
    min_grade: str | None = Field(
        default=None,
        description="Lowest grade that satisfies the condition.",
        pattern=GRADE_PATTERN,
    )
    concurrent: bool = Field(
        default=False,
        description="'X, which may be taken concurrently': completed before the term, or "
        "taken in the same term (a corequisite, by contrast, must be taken with it or "
        "before). Written concurrent(X) in an expression.",
    )

    @model_serializer(mode="wrap")
    def _without_default(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """``concurrent`` is written only when true: catalogs without the form serialize as
        before."""
        out: dict[str, Any] = handler(self)
        if not self.concurrent:
            out.pop("concurrent", None)
        return out


class StandingCond(_Node):
    """The student must have at least this class standing in the term the course is taken."""

    standing: ClassStanding = Field(description="Minimum class standing.")


class UnitsCond(_Node):
    """The student must have completed at least this many units before the term."""

    units_completed: float = Field(ge=0, description="Minimum units completed before the term.")


class ProgramCond(_Node):
    """The student must be in (or be adding) the named program."""

    program: str = Field(description="Program code, e.g. 'CS-BS'.")


class ConsentCond(_Node):
    """Permission is needed from the named party; planners treat it as an approval risk."""

    consent: Literal["instructor", "department", "dean"] = Field(description="Who must consent.")


class AllOf(_Node):
    """Every child condition must hold."""

    all: list[PrereqNode] = Field(min_length=1, description="Conditions that must all hold.")


class AnyOf(_Node):
    """At least one child condition must hold."""

    any: list[PrereqNode] = Field(min_length=1, description="Conditions of which one must hold.")


class MetFlag(_Node):
    """The student's record lists the milestone as met (``StudentRecord.milestones_met``): a
    fact of the record, like a test score."""

    milestone: str = Field(min_length=1, description="Milestone id, e.g. 'ELWR'.")


class MetCond(AnyOf):
    """``met(ELWR)``: a milestone the catalog declares (``Catalog.milestones``) must be met -
    listed on the record, or its ``met_by`` expression satisfied. Read as an ``any`` group of
    the record flag and that expression (filled in when the catalog loads), so every reader
    of ``any`` groups honours it; written back as ``{"met": id}``."""

    met: str = Field(min_length=1, description="Milestone id, e.g. 'ELWR'.")
    any: list[PrereqNode] = Field(
        default_factory=list,
        exclude=True,
        description="Filled in from the catalog: the record flag, then the milestone's met_by.",
    )

    @model_validator(mode="after")
    def _flag_first(self) -> MetCond:
        if not self.any:
            object.__setattr__(self, "any", [MetFlag(milestone=self.met)])
        return self

    @model_serializer(mode="plain")
    def _as_id(self) -> dict[str, Any]:
        return {"met": self.met}


FactCond = ProgramCond | ScoreCond | MetFlag
"""Conditions that are facts of the student's programs or record: they hold or not, whatever
the term."""

PrereqNode = Annotated[
    Union[  # noqa: UP007
        CourseCond,
        MetCond,
        AllOf,
        AnyOf,
        StandingCond,
        UnitsCond,
        ProgramCond,
        ScoreCond,
        MetFlag,
        ConsentCond,
    ],
    Field(union_mode="left_to_right"),
]
AllOf.model_rebuild()
AnyOf.model_rebuild()
MetCond.model_rebuild()


def fact_holds(node: FactCond, programs: Collection[str], student: Any) -> bool:
    """Whether a fact condition holds for ``student`` (a ``StudentRecord``: its ``tests`` and
    ``milestones_met``) in ``programs``."""
    if isinstance(node, ProgramCond):
        return node.program in programs
    if isinstance(node, ScoreCond):
        return node.met_by(student.tests)
    return node.milestone in student.milestones_met


def format_prereq(node: PrereqNode, _parent: str | None = None) -> str:
    """Print a tree as an expression that ``parse_prereq`` reads back to the same tree."""
    if isinstance(node, CourseCond):
        text = node.course + (f"[{node.min_grade}]" if node.min_grade else "")
        return f"concurrent({text})" if node.concurrent else text
    if isinstance(node, ScoreCond):
        if node.result is not None and node.min_score is None:
            return f"placement({node.test}, {node.result})"
        # Both or neither (JSON only): an expression that does not read back to it.
        return f"score({node.test}, {node.min_score or 0:g})"
    if isinstance(node, StandingCond):
        return f"standing({node.standing})"
    if isinstance(node, UnitsCond):
        u = node.units_completed
        return f"units({int(u) if u == int(u) else u})"
    if isinstance(node, ConsentCond):
        return f"consent({node.consent})"
    if isinstance(node, MetCond):
        return f"met({node.met})"
    if isinstance(node, MetFlag):
        return f"met({node.milestone})"  # only ever inside a MetCond, never written
    if isinstance(node, ProgramCond):
        return f"program({node.program})"
    if isinstance(node, AllOf):
        if len(node.all) == 1:
            return f"({format_prereq(node.all[0], 'all1')})"
        inner = " and ".join(format_prereq(c, "all") for c in node.all)
        return f"({inner})" if _parent == "all" else inner
    assert isinstance(node, AnyOf)
    if len(node.any) == 1:
        return f"({format_prereq(node.any[0], 'any1')})"
    inner = " or ".join(format_prereq(c, "any") for c in node.any)
    return f"({inner})" if _parent in ("all", "any") else inner


def iter_prereq(node: PrereqNode | None) -> Iterator[PrereqNode]:
    """Every node of a prerequisite tree, depth first, parents before children: the one
    walk over a tree that every reader of prerequisites uses."""
    if node is None:
        return
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, AllOf):
            stack.extend(reversed(n.all))
        elif isinstance(n, AnyOf):
            stack.extend(reversed(n.any))


def courses_in(node: PrereqNode | None) -> list[str]:
    """Every course code named in a tree, in order of first appearance."""
    out: list[str] = []
    for n in iter_prereq(node):
        if isinstance(n, CourseCond) and n.course not in out:
            out.append(n.course)
    return out


def programs_in(node: PrereqNode | None) -> list[str]:
    """Every program code named in a tree."""
    return [n.program for n in iter_prereq(node) if isinstance(n, ProgramCond)]

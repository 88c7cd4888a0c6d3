"""Program models: a major, minor or concentration, the institution's own requirements, and
limits on shared courses.

A program of kind ``institution`` (general education, writing, the degree's total credits)
applies to every student of the catalog without being declared: ``with_institution`` adds
it wherever a student's programs are gathered (audit, planner, verifier, what-if). It shares
courses freely with every program; only limits that name it (its own, or another program's
limit ``with_program`` its code or ``with_kind: institution``) apply to it
(``SharingLimit.applies``).

Within one program a course counts toward one requirement leaf, unless the program's
``overlaps`` let two of its nodes count the same courses ("a writing-intensive course may
also count as a major elective"; ``Overlap``, read onto the tree by ``overlap_sides``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    Field,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    field_validator,
    model_serializer,
)

from agents.catalog.base import CatalogModel
from agents.catalog.requirements import AllOfRequirement, NOfRequirement, RequirementNode

ProgramKind = Literal["major", "minor", "concentration", "institution"]


class SharingLimit(CatalogModel):
    """At most ``max_courses`` courses may count toward both this program and another."""

    with_program: str | None = Field(
        default=None, description="The other program's code; None means any program of kind."
    )
    with_kind: ProgramKind | None = Field(
        default=None, description="Applies to every other program of this kind."
    )
    max_courses: int = Field(ge=0, description="Courses that may count toward both.")
    rule: str | None = Field(default=None, description="Policy rule id that states the limit.")

    def applies(self, owner: Program, other: Program) -> bool:
        """Whether this limit of ``owner`` bounds what it shares with ``other``. The
        institution's requirements share freely: a limit of another program applies to
        them only when it names them (``with_program`` or ``with_kind: institution``)."""
        if self.with_program is not None and self.with_program != other.code:
            return False
        if self.with_kind is not None and self.with_kind != other.kind:
            return False
        if other.kind == "institution" and owner.kind != "institution":
            return self.with_program == other.code or self.with_kind == "institution"
        return True


class Overlap(CatalogModel):
    """Courses may count toward both of two nodes of the program ("a writing-intensive
    course may also count as a major elective"): a course counted by a leaf under one node
    may also count by a leaf under the other, at most ``max_courses`` such courses (no
    limit when None). Elsewhere in the program a course still counts once."""

    nodes: list[str] = Field(
        min_length=2,
        max_length=2,
        description="The ids of the two requirement nodes (leaves or groups) that may count "
        "the same courses; neither may contain the other.",
    )
    max_courses: int | None = Field(
        default=None, ge=1, description="At most this many courses may count toward both."
    )
    rule: str | None = Field(
        default=None, description="Policy rule id that states the overlap (optional)."
    )


class Program(CatalogModel):
    """A major, minor or concentration, or the institution's own requirements (kind
    ``institution``: they apply to every student)."""

    code: str = Field(pattern=r"^[A-Z0-9][A-Z0-9-]*$", description="Program code, e.g. 'CS-BS'.")
    name: str = Field(min_length=1, description="Official name.")
    kind: ProgramKind = Field(
        description="Program kind; 'institution' requirements (general education, writing, "
        "total credits) apply to every student without being declared."
    )
    aliases: list[str] = Field(default_factory=list, description="Other names people use.")
    catalog_year: str = Field(description="Catalog year, e.g. '2026-2027'.")
    department: str = Field(description="Home department.")
    total_units: float | None = Field(
        default=None,
        gt=0,
        description="Units needed for the degree (majors, or the institution's requirements).",
    )
    min_gpa: float | None = Field(default=None, ge=0, description="Minimum program GPA.")
    requirement: RequirementNode = Field(description="Root of the requirement tree.")
    sharing: list[SharingLimit] = Field(
        default_factory=list, description="Limits on courses shared with other programs."
    )
    eligible_majors: list[str] = Field(
        default_factory=list,
        description="If non-empty, only students in one of these majors may add the program.",
    )
    excluded_majors: list[str] = Field(
        default_factory=list, description="Majors whose students may not add the program."
    )
    concentration_required: bool = Field(
        default=False,
        description="A major only: its students must declare one of its concentrations "
        "(programs of kind 'concentration' whose eligible_majors name it). A student who has "
        "not is planned with the one whose requirements leave the fewest units, said as "
        "such with the others as options (``agents.reading.concentrations``).",
    )
    document: str | None = Field(default=None, description="Id of the program's description.")
    overlaps: list[Overlap] = Field(
        default_factory=list,
        description="Pairs of the program's requirement nodes that may count the same "
        "courses (otherwise a course counts toward one leaf of the program). Written only "
        "when there is one.",
    )

    @field_validator("overlaps")
    @classmethod
    def _check_overlaps(cls, value: list[Overlap], info: ValidationInfo) -> list[Overlap]:
        root = info.data.get("requirement")  # absent when it failed its own validation
        if value and root is not None:
            problems = overlap_problems(info.data.get("code", "the program"), root, value)
            if problems:
                i, problem = problems[0]
                raise ValueError(f"overlaps[{i}]: {problem}")
        return value

    @model_serializer(mode="wrap")
    def _without_empty(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """``overlaps`` is written only when there is one: catalogs without the form
        serialize as before."""
        out: dict[str, Any] = handler(self)
        if not self.overlaps:
            out.pop("overlaps", None)
        return out


def _leaves_under(root: RequirementNode) -> dict[str, frozenset[str]]:
    """Every node id of the tree -> the ids of the leaves in its subtree (the first node of
    an id that occurs twice; duplicate ids are reported by the catalog checks)."""
    out: dict[str, frozenset[str]] = {}

    def visit(node: RequirementNode) -> frozenset[str]:
        if isinstance(node, AllOfRequirement | NOfRequirement):
            leaves = frozenset().union(*(visit(c) for c in node.children))
        else:
            leaves = frozenset({node.id})
        out.setdefault(node.id, leaves)
        return leaves

    visit(root)
    return out


def overlap_sides(program: Program) -> list[tuple[Overlap, frozenset[str], frozenset[str]]]:
    """Each overlap of ``program`` with the ids of the leaves under each of its two nodes: a
    course may count toward a leaf of one side and a leaf of the other. An overlap naming a
    node the tree does not have (an advisor waiver replaced that part) is left out."""
    under = _leaves_under(program.requirement)
    return [
        (o, under[o.nodes[0]], under[o.nodes[1]])
        for o in program.overlaps
        if o.nodes[0] in under and o.nodes[1] in under
    ]


def overlap_problems(
    code: str, root: RequirementNode, overlaps: list[Overlap]
) -> list[tuple[int, str]]:
    """(overlap index, problem) for overlaps of program ``code`` that cannot be read: an
    unknown node, one node twice or one within the other, or a pair of leaves two overlaps
    both cover."""
    under = _leaves_under(root)
    out: list[tuple[int, str]] = []
    covered: dict[frozenset[str], int] = {}
    for i, o in enumerate(overlaps):
        unknown = [n for n in o.nodes if n not in under]
        if unknown:
            out.append(
                (
                    i,
                    f"no requirement {unknown[0]!r} in {code}; the ids are "
                    f"{', '.join(sorted(under))}",
                )
            )
            continue
        a, b = (under[n] for n in o.nodes)
        if a & b:
            out.append(
                (
                    i,
                    f"{o.nodes[0]!r} and {o.nodes[1]!r} are the same node or one contains the "
                    "other; name two separate parts of the program",
                )
            )
            continue
        for x in sorted(a):
            for y in sorted(b):
                key = frozenset({x, y})
                if key in covered:
                    out.append(
                        (
                            i,
                            f"leaves {x!r} and {y!r} are already covered by overlaps"
                            f"[{covered[key]}]; keep one overlap per pair of requirements",
                        )
                    )
                    return out
                covered[key] = i
    return out

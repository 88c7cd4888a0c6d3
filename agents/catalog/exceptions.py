"""Advisor exceptions: the decisions an advisor records against a student's record, each with
who, when and why.

- ``substitute``: course X counts where course Y (``for_course``) or requirement node N
  (``requirement``) is asked for;
- ``waive``: requirement node N is met without courses, optionally with ``units_owed``
  still to be earned by other courses in its place;
- ``apply``: course X counts toward node N and nowhere else in that program, overriding
  the automatic allocation;
- ``approve``: a policy rule that needs a person's approval (``requires_approval``, e.g. an
  overload) is approved for a term or a range of terms.

They live in the student record (``StudentRecord.exceptions``) or in a separate file an
advisor edits (``ExceptionsFile``, ``exceptions/<student>.json``, with a published JSON
Schema); ``StudentRecord.with_exceptions`` puts a file's entries into a record. An
exception past its ``expires`` date is ignored (``split_expired``), and the report says so.
How the audit and the planner honour them is ``agents.catalog.overrides``; the critique
reads approvals.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from agents.catalog.base import CatalogModel
from agents.catalog.prereq import COURSE_CODE_PATTERN
from agents.catalog.terms import TERM_CODE_PATTERN
from agents.catalog.validation import read_json
from agents.errors import ExceptionsFileError

EXCEPTIONS_SCHEMA_FILE = "exceptions.schema.json"

ExceptionKind = Literal["substitute", "waive", "apply", "approve"]


class _Grant(CatalogModel):
    """Who decided, when and why - common to every exception."""

    id: str | None = Field(
        default=None,
        min_length=1,
        description="Optional identifier the office uses for this exception (shown in reports).",
    )
    by: str = Field(min_length=1, description="Who granted it (name or staff id).")
    date: dt.date = Field(description="When it was granted (YYYY-MM-DD).")
    reason: str = Field(min_length=1, description="Why, in a sentence.")
    expires: dt.date | None = Field(
        default=None,
        description="Last day it is in force (YYYY-MM-DD); after it the exception is ignored.",
    )

    @model_validator(mode="after")
    def _dates(self) -> _Grant:
        if self.expires is not None and self.expires < self.date:
            raise ValueError(
                f"expires {self.expires.isoformat()} is before the grant date "
                f"{self.date.isoformat()}; an exception cannot expire before it is granted"
            )
        return self

    def label(self) -> str:
        """How reports name it: its id, or its kind and subject."""
        return self.id or self.subject()

    def subject(self) -> str:
        raise NotImplementedError

    def expired(self, on: dt.date) -> bool:
        return self.expires is not None and self.expires < on


class Substitution(_Grant):
    """Course ``course`` counts as ``for_course`` wherever that course is asked for, or as a
    course of requirement node ``requirement``. Exactly one of the two is given."""

    kind: Literal["substitute"] = Field(description="Exception kind.")
    course: str = Field(pattern=COURSE_CODE_PATTERN, description="The course that counts.")
    for_course: str | None = Field(
        default=None,
        pattern=COURSE_CODE_PATTERN,
        description="The course it replaces, in every requirement that asks for it.",
    )
    requirement: str | None = Field(
        default=None,
        min_length=1,
        description="The requirement node (a course or course-set requirement) it counts toward.",
    )
    program: str | None = Field(
        default=None,
        description="Program whose requirements it changes (default: every program audited "
        "for for_course; the one program that has the node for requirement).",
    )

    @model_validator(mode="after")
    def _target(self) -> Substitution:
        if (self.for_course is None) == (self.requirement is None):
            raise ValueError(
                "give exactly one of for_course (the course replaced) or requirement (the "
                "node it counts toward)"
            )
        if self.for_course == self.course:
            raise ValueError(f"course {self.course!r} cannot substitute for itself")
        return self

    def subject(self) -> str:
        target = self.for_course or self.requirement
        return f"substitute {self.course} for {target}"


class Waiver(_Grant):
    """Requirement node ``requirement`` is met without courses; ``units_owed`` (if given)
    must still be earned by courses not counted elsewhere in the program."""

    kind: Literal["waive"] = Field(description="Exception kind.")
    requirement: str = Field(min_length=1, description="The requirement node waived.")
    program: str | None = Field(
        default=None, description="Program of the node (default: the one program that has it)."
    )
    units_owed: float | None = Field(
        default=None,
        gt=0,
        description="Units the student still owes in place of the node (any course not "
        "counted elsewhere in the program); none when omitted.",
    )

    def subject(self) -> str:
        return f"waive {self.requirement}"


class Application(_Grant):
    """Course ``course`` counts toward node ``requirement`` and toward no other node of the
    program, whatever the automatic allocation would have done."""

    kind: Literal["apply"] = Field(description="Exception kind.")
    course: str = Field(pattern=COURSE_CODE_PATTERN, description="The course applied.")
    requirement: str = Field(
        min_length=1, description="The course or course-set requirement it counts toward."
    )
    program: str | None = Field(
        default=None, description="Program of the node (default: the one program that has it)."
    )

    def subject(self) -> str:
        return f"apply {self.course} to {self.requirement}"


class Approval(_Grant):
    """Policy rule ``rule`` (one that names who may approve it, ``requires_approval``) is
    approved for ``term``, or for every term from ``term`` through ``through``."""

    kind: Literal["approve"] = Field(description="Exception kind.")
    rule: str = Field(min_length=1, description="Policy rule id, e.g. 'LOAD-OVERLOAD'.")
    term: str = Field(pattern=TERM_CODE_PATTERN, description="The (first) term approved.")
    through: str | None = Field(
        default=None,
        pattern=TERM_CODE_PATTERN,
        description="Last term of a range (default: only ``term``).",
    )

    def subject(self) -> str:
        span = self.term if self.through in (None, self.term) else f"{self.term}-{self.through}"
        return f"approve {self.rule} for {span}"


AdvisorException = Annotated[
    Union[Substitution, Waiver, Application, Approval],  # noqa: UP007
    Field(discriminator="kind"),
]
ProgramException = Substitution | Waiver | Application


class ExceptionsFile(CatalogModel):
    """A student's advisor exceptions kept apart from the record (``exceptions/<id>.json``)."""

    schema_version: Literal[1] = Field(default=1, description="Version of this file format.")
    student_id: str = Field(min_length=1, description="The student the exceptions are for.")
    exceptions: list[AdvisorException] = Field(
        default_factory=list, description="The exceptions, in the order they were granted."
    )


def exceptions_schema() -> dict[str, Any]:
    from agents.catalog.schemas import model_schema

    return model_schema(ExceptionsFile, EXCEPTIONS_SCHEMA_FILE)


KINDS = frozenset({"substitute", "waive", "apply", "approve"})


def error_path(loc: tuple[int | str, ...], prefix: str = "$") -> str:
    """A validation error's JSON path, without the union tag pydantic inserts after an
    exception's index (``$.exceptions[0].approve.date`` is ``$.exceptions[0].date``)."""
    out = prefix
    for i, x in enumerate(loc):
        if isinstance(x, int):
            out += f"[{x}]"
        elif not (
            x in KINDS and i > 1 and isinstance(loc[i - 1], int) and loc[i - 2] == "exceptions"
        ):
            out += f".{x}"
    return out


def _problems(exc: ValidationError, prefix: str = "$") -> list[str]:
    out = []
    for err in exc.errors():
        loc = error_path(err["loc"], prefix)
        value = repr(err.get("input"))
        if len(value) > 80:
            value = value[:77] + "..."
        out.append(f"{loc}: {err['msg']} (got {value})")
    return out


def load_exceptions(path: str | Path) -> ExceptionsFile:
    """Read and validate an exceptions file; every problem names the JSON path and value."""
    p = Path(path)
    raw = read_json(p, ExceptionsFileError, "an exceptions JSON file")
    if isinstance(raw, dict) and "exceptions" not in raw and "courses" in raw:
        raise ExceptionsFileError(
            str(p),
            ["this is a student record, not an exceptions file; an exceptions file is "
             '{"student_id": ..., "exceptions": [...]} (see exceptions.schema.json)'],
        )  # fmt: skip
    try:
        return ExceptionsFile.model_validate(raw)
    except ValidationError as exc:
        raise ExceptionsFileError(str(p), _problems(exc)) from None


# ----------------------------------------------------------------------- what each did


UseStatus = Literal["used", "unused", "invalid", "conflicting", "expired"]


class ExceptionUse(BaseModel):
    """What became of one advisor exception: used, unused, expired, invalid or conflicting."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    exception: str = Field(description="The exception: its id, or its kind and subject.")
    kind: Literal["substitute", "waive", "apply", "approve"] = Field(description="Exception kind.")
    status: UseStatus = Field(
        description="'used': it changed the result; 'unused': in force but nothing needed "
        "it; 'expired': past its expires date, ignored; 'invalid': names something the "
        "catalog does not have; 'conflicting': contradicts an earlier exception. Only "
        "'used' and 'unused' exceptions are applied."
    )
    program: str | None = Field(default=None, description="Program it changes, if any.")
    requirement: str | None = Field(default=None, description="Requirement node, if any.")
    by: str = Field(description="Who granted it.")
    date: str = Field(description="When it was granted (YYYY-MM-DD).")
    reason: str = Field(description="Why it was granted.")
    note: str = Field(description="One sentence: what it did, or why it did nothing.")


def use_of(e: AdvisorException, status: UseStatus, note: str, **where: str | None) -> ExceptionUse:
    return ExceptionUse(
        exception=e.label(),
        kind=e.kind,
        status=status,
        program=where.get("program", getattr(e, "program", None)),
        requirement=where.get("requirement", getattr(e, "requirement", None)),
        by=e.by,
        date=e.date.isoformat(),
        reason=e.reason,
        note=note,
    )

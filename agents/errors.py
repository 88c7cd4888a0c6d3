"""Errors raised by the agents and their tools.

Hierarchy::

    AdvisingError
     ├── TermError                 a term code or phrase that cannot be read
     ├── PrereqSyntaxError         a prerequisite expression with a syntax error (has .column)
     ├── CatalogError              a catalog file that cannot be used (has .problems)
     │    ├── CatalogSchemaError   fails the published JSON Schema
     │    └── CatalogReferenceError  a reference that does not resolve, or a cycle
     ├── StudentRecordError        a student record that cannot be used (has .problems)
     ├── UnknownProgramError       a program code that is not in the catalog
     ├── UnknownReferenceError     a rule, document or section id that is not in the catalog
     ├── PlanningError             the planner was given inputs it cannot work with
     └── LLMError                  an LLM backend failed (see agents.llm.boundary)
          ├── LLMConfigError       missing key or bad model settings; says how to fix
          └── LLMReplyError        a reply that is malformed or breaks the schema

Every error carries the offending input in its message (quoted with ``!r``) and, where
it can, the fix.
"""

from __future__ import annotations


class AdvisingError(Exception):
    """Base class of every error the agents raise on purpose."""


class TermError(AdvisingError, ValueError):
    """A term code or phrase that cannot be read."""


class PrereqSyntaxError(AdvisingError, ValueError):
    """A prerequisite expression that cannot be parsed; ``column`` is 1-based."""

    def __init__(self, message: str, expression: str, column: int) -> None:
        self.expression = expression
        self.column = column
        self.reason = message
        pointer = " " * (column - 1) + "^"
        super().__init__(
            f"prerequisite syntax error at column {column}: {message}\n  {expression}\n  {pointer}"
        )


class _ProblemsError(AdvisingError):
    """An error that gathers several problems, each already a full sentence."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        noun = "problem" if len(problems) == 1 else "problems"
        super().__init__(f"{source}: {len(problems)} {noun}\n{lines}")


class CatalogError(_ProblemsError):
    """A catalog file that cannot be used."""


class CatalogSchemaError(CatalogError):
    """A catalog that fails the published JSON Schema."""


class CatalogReferenceError(CatalogError):
    """A catalog whose references do not resolve, or whose prerequisites form a cycle."""


class StudentRecordError(_ProblemsError):
    """A student record that cannot be used."""


class UnknownProgramError(AdvisingError, KeyError):
    """A program code that is not in the catalog."""

    def __init__(self, code: str, known: list[str]) -> None:
        self.code = code
        self.known = known
        super().__init__(code)

    def __str__(self) -> str:
        return f"unknown program {self.code!r}; the catalog has: {', '.join(self.known)}"


class UnknownReferenceError(AdvisingError, KeyError):
    """A policy rule, document or section id that is not in the catalog."""

    def __init__(self, kind: str, value: str, known: list[str]) -> None:
        self.kind = kind
        self.value = value
        self.known = known
        super().__init__(value)

    def __str__(self) -> str:
        return f"unknown {self.kind} {self.value!r}; the catalog has: {', '.join(self.known)}"


class PlanningError(AdvisingError):
    """The planner was given inputs it cannot work with."""


class LLMError(AdvisingError):
    """An LLM backend failed."""


class LLMConfigError(LLMError):
    """Missing key or bad model settings; the message says how to fix it."""


class LLMReplyError(LLMError):
    """A reply that is malformed or breaks the expected schema."""

"""Every error the domain core (``agents/``) raises on purpose, in one module.

Hierarchy::

    AdvisingError
     ├── TermError                 a term code or phrase that cannot be read
     ├── PrereqSyntaxError         a prerequisite expression with a syntax error (has .column)
     ├── CatalogError              a catalog file that cannot be used (has .problems)
     │    ├── CatalogSchemaError   fails the published JSON Schema
     │    ├── CatalogReferenceError  a reference that does not resolve, or a cycle
     │    └── LayoutError          a catalog directory (authoring layout) with problems,
     │                             or a catalog the layout cannot hold
     ├── StudentRecordError        a student record that cannot be used (has .problems)
     ├── ExceptionsFileError       an advisor exceptions file that cannot be used (.problems)
     ├── TemplateProblemError      a report template (an office's override) that cannot render
     ├── UnknownProgramError       a program code that is not in the catalog
     │    └── AmbiguousProgramError  a name or alias several programs share
     ├── UnknownReferenceError     a rule, document or section id that is not in the catalog
     │    └── UnknownCourseError   a course code not in the catalog (with the closest codes)
     ├── PlanningError             the planner was given inputs it cannot work with
     ├── ExportError               a plan export that cannot be made: a request not
     │                             finished, a term without dates, no PDF printer (says how)
     ├── MissingArtifactError      a stage asked its case for an artifact no stage produced
     ├── StorageError              a file that cannot be written: disk full, read-only,
     │    │                        no permission (names the path and what to do)
     │    └── UnsafePathError      a write target that is a symlink (never written through)
     ├── LLMError                  an LLM backend failed (see agents.llm)
     │    ├── LLMConfigError       missing key or bad model settings; says how to fix
     │    ├── LLMReplyError        a reply that is malformed or breaks the schema
     │    ├── LLMResponseError     an HTTP 2xx response whose body is not a JSON object
     │    │                        (a proxy's error page): transient, retried
     │    └── LLMDeadlineError     a call cut at its total deadline (also a TimeoutError)
     └── PipelineError             the engine (pipeline/): see ``pipeline.errors``

Every error carries the offending input in its message (quoted with ``!r``) and, where
it can, the fix. The engine's errors and the CLI's exit codes (``ExitCode``) live in
``pipeline.errors``.
"""

from __future__ import annotations

from pathlib import Path


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


class LayoutError(CatalogError):
    """A catalog directory that cannot be built, or a catalog that cannot be exported to
    one; each problem names the file, the line (and column for CSV cells), the value and
    the fix."""


class StudentRecordError(_ProblemsError):
    """A student record that cannot be used."""


class ExceptionsFileError(_ProblemsError):
    """An advisor exceptions file (``exceptions/<student>.json``) that cannot be used."""


class TemplateProblemError(AdvisingError):
    """A report template that cannot be used: names the file, the line and the fix."""

    def __init__(self, source: str, line: int | None, problem: str) -> None:
        self.source = source
        self.line = line
        where = f"{source}, line {line}" if line else source
        super().__init__(f"template {where}: {problem}")


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


class AmbiguousProgramError(UnknownProgramError):
    """A program name or alias that several programs of the catalog share."""

    def __init__(self, text: str, matches: list[str]) -> None:
        super().__init__(text, matches)

    def __str__(self) -> str:
        return (
            f"program {self.code!r} could mean {', '.join(self.known)}; "
            "give the program's code instead"
        )


class UnknownCourseError(UnknownReferenceError):
    """A course code that is not in the catalog; ``known`` holds the closest codes."""

    def __init__(self, code: str, suggestions: list[str]) -> None:
        super().__init__("course", code, suggestions)

    def __str__(self) -> str:
        hint = f"did you mean {', '.join(self.known)}? " if self.known else ""
        return (
            f"unknown course {self.value!r}; {hint}find courses with 'advise catalog search TEXT'"
        )


class PlanningError(AdvisingError):
    """The planner was given inputs it cannot work with."""


class ExportError(AdvisingError):
    """A plan export (``advise export``) that cannot be made; the message names the request,
    term or program it needs and what to run or add."""


class MissingArtifactError(AdvisingError, LookupError):
    """A stage asked its case for an artifact that no earlier stage stored."""

    def __init__(self, request_id: str, what: str, round_: int) -> None:
        self.request_id = request_id
        self.what = what
        self.round = round_
        super().__init__(
            f"request {request_id!r}: no {what} for round {round_}; the stage that makes it "
            "has not run - this is an engine bug, report it with the checkpoint"
        )


class StorageError(AdvisingError):
    """A file or directory the command must write that cannot be written: the filesystem
    is full or read-only, or permission is denied. Names the path; exit code 5."""

    def __init__(self, path: str | Path, reason: str, fix: str | None = None) -> None:
        self.path = Path(path)
        self.reason = reason
        advice = fix or "free space or fix the permissions, then rerun the same command"
        super().__init__(f"cannot write {str(path)!r}: {reason} - {advice}")


class UnsafePathError(StorageError):
    """A write target that is a symbolic link: written through, it could overwrite any
    file the runner can write, so it is refused and left as it is."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(
            path,
            "it is a symbolic link, and outputs are never written through one",
            f"remove the link ({str(path)!r}) or choose another directory",
        )


class LLMError(AdvisingError):
    """An LLM backend failed."""


class LLMConfigError(LLMError):
    """Missing key or bad model settings; the message says how to fix it."""


class LLMReplyError(LLMError):
    """A reply that is malformed or breaks the expected schema."""


class LLMResponseError(LLMError):
    """An HTTP 2xx response whose body is not a JSON object (a proxy's or gateway's error
    page, an empty or cut body) or not a Gemini reply, so there is no reply to read. A
    transient fault: retried like a 503, then the offline path answers."""

    def __init__(
        self, status: int, content_type: str, body: bytes, problem: str = "is not a JSON object"
    ) -> None:
        self.status = status
        self.content_type = content_type
        self.body = body
        start = body[:80].decode("utf-8", "replace")
        super().__init__(
            f"HTTP {status} response body {problem} "
            f"({content_type or 'no content type'}, {len(body)} bytes, starting {start!r})"
        )


class LLMDeadlineError(LLMError, TimeoutError):
    """A call that passed its total deadline (all attempts, waits and every byte of the
    reply), cut where it stood. Not retried: there is no time left."""

    def __init__(self, deadline_s: float, setting: str) -> None:
        self.deadline_s = deadline_s
        super().__init__(
            f"no complete reply within the call's deadline of {deadline_s:g} s "
            f"(raise {setting} to wait longer)"
        )


class PipelineError(AdvisingError):
    """Base class of every error the engine (``pipeline/``) raises on purpose; the
    subclasses live in ``pipeline.errors``."""

"""Every error the project raises on purpose, in one module, and the CLI's exit codes.

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
     ├── LLMError                  an LLM backend failed (see agents.llm)
     │    ├── LLMConfigError       missing key or bad model settings; says how to fix
     │    └── LLMReplyError        a reply that is malformed or breaks the schema
     └── PipelineError             the engine (pipeline/): machine, checkpoints, locks, input
          ├── MachineDefinitionError    a transition table or stage registry that cannot run
          ├── TransitionRefusedError    a trigger that did not move the machine
          ├── UnsafeRequestIdError      a request id that is not a safe file name
          ├── RequestInputError         a request file, line or batch input that cannot be used
          ├── CheckpointError           a checkpoint that cannot be used
          │    ├── CorruptCheckpointError     unreadable; moved aside, never overwritten
          │    ├── CheckpointVersionError     written by another schema version
          │    ├── FingerprintMismatchError   catalog or configuration changed since
          │    ├── StaleResultError           finished under another catalog/configuration
          │    └── RequestChangedError        the request differs from the checkpointed one
          ├── LockHeldError             another runner is working the request
          ├── CheckpointMissingError    no checkpoint for the id
          ├── RayUnavailableError       --engine ray without Ray installed (says how to fix)
          ├── ApprovalError             an approve/deny/resume that does not fit the run's
          │                             pending approvals (names them)
          └── RunInterrupted            SIGINT/SIGTERM: checkpointed, resumable

Every error carries the offending input in its message (quoted with ``!r``) and, where
it can, the fix. ``ExitCode`` lists what every ``advise`` command exits with.
"""

from __future__ import annotations

from enum import IntEnum
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


class LLMError(AdvisingError):
    """An LLM backend failed."""


class LLMConfigError(LLMError):
    """Missing key or bad model settings; the message says how to fix it."""


class LLMReplyError(LLMError):
    """A reply that is malformed or breaks the expected schema."""


class ExitCode(IntEnum):
    """Exit codes of every ``advise`` command, in one place."""

    OK = 0
    """Everything asked for finished (requests done or skipped as already done)."""
    FAILED = 1
    """Some request failed, was invalid, or was locked by another runner."""
    USAGE = 2
    """A usage or input error: bad option, missing file, unsafe id, changed catalog."""
    INTERRUPTED = 3
    """Interrupted by SIGINT/SIGTERM; checkpoints are saved - rerun or ``advise resume``."""
    AWAITING_APPROVAL = 4
    """Nothing failed, but some request stopped in ``awaiting_approval``: an advisor must
    ``advise approve`` or ``advise deny`` it, then ``advise resume`` it."""


class PipelineError(AdvisingError):
    """Base class of every error the engine raises on purpose."""


class MachineDefinitionError(PipelineError):
    """A transition table or stage registry that cannot run; names the offending state."""

    def __init__(self, state: str, problem: str) -> None:
        self.state = state
        super().__init__(f"pipeline machine: state {state!r} {problem}")


class TransitionRefusedError(PipelineError):
    """A trigger that returned False or is not allowed from the current state."""

    def __init__(self, request_id: str, trigger: str, state: str, detail: str = "") -> None:
        self.request_id = request_id
        self.trigger = trigger
        self.state = state
        extra = f" ({detail})" if detail else ""
        super().__init__(
            f"request {request_id!r}: trigger {trigger!r} did not move the machine from "
            f"state {state!r}{extra}; this is an engine bug - report it with the checkpoint"
        )


class UnsafeRequestIdError(PipelineError, ValueError):
    """A request id that must not be used as a file name."""

    def __init__(self, request_id: object, reserved: bool = False) -> None:
        self.request_id = request_id
        why = (
            f"{request_id!r} is a reserved file name; choose another id"
            if reserved
            else (
                "use 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit, "
                "and no '..'"
            )
        )
        super().__init__(f"unsafe request id {request_id!r}: {why}")


class RequestInputError(PipelineError):
    """A request file, batch line or batch input that cannot be used."""


class CheckpointError(PipelineError):
    """A checkpoint file that cannot be used."""

    def __init__(self, message: str, path: Path) -> None:
        self.path = path
        super().__init__(message)


class CorruptCheckpointError(CheckpointError):
    """An unreadable checkpoint; it has been moved aside to ``moved_to``."""

    def __init__(self, path: Path, moved_to: Path, reason: str) -> None:
        self.moved_to = moved_to
        self.reason = reason
        super().__init__(
            f"checkpoint {str(path)!r} is corrupt ({reason}); moved it aside to "
            f"{str(moved_to)!r} - rerun to start the request from the beginning",
            path,
        )


class CheckpointVersionError(CheckpointError):
    """A checkpoint written by a different schema version; left where it is."""

    def __init__(self, path: Path, found: object, expected: int) -> None:
        super().__init__(
            f"checkpoint {str(path)!r} has schema_version {found!r} but this program reads "
            f"version {expected}; use the matching version of the pipeline or delete the file",
            path,
        )


class FingerprintMismatchError(CheckpointError):
    """The catalog or configuration changed since the request was checkpointed."""

    def __init__(self, request_id: str, what: str, saved: str, current: str, path: Path) -> None:
        self.request_id = request_id
        self.what = what
        self.saved = saved
        self.current = current
        super().__init__(
            f"request {request_id!r} was checkpointed with {what} {saved[:12]} but the "
            f"{what} is now {current[:12]}; resume with --force to continue against the "
            f"new {what}, or restore the old one",
            path,
        )


class StaleResultError(CheckpointError):
    """A finished request whose catalog or configuration fingerprint differs from the
    current one, refused because stale results are not to be rerun (--no-rerun-stale)."""

    def __init__(self, request_id: str, saved: str, current: str, path: Path) -> None:
        self.request_id = request_id
        self.saved = saved
        self.current = current
        super().__init__(
            f"request {request_id!r} finished under {saved} but the current fingerprint is "
            f"{current}; its outputs are stale - rerun without --no-rerun-stale (the old "
            "outputs are kept as .prev), or restore the old catalog and configuration",
            path,
        )


class RequestChangedError(CheckpointError):
    """A request whose content differs from the one in its checkpoint."""

    def __init__(self, request_id: str, path: Path) -> None:
        self.request_id = request_id
        super().__init__(
            f"request {request_id!r} differs from the one checkpointed in {str(path)!r}; "
            "give it a new request_id, or pass --force to start it again from the beginning",
            path,
        )


class CheckpointMissingError(PipelineError):
    """No checkpoint exists for a request id."""

    def __init__(self, request_id: str, state_dir: Path) -> None:
        self.request_id = request_id
        super().__init__(
            f"no checkpoint for request {request_id!r} in {str(state_dir)!r}; "
            "check the id with 'advise status' or pass --state-dir"
        )


class RayUnavailableError(PipelineError, ImportError):
    """``--engine ray`` without Ray installed; says how to install it."""

    def __init__(self, reason: str) -> None:
        super().__init__(
            f"--engine ray needs Ray, which cannot be imported ({reason}); install the ray "
            "extra: pip install -e '.[ray]'"
        )


class ApprovalError(PipelineError):
    """An approve, deny or resume that does not fit the run's pending approvals."""

    def __init__(self, request_id: str, problem: str) -> None:
        self.request_id = request_id
        super().__init__(f"request {request_id!r}: {problem}")


class LockHeldError(PipelineError):
    """Another runner holds the request's lock."""

    def __init__(self, request_id: str, holder: str, lock_path: Path) -> None:
        self.request_id = request_id
        self.holder = holder
        self.lock_path = lock_path
        super().__init__(
            f"request {request_id!r} is being worked by another runner ({holder}); wait for "
            f"it to finish, or stop it - the lock {str(lock_path)!r} frees when it exits (a "
            "runner on another host that stopped: when its lease expires)"
        )


class RunInterrupted(PipelineError):
    """A run stopped by SIGINT/SIGTERM after its last checkpoint; resumable."""

    def __init__(self, request_id: str, state: str) -> None:
        self.request_id = request_id
        self.state = state
        super().__init__(
            f"request {request_id!r} interrupted before stage {state!r}; its checkpoint is "
            f"saved - resume with 'advise resume {request_id}'"
        )

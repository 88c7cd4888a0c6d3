"""The engine's errors (``pipeline/``) and the exit codes of every ``advise`` command.

Hierarchy (``AdvisingError`` and ``PipelineError`` are in ``agents.errors``)::

PipelineError             the engine (pipeline/): machine, checkpoints, locks, input
 ├── MachineDefinitionError    a transition table or stage registry that cannot run
 ├── TransitionRefusedError    a trigger that did not move the machine
 ├── UnsafeRequestIdError      a request id that is not a safe file name
 ├── RequestInputError         a request file, line or batch input that cannot be used
 ├── ConfigError               a workspace setting (advise.toml, ADVISE_*) that cannot be used
 ├── CheckpointError           a checkpoint that cannot be used
 │    ├── CorruptCheckpointError     unreadable; moved aside, never overwritten
 │    ├── CheckpointVersionError     written by another schema version
 │    ├── FingerprintMismatchError   catalog or configuration changed since
 │    ├── StaleResultError           finished under another catalog/configuration
 │    └── RequestChangedError        the request differs from the checkpointed one
 ├── LockHeldError             another runner is working the request
 ├── CheckpointMissingError    no checkpoint for the id
 ├── CatalogSourceMissingError the catalog a request ran with is gone
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

from agents.errors import PipelineError

__all__ = [
    "ApprovalError",
    "CatalogSourceMissingError",
    "CheckpointError",
    "CheckpointMissingError",
    "CheckpointVersionError",
    "ConfigError",
    "CorruptCheckpointError",
    "ExitCode",
    "FingerprintMismatchError",
    "LockHeldError",
    "MachineDefinitionError",
    "PipelineError",
    "RayUnavailableError",
    "RequestChangedError",
    "RequestInputError",
    "RunInterrupted",
    "StaleResultError",
    "TransitionRefusedError",
    "UnsafeRequestIdError",
]


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
    STORAGE = 5
    """The environment, not a request: a directory full, read-only or not writable, or a
    file that must not be written through (a symlink). Checkpoints written before it stay
    valid; free space or fix the permissions, then rerun the same command."""
    DEGRADED = 6
    """Nothing failed or waits, but some request finished *degraded*: its LLM backend
    failed and a stage used the offline path (``pipeline.degraded``). The results are
    usable; rerun the same command with a working backend to redo just those stages."""


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

    def __init__(self, request_id: object, reserved: str | None = None) -> None:
        self.request_id = request_id
        why = (
            f"{request_id!r} is a reserved file name ({reserved}); choose another id"
            if reserved
            else (
                "use 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit, "
                "and no '..'"
            )
        )
        super().__init__(f"unsafe request id {request_id!r}: {why}")


class RequestInputError(PipelineError):
    """A request file, batch line or batch input that cannot be used."""


class ConfigError(PipelineError):
    """A workspace setting that cannot be used: the file and line or the environment
    variable, the key, the value and the fix (``pipeline.config``)."""


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


class CatalogSourceMissingError(PipelineError):
    """The catalog file or directory a request ran with is gone: the request is not run
    against any other catalog unless a command names one for it."""

    def __init__(self, request_id: str, source: str) -> None:
        self.request_id = request_id
        self.source = source
        super().__init__(
            f"request {request_id!r} ran with the catalog {source!r}, which no longer exists; "
            f"restore it, or name a catalog for this request: advise resume {request_id} "
            "--catalog PATH"
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

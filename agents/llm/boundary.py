"""The LLM boundary: one interface, its value types, and the call ledger.

The model only reads free text and writes prose; facts come from the catalog, the planner
and the verifier. Two operations cross the boundary:

- ``extract_intake(text)`` -> ``IntakeExtraction`` (structured fields read from free text);
- ``write_letter(draft)`` -> the letter to the student, grounded in a Recommendation draft.

``OfflineBackend`` (``agents.llm.offline``) implements both deterministically (rule-based
parser, template letter) and needs nothing. Other backends (``gemini``) live in their own
modules, are chosen by name through ``make_backend`` (``agents.llm.registry``) and fall
back to the offline path on failure, saying so in the result. ``RecordingBackend``
(``agents.llm.fake``) is the scriptable stand-in for tests. Every model call is recorded
in an ``LLMLedger`` that is saved with the workflow context, so a resumed run reuses
replies instead of paying twice.

This module imports nothing else from ``agents.llm``: every backend depends on it, never
the other way round.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from agents.catalog import Catalog

if TYPE_CHECKING:
    from agents.artifacts import Recommendation

T = TypeVar("T")

Source = Literal["offline", "gemini", "offline_fallback"]


class CoursePin(BaseModel):
    """A course the text wants in one term."""

    model_config = ConfigDict(extra="forbid")

    course: str = Field(description="Course code.")
    term: str = Field(description="Term code, e.g. 'F2027'.")


class IntakeExtraction(BaseModel):
    """Fields read from a request's free text. Codes are checked against the catalog later."""

    model_config = ConfigDict(extra="forbid")

    intent: (
        Literal[
            "plan_degree",
            "plan_next_term",
            "add_program",
            "switch_program",
            "check_progress",
            "policy_question",
        ]
        | None
    ) = Field(default=None, description="What the student wants, if the text says.")
    add_programs: list[str] = Field(
        default_factory=list, description="Program codes to add, resolved from names/aliases."
    )
    drop_programs: list[str] = Field(default_factory=list, description="Program codes to drop.")
    target_graduation: str | None = Field(
        default=None, description="Graduation target as a term code, e.g. 'S2029'."
    )
    target_phrase: str = Field(default="", description="The words that stated the target.")
    max_units_per_term: float | None = Field(default=None, description="Units cap asked for.")
    max_courses_per_term: int | None = Field(default=None, description="Courses cap asked for.")
    next_term_courses: int | None = Field(
        default=None,
        description="How many courses the student wants next term, when the text says so "
        "without a cap ('I want to take 5 courses next semester' -> 5; 'at most 5 courses' is "
        "max_courses_per_term instead).",
    )
    next_term_units: float | None = Field(
        default=None,
        description="How many units the student wants next term, when the text says so "
        "without a cap ('six courses (24 units) next quarter' -> 24, with next_term_courses "
        "6; 'at most 24 units' is max_units_per_term instead).",
    )
    terms_away: list[str] = Field(default_factory=list, description="Terms away as codes.")
    optional_terms: list[str] = Field(
        default_factory=list,
        description="Optional terms (kinds of term marked optional, e.g. summer) the student "
        "says they can take courses in, as term codes, e.g. 'I can take courses in Summer "
        "2027' -> ['U2027'].",
    )
    optional_kinds: list[str] = Field(
        default_factory=list,
        description="Kind codes of optional terms the student is willing to use in any year, "
        "when the text names no year, e.g. 'summer classes are fine' -> ['U'].",
    )
    include_courses: list[str] = Field(default_factory=list, description="Course codes wanted.")
    avoid_courses: list[str] = Field(default_factory=list, description="Course codes to avoid.")
    pins: list[CoursePin] = Field(
        default_factory=list,
        description="Courses wanted in one term, e.g. 'I want 15-445 in Fall 2027' -> "
        "[{'course': '15-445', 'term': 'F2027'}].",
    )
    force_courses: list[str] = Field(
        default_factory=list,
        description="Course codes the student wants planned even though they lack a "
        "prerequisite or the course is not normally offered then (e.g. 'force 15-440', "
        "'I have the instructor's permission for 15-440').",
    )
    close_programs: int = Field(
        default=0,
        description="3 when the student asks which minors or programs they are close to or "
        "could add ('what minor could I finish?'); otherwise 0.",
    )
    interests: list[str] = Field(default_factory=list, description="Topics of interest.")
    free_days: list[Literal["M", "T", "W", "R", "F", "S", "U"]] = Field(
        default_factory=list, description="Days to keep free (R = Thursday)."
    )
    not_before: str | None = Field(default=None, description="No class before HH:MM (24h).")
    not_after: str | None = Field(default=None, description="No class after HH:MM (24h).")
    question: str | None = Field(default=None, description="A policy question, verbatim.")
    unresolved: list[str] = Field(
        default_factory=list,
        description="Phrases naming programs, courses or terms that could not be resolved.",
    )
    notes: list[str] = Field(default_factory=list, description="How each finding was read.")


class LLMResult(BaseModel, Generic[T]):
    """A value and what produced it."""

    value: T = Field(description="The result.")
    source: Source = Field(description="offline, gemini, or offline_fallback after a failure.")
    note: str = Field(default="", description="Why a fallback happened, if it did.")


class LLMCall(BaseModel):
    """One model call as recorded in the ledger (never the key)."""

    model_config = ConfigDict(extra="forbid")

    task: Literal["intake", "letter", "critique"] = Field(description="What the call was for.")
    backend: str = Field(description="Backend name.")
    model: str = Field(description="Model name.")
    prompt_hash: str = Field(description="sha256 of the model, task and full prompt.")
    response: str | None = Field(description="The raw reply text, or None on failure.")
    input_tokens: int = Field(default=0, description="Prompt tokens reported by the server.")
    output_tokens: int = Field(default=0, description="Reply tokens reported by the server.")
    latency_ms: float = Field(default=0, description="Wall time of the call including retries.")
    attempts: int = Field(default=1, description="HTTP attempts made.")
    status: Literal["ok", "invalid", "error"] = Field(
        description="Outcome of the call: 'ok' a usable reply; 'invalid' a reply that failed "
        "its check (replayed on resume, so a resume takes the same path); 'error' no usable "
        "reply (HTTP error, timeout, the call's deadline, a body that is not a reply): the "
        "offline path answered, the stage is degraded, and the call is asked again next run."
    )
    error: str | None = Field(default=None, description="Error summary when not ok.")


class LLMLedger(BaseModel):
    """Every call made for one request; replies are reused by prompt hash on resume."""

    model_config = ConfigDict(extra="forbid")

    calls: list[LLMCall] = Field(default_factory=list, description="Calls in order.")
    reused: int = Field(default=0, description="Calls answered from the ledger on resume.")

    def lookup(self, prompt_hash: str) -> LLMCall | None:
        for call in reversed(self.calls):
            if call.prompt_hash == prompt_hash and call.status == "ok":
                return call
        return None

    def record(self, call: LLMCall) -> None:
        self.calls.append(call)

    @property
    def tokens(self) -> int:
        return sum(c.input_tokens + c.output_tokens for c in self.calls)


def prompt_hash(backend: str, model: str, task: str, prompt: str) -> str:
    payload = json.dumps([backend, model, task, prompt], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class LLMBackend(Protocol):
    """What the agents call. Implementations never raise for a bad reply or a failed call:
    they fall back to the offline path, and record a call that got no reply with status
    ``error`` (which is how the engine knows a result is degraded)."""

    name: str
    model: str

    def extract_intake(
        self, text: str, *, catalog: Catalog, ledger: LLMLedger
    ) -> LLMResult[IntakeExtraction]: ...

    def write_letter(self, draft: Recommendation, *, ledger: LLMLedger) -> LLMResult[str]: ...

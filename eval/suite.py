"""The scenario suite: labeled plan requests, run through the whole pipeline in process.

A scenario is one JSON file in ``eval/scenarios/``: a request (the student record inlined,
taken from ``demos/students/`` or derived from one, with the changes listed) and an
``expect`` block decided from the catalog and its policies - what *should* happen, not
what the pipeline happened to say. Invalid requests keep their raw JSON and expect the
request validator (``pipeline.batch_input.RequestValidator``) to reject them at a JSON path.

``SuiteRunner`` runs each scenario with the real stages, the offline backend unless told
otherwise, and a fresh checkpoint directory per pass (a second pass must recompute, not
resume), and keeps the workflow context plus the three renderings for the metrics.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
import time
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Literal

import structlog
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agents.artifacts import Outcome, PlanRequest, RiskKind
from agents.catalog import use_catalog
from agents.catalog.exceptions import UseStatus
from agents.errors import AdvisingError
from agents.llm import LLMLedger
from agents.toolbox import Settings, Toolbox
from agents.writing.render import to_html, to_json, to_markdown
from eval.metrics import ScenarioResult, evaluate
from eval.summary import summarize
from pipeline.approvals import decide
from pipeline.batch_input import InputItem, Invalid, RequestValidator
from pipeline.context import State, WorkflowContext
from pipeline.runner import RequestOptions, ToolboxFactory, run_request
from pipeline.store import CheckpointStore

log = structlog.get_logger(__name__)

SCENARIO_DIR = Path(__file__).resolve().parent / "scenarios"
REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_LABEL = "sample"
"""How reports name the bundled sample catalog."""

Category = Literal[
    "on_track_senior",
    "add_minor",
    "acceleration",
    "probation",
    "study_abroad",
    "time_clash",
    "repeat",
    "transfer",
    "policy_question",
    "free_text",
    "next_term",
    "invalid_request",
    "approval",
    "exception",
    "catalog_year",
    "override",
    "close_programs",
]
ExpectedOutcome = Outcome | Literal["rejected", "awaiting_approval"]

# Keys whose values are wall-clock facts; determinism compares everything else.
VOLATILE_KEYS = frozenset(
    {"created_at", "updated_at", "timings", "solve_ms", "latency_ms", "ms", "at"}
)


class ScenarioError(AdvisingError):
    """A scenario file that cannot be used; the message names the file and the fix."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Expect(_Model):
    """What should happen, decided from the catalog and its policies."""

    outcome: ExpectedOutcome = Field(
        description="Terminal status, or 'rejected' for a request the validator must refuse."
    )
    graduation: str = Field(
        default="any",
        pattern=r"^([A-Z][A-Z0-9]{0,2}[0-9]{4}|none|any)$",
        description="Graduation term of the final plan; 'none' when no plan may be made "
        "(infeasible, question answered); 'any' when the term is not part of the label.",
    )
    violations: list[str] = Field(
        default_factory=list,
        description="Rule ids that some round's critique must report (exactly these).",
    )
    cited_sections: list[str] = Field(
        default_factory=list,
        description="'document/section' ids the recommendation must cite.",
    )
    open_questions: list[str] = Field(
        default_factory=list, description="Open-question fields the recommendation must ask."
    )
    risks: list[RiskKind] = Field(
        default_factory=list, description="Risk kinds the recommendation must name."
    )
    exceptions: dict[str, UseStatus] = Field(
        default_factory=dict,
        description="Advisor exceptions (by id, or kind and subject) and the status the "
        "recommendation must give each: used, unused, expired, invalid, conflicting.",
    )
    plan_includes: list[str] = Field(
        default_factory=list, description="Courses the final plan must contain."
    )
    plan_excludes: list[str] = Field(
        default_factory=list, description="Courses the final plan must not contain."
    )
    plan_places: dict[str, str] = Field(
        default_factory=dict,
        description="Courses the final plan must place in a given term (course -> term code).",
    )
    close_programs: dict[str, bool] = Field(
        default_factory=dict,
        description="Programs the recommendation must (true) or must not (false) list among "
        "those the student could add without delaying graduation.",
    )
    catalog_years: dict[str, str] = Field(
        default_factory=dict,
        description="Catalog year the recommendation must say a program follows, by code.",
    )
    answer_includes: list[str] = Field(
        default_factory=list,
        description="Phrases the answer to a policy question must contain, e.g. the "
        "conclusion for this student ('below the 1.90 threshold: on academic probation').",
    )
    alternatives: list[str] | None = Field(
        default=None,
        description="Labels of the alternatives the recommendation must show, in order, for "
        "a request that asks for them (e.g. ['Equally good', 'Next best: +3 units']); None: "
        "not labeled.",
    )
    invalid_path: str | None = Field(
        default=None,
        description="For rejected requests: the JSON path the validator must name, e.g. "
        "'$.student.gpa'.",
    )


class Decision(_Model):
    """An advisor's decision on a rule the run stops for (``advise approve`` / ``deny``)."""

    rule: str = Field(description="Policy rule id, e.g. 'LOAD-OVERLOAD'.")
    decision: Literal["approved", "denied"] = Field(description="What the advisor decides.")
    by: str = Field(description="Who decides.")
    reason: str = Field(description="Why.")
    terms: list[str] = Field(
        default_factory=list, description="Only these terms (default: every pending one)."
    )


class Scenario(_Model):
    """One labeled request."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$", description="Scenario id (file stem).")
    category: Category = Field(description="What the scenario covers.")
    description: str = Field(description="The situation in one or two sentences.")
    derived_from: str = Field(
        default="", description="Student record it starts from, e.g. 'demos/students/x.json'."
    )
    modifications: list[str] = Field(
        default_factory=list, description="Changes made to that record, one per line."
    )
    rationale: str = Field(description="Why the label is right, from the catalog and policy.")
    request: dict[str, Any] = Field(
        description="The PlanRequest as JSON (kept raw so invalid requests can be stored)."
    )
    expect: Expect = Field(description="The label.")
    decisions: list[Decision] = Field(
        default_factory=list,
        description="Decisions an advisor records when the run stops in awaiting_approval, "
        "in order; the run is then resumed. Without them such a run stays awaiting approval.",
    )
    catalog: str | None = Field(
        default=None,
        description="Catalog the scenario runs on: a catalog JSON file or catalog directory, "
        "relative to the repository root (default: the bundled sample catalog).",
    )

    @property
    def catalog_label(self) -> str:
        return self.catalog or SAMPLE_LABEL


def load_scenarios(directory: Path | None = None) -> list[Scenario]:
    """Every ``*.json`` scenario in ``directory`` and its sub-directories (default: the
    bundled suite; one sub-directory per further catalog), in path order."""
    d = directory or SCENARIO_DIR
    if not d.is_dir():
        raise ScenarioError(f"scenario directory {str(d)!r} does not exist; pass --scenarios DIR")
    out: list[Scenario] = []
    seen: dict[str, Path] = {}
    for path in sorted(d.rglob("*.json"), key=lambda p: (len(p.relative_to(d).parts), p)):
        try:
            scenario = Scenario.model_validate_json(path.read_text(encoding="utf-8"))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first["loc"])
            raise ScenarioError(
                f"{path.name}: {where}: {first['msg']}; fix the file (see eval/suite.py Scenario)"
            ) from None
        if scenario.id != path.stem:
            raise ScenarioError(
                f"{path.name}: id {scenario.id!r} differs from the file name; rename one"
            )
        if scenario.id in seen:
            raise ScenarioError(
                f"{path}: id {scenario.id!r} is also used by {seen[scenario.id]}; ids must be "
                "unique across the suite"
            )
        seen[scenario.id] = path
        if scenario.catalog is not None and not (REPO_ROOT / scenario.catalog).exists():
            raise ScenarioError(
                f"{path.name}: catalog {scenario.catalog!r} does not exist (paths are relative "
                f"to {REPO_ROOT})"
            )
        out.append(scenario)
    if not out:
        raise ScenarioError(f"no *.json scenarios in {str(d)!r}")
    return out


def category_counts(scenarios: list[Scenario]) -> dict[str, int]:
    return dict(sorted(Counter(s.category for s in scenarios).items()))


# --------------------------------------------------------------------------- running


@dataclass
class ScenarioRun:
    """What one pass produced for one scenario."""

    scenario: Scenario
    request: PlanRequest | None = None
    invalid: str | None = None
    ctx: WorkflowContext | None = None
    outputs: dict[str, str] = field(default_factory=dict)
    ms: float = 0.0
    error: str | None = None

    @property
    def digest(self) -> str:
        """sha256 of everything the run produced except wall-clock values and where the
        repository is checked out (a catalog's path is written ``<repo>/...``): two clones
        of one commit give one digest."""
        h = hashlib.sha256()

        def put(text: str) -> None:
            h.update(text.replace(str(REPO_ROOT), "<repo>").encode("utf-8"))

        if self.invalid is not None:
            put(self.invalid)
        if self.ctx is not None:
            stable = strip_volatile(self.ctx.model_dump(mode="json"))
            put(json.dumps(stable, sort_keys=True))
        for name in sorted(self.outputs):
            put(name + "\0" + self.outputs[name])
        return h.hexdigest()


def strip_volatile(value: Any) -> Any:
    """``value`` without the keys in VOLATILE_KEYS, at any depth."""
    if isinstance(value, dict):
        return {k: strip_volatile(v) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [strip_volatile(v) for v in value]
    return value


class SuiteRunner:
    """Runs scenarios through ``pipeline.runner.run_request`` with the real stages."""

    def __init__(
        self,
        work_dir: Path,
        *,
        backend: str = "offline",
        settings: Settings | None = None,
        factory: ToolboxFactory | None = None,
    ) -> None:
        self.work_dir = work_dir
        self.settings = settings or Settings()
        self.factory = factory or ToolboxFactory(backend=backend)
        self.validator = RequestValidator()
        self.decisions: list[Decision] = []

    def _run(self, request: PlanRequest, store: CheckpointStore) -> WorkflowContext:
        """Run the request; record the scenario's decisions whenever it stops for approval
        (as ``advise approve`` / ``deny`` would, on the request's as_of day) and resume."""
        ctx = run_request(
            request,
            RequestOptions(
                store=store, toolbox_factory=self.factory, settings=self.settings, out_dir=None
            ),
        )
        day = request.as_of or date.today()
        for d in self.decisions:
            if ctx.state is not State.awaiting_approval:
                break
            decide(store, request.request_id, d.rule, d.decision, by=d.by, reason=d.reason,
                   on=day, terms=d.terms)  # fmt: skip
            ctx = run_request(
                request,
                RequestOptions(
                    store=store, toolbox_factory=self.factory, settings=self.settings, out_dir=None
                ),
            )
        return ctx

    def tools(self) -> Toolbox:
        """A toolbox on the same catalog and backend, for the metrics' own checks."""
        return self.factory(LLMLedger(), self.settings)

    def run(self, scenario: Scenario, pass_no: int = 1) -> ScenarioRun:
        out = ScenarioRun(scenario=scenario)
        self.decisions = scenario.decisions
        checked = self.validator.check(
            InputItem(source=scenario.id, text=json.dumps(scenario.request))
        )
        if isinstance(checked, Invalid):
            out.invalid = checked.message
            return out
        out.request = checked
        store = CheckpointStore(self.work_dir / f"pass-{pass_no}")
        started = time.perf_counter()
        try:
            ctx = self._run(checked, store)
        except AdvisingError as exc:  # lock, fingerprint: the run never started
            out.error = f"{type(exc).__name__}: {exc}"
            return out
        finally:
            out.ms = (time.perf_counter() - started) * 1000
        out.ctx = ctx
        if ctx.state is State.awaiting_approval:
            return out  # measured as it stands: what it waits for is the result
        if ctx.state is not State.done or ctx.recommendation is None:
            last = ctx.errors[-1] if ctx.errors else None
            out.error = (
                f"{last.stage.value}: {last.type}: {last.message}" if last else str(ctx.state.value)
            )
            return out
        rec = ctx.recommendation
        with use_catalog(self.factory.catalog):  # term names and credits as the catalog has them
            out.outputs = {"json": to_json(rec), "md": to_markdown(rec), "html": to_html(rec)}
        log.info(
            "eval.scenario",
            scenario=scenario.id,
            outcome=ctx.outcome,
            rounds=ctx.round,
            ms=round(out.ms, 1),
        )
        return out


# --------------------------------------------------------------------------- the suite


@dataclass
class SuiteReport:
    """Per-scenario results and the suite's numbers."""

    results: list[ScenarioResult]
    summary: dict[str, Any]
    categories: dict[str, int]
    backend: str
    per_catalog: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The same numbers for the scenarios of each catalog ('sample' or its path)."""

    def as_json(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "categories": self.categories,
            "summary": self.summary,
            "per_catalog": self.per_catalog,
            "scenarios": [r.model_dump(mode="json") for r in self.results],
        }


def run_suite(
    scenarios: list[Scenario],
    *,
    backend: str = "offline",
    recheck: Collection[str] | None = None,
    resolve: bool = True,
    work_dir: Path | None = None,
) -> SuiteReport:
    """Run every scenario, measure it, then run ``recheck`` (default: every scenario) a
    second time from scratch and compare the two runs for determinism. Scenarios run on
    their own catalogs; the numbers are reported for the whole suite and per catalog."""
    started = time.perf_counter()
    groups: dict[str, list[Scenario]] = {}
    for scenario in scenarios:
        groups.setdefault(scenario.catalog_label, []).append(scenario)
    results: dict[str, ScenarioResult] = {}
    determinism: dict[str, bool] = {}
    per_catalog: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="advise-eval-") as tmp:
        root = work_dir or Path(tmp)
        for n, (label, group) in enumerate(groups.items()):
            group_started = time.perf_counter()
            catalog = group[0].catalog
            factory = ToolboxFactory(
                catalog_path=None if catalog is None else REPO_ROOT / catalog, backend=backend
            )
            runner = SuiteRunner(root / f"catalog-{n}", backend=backend, factory=factory)
            tools = runner.tools()
            digests: dict[str, str] = {}
            for scenario in group:
                run = runner.run(scenario, pass_no=1)
                with use_catalog(tools.catalog):
                    result = evaluate(run, tools, resolve=resolve)
                digests[scenario.id] = result.digest
                results[scenario.id] = result
            again = [s for s in group if recheck is None or s.id in recheck]
            checked = {s.id: runner.run(s, pass_no=2).digest == digests[s.id] for s in again}
            determinism.update(checked)
            per_catalog[label] = summarize(
                [results[s.id] for s in group],
                wall_s=time.perf_counter() - group_started,
                determinism=checked if again else None,
            )
    ordered = [results[s.id] for s in scenarios]
    summary = summarize(
        ordered,
        wall_s=time.perf_counter() - started,
        determinism=determinism if determinism else None,
    )
    return SuiteReport(
        results=ordered,
        summary=summary,
        categories=category_counts(scenarios),
        backend=backend,
        per_catalog=per_catalog,
    )

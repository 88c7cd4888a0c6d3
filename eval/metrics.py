"""Quality metrics of one scenario run, and of the suite.

Per scenario (``evaluate``):

- outcome and graduation term against the label;
- violations: the rule ids every round's critique reported against the labeled set; an
  expected *hard* violation that no round reported is a miss that fails the suite;
- validity: the final plan re-checked by the independent verifier
  (``agents.verifier.verify.verify_plan``) under the final constraint set rebuilt with
  ``agents.planning.to_plan_constraints``, with the next-term sections whenever the
  pipeline says they are clash-free;
- optimality: the planner re-run on the final constraints (its proven optimum), and the
  simple lower bound of ``eval.bounds`` (remaining units at the heaviest allowed load, the
  longest chain of prerequisites still to take);
- citations: every violation's, risk's and recommendation citation names the section its
  rule cites in the catalog and quotes it exactly; the labeled sections are cited;
- open questions: the labeled fields are asked;
- alternatives (``eval.alternatives``): each one shown re-verified and distinct, and their
  labels against the scenario's ``expect.alternatives``.

``eval.summary.summarize`` folds the per-scenario results into the suite's numbers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from agents.advice.alternatives import as_result
from agents.artifacts import CitationRef, IntakeResult, RequirementsProposal, Schedule
from agents.catalog import Catalog
from agents.planner import PlannedTerm, plan
from agents.planning import to_plan_constraints
from agents.scheduling import FORCIBLE
from agents.toolbox import Toolbox
from agents.verifier import verify_plan
from eval.alternatives import alternative_defects
from eval.bounds import enrolled_terms_between, lower_bound

if TYPE_CHECKING:
    from eval.suite import ScenarioRun


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ScenarioResult(_Model):
    """One scenario's run measured against its label."""

    id: str = Field(description="Scenario id.")
    category: str = Field(description="Scenario category.")
    expected_outcome: str = Field(description="Labeled outcome.")
    outcome: str = Field(description="Outcome got: a terminal status, 'rejected' or 'failed'.")
    outcome_ok: bool = Field(description="Outcome (and for rejections the JSON path) matches.")
    expected_graduation: str = Field(description="Labeled graduation term, 'none' or 'any'.")
    graduation: str = Field(description="Graduation term of the final plan, or 'none'.")
    graduation_ok: bool | None = Field(description="Matches the label; None when 'any'.")
    rounds: int = Field(description="Negotiation rounds run.")
    violations_expected: list[str] = Field(description="Labeled rule ids.")
    violations_found: list[str] = Field(description="Rule ids reported in any round.")
    violations_missed: list[str] = Field(description="Labeled but never reported.")
    violations_unexpected: list[str] = Field(description="Reported but not labeled.")
    hard_missed: list[str] = Field(description="Missed rule ids whose rule is hard.")
    citations_checked: int = Field(description="Citations checked against the catalog.")
    citation_errors: list[str] = Field(description="Citations that name the wrong text.")
    sections_expected: list[str] = Field(description="Labeled 'document/section' ids.")
    sections_missing: list[str] = Field(description="Labeled sections not cited.")
    open_questions_expected: list[str] = Field(description="Labeled open-question fields.")
    open_questions_found: list[str] = Field(description="Open-question fields asked.")
    open_questions_missing: list[str] = Field(description="Labeled fields not asked.")
    risks_expected: list[str] = Field(description="Labeled risk kinds.")
    risks_found: list[str] = Field(description="Risk kinds in the recommendation.")
    risks_missing: list[str] = Field(description="Labeled risk kinds not named.")
    label_mismatches: list[str] = Field(
        default_factory=list,
        description="Exception statuses, planned courses, catalog years and answer phrases "
        "that differ from the label.",
    )
    alternatives_expected: list[str] | None = Field(
        default=None, description="Labeled alternative labels, in order (None: not labeled)."
    )
    alternatives_found: list[str] = Field(
        default_factory=list, description="Labels of the alternatives shown, in order."
    )
    alternative_defects: list[str] = Field(
        default_factory=list,
        description="Alternatives shown that fail the verifier or repeat an earlier plan.",
    )
    plan_checked: bool = Field(description="A final plan existed and was verified.")
    defects: list[str] = Field(description="Verifier defects of the final plan.")
    defects_any_round: int = Field(description="Defects the pipeline logged in any round.")
    solver_status: str = Field(description="Solver status of the final schedule.")
    resolved_graduation: str | None = Field(
        description="Graduation of the planner re-run on the final constraints."
    )
    optimum_match: bool | None = Field(description="Plan graduates when the re-run does.")
    lower_bound: str | None = Field(description="Earliest graduation the simple bound allows.")
    gap_terms: int | None = Field(description="Enrolled terms between bound and graduation.")
    invalid_message: str | None = Field(description="The validator's message, if rejected.")
    error: str | None = Field(description="Why the run failed, if it did.")
    ms: float = Field(description="Pipeline wall time in milliseconds.")
    digest: str = Field(description="sha256 of the run without wall-clock values.")


# --------------------------------------------------------------------------- per scenario


def evaluate(run: ScenarioRun, tools: Toolbox, *, resolve: bool = True) -> ScenarioResult:
    """Measure ``run`` against its scenario's label (``resolve``: re-run the planner)."""
    s, exp = run.scenario, run.scenario.expect
    catalog = tools.catalog
    r = _Partial()
    if run.invalid is not None:
        outcome = "rejected"
        # One problem, or "N problems: A | B | ...": the labeled path must name one of them.
        problems = re.sub(r"^\d+ problems: ", "", run.invalid).split(" | ")
        path_ok = exp.invalid_path is None or any(
            p.startswith(f"{exp.invalid_path}:") for p in problems
        )
        outcome_ok = exp.outcome == "rejected" and path_ok
    else:
        outcome, outcome_ok = "failed", False
        if run.ctx is not None:
            _run_checks(r, run, tools, resolve)
            if run.ctx.recommendation is not None:
                outcome = run.ctx.recommendation.outcome
                outcome_ok = outcome == exp.outcome
            elif run.ctx.state.value == "awaiting_approval":
                outcome = "awaiting_approval"
                outcome_ok = outcome == exp.outcome
    missed = [x for x in exp.violations if x not in r.found]
    rule = catalog.rule_by_id
    return ScenarioResult(
        id=s.id,
        category=s.category,
        expected_outcome=exp.outcome,
        outcome=outcome,
        outcome_ok=outcome_ok,
        expected_graduation=exp.graduation,
        graduation=r.graduation,
        graduation_ok=None if exp.graduation == "any" else r.graduation == exp.graduation,
        rounds=r.rounds,
        violations_expected=sorted(exp.violations),
        violations_found=r.found,
        violations_missed=missed,
        violations_unexpected=[x for x in r.found if x not in exp.violations],
        hard_missed=[x for x in missed if x in rule and rule[x].severity == "hard"],
        citations_checked=r.cited_checked,
        citation_errors=r.cite_errors,
        sections_expected=list(exp.cited_sections),
        sections_missing=r.sections_missing,
        open_questions_expected=sorted(exp.open_questions),
        open_questions_found=r.questions,
        open_questions_missing=[q for q in exp.open_questions if q not in r.questions],
        risks_expected=sorted(exp.risks),
        risks_found=r.risks,
        risks_missing=[k for k in exp.risks if k not in r.risks],
        label_mismatches=r.label_mismatches,
        alternatives_expected=exp.alternatives,
        alternatives_found=r.alternatives,
        alternative_defects=r.alternative_defects,
        plan_checked=r.plan_checked,
        defects=r.defects,
        defects_any_round=r.defects_any,
        solver_status=r.solver,
        resolved_graduation=r.resolved,
        optimum_match=r.optimum_match,
        lower_bound=r.lower_bound,
        gap_terms=r.gap,
        invalid_message=run.invalid,
        error=run.error,
        ms=round(run.ms, 1),
        digest=run.digest,
    )


@dataclass
class _Partial:
    rounds: int = 0
    found: list[str] = field(default_factory=list)
    cited_checked: int = 0
    cite_errors: list[str] = field(default_factory=list)
    sections_missing: list[str] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    risks: list[str] = field(default_factory=list)
    graduation: str = "none"
    solver: str = "not_run"
    plan_checked: bool = False
    defects: list[str] = field(default_factory=list)
    defects_any: int = 0
    resolved: str | None = None
    optimum_match: bool | None = None
    lower_bound: str | None = None
    gap: int | None = None
    label_mismatches: list[str] = field(default_factory=list)
    alternatives: list[str] = field(default_factory=list)
    alternative_defects: list[str] = field(default_factory=list)


def _run_checks(r: _Partial, run: ScenarioRun, tools: Toolbox, resolve: bool) -> None:
    """Everything measured on a pipeline run: what every round reported, what the
    recommendation says, and the final plan (a failed run is measured as far as it got)."""
    ctx, exp, catalog = run.ctx, run.scenario.expect, tools.catalog
    assert ctx is not None
    r.rounds = len(ctx.schedules)
    r.found = sorted({v.rule_id for c in ctx.critiques for v in c.violations})
    cites = [v.citation for c in ctx.critiques for v in c.violations]
    cites += [k.citation for c in ctx.critiques for k in c.risks if k.citation]
    rec = ctx.recommendation
    if rec is not None:
        cites += [*rec.citations, *(v.citation for v in rec.violations)]
        cites += [k.citation for k in rec.risks if k.citation]
        cited = {f"{c.document}/{c.section}" for c in rec.citations}
        r.sections_missing = [x for x in exp.cited_sections if x not in cited]
        r.questions = sorted({q.field for q in rec.open_questions})
        r.risks = sorted({k.kind for k in rec.risks})
        r.graduation = rec.graduation_term or "none"
        got = {u.exception: u.status for u in rec.exceptions}
        r.label_mismatches = [
            f"exception {k!r}: expected {v}, got {got.get(k, 'nothing')}"
            for k, v in exp.exceptions.items()
            if got.get(k) != v
        ]
        planned = {c.course for t in rec.plan for c in t.courses}
        r.label_mismatches += [f"plan lacks {c}" for c in exp.plan_includes if c not in planned]
        r.alternatives = [a.label for a in rec.alternatives]
        if exp.alternatives is not None and r.alternatives != exp.alternatives:
            r.label_mismatches.append(
                f"alternatives: expected {exp.alternatives}, got {r.alternatives}"
            )
        r.alternative_defects = alternative_defects(rec, ctx, tools)
        r.label_mismatches += [f"plan has {c}" for c in exp.plan_excludes if c in planned]
        close = {p.code for p in rec.close_programs.close} if rec.close_programs else set()
        r.label_mismatches += [
            f"{code} {'not ' if want else ''}listed as close by"
            for code, want in exp.close_programs.items()
            if (code in close) != want
        ]
        where = {c.course: t.term for t in rec.plan for c in t.courses}
        r.label_mismatches += [
            f"{c} is in {where.get(c, 'no term')}, expected {t}"
            for c, t in exp.plan_places.items()
            if where.get(c) != t
        ]
        r.label_mismatches += [
            f"{code} follows {rec.catalog_years.get(code, 'no')} catalog, expected {year}"
            for code, year in exp.catalog_years.items()
            if rec.catalog_years.get(code) != year
        ]
        r.label_mismatches += [
            f"the answer lacks {text!r}"
            for text in exp.answer_includes
            if text not in (rec.answer or "")
        ]
    elif ctx.approvals and ctx.critiques:
        # Waiting for approval: what is asked for, and the plan it is asked for, are the result.
        asked = [a.citation for a in ctx.approvals]
        cites += asked
        cited = {f"{c.document}/{c.section}" for c in asked}
        r.sections_missing = [x for x in exp.cited_sections if x not in cited]
        r.risks = sorted({k.kind for k in ctx.critiques[-1].risks})
        r.graduation = ctx.schedules[-1].graduation_term or "none"
    else:
        r.sections_missing = list(exp.cited_sections)
    r.cited_checked, r.cite_errors = len(cites), _citation_errors(catalog, cites)
    final = ctx.schedules[-1] if ctx.schedules else None
    r.defects_any = sum(len(x.verification) for x in ctx.schedules)
    if final is not None and ctx.intake is not None and ctx.proposal is not None:
        r.solver = final.solver_status
        told = " ".join(k.message for k in rec.risks) if rec is not None else ""
        _plan_checks(r, final, ctx.intake, ctx.proposal, tools, resolve, told)


def _citation_errors(catalog: Catalog, cites: Sequence[CitationRef]) -> list[str]:
    """Citations that are not the catalog's text: a rule's citation must be the section the
    rule cites; every quote must be that section's text, word for word."""
    errors: list[str] = []
    for c in cites:
        where = f"{c.document}/{c.section}"
        if c.rule_id is not None:
            rule = catalog.rule_by_id.get(c.rule_id)
            if rule is None:
                errors.append(f"{c.rule_id}: not a rule in the catalog")
                continue
            want = f"{rule.citation.document}/{rule.citation.section}"
            if where != want:
                errors.append(f"{c.rule_id}: cites {where}, the rule is stated in {want}")
                continue
        doc = catalog.document_by_id.get(c.document)
        section = next((x for x in doc.sections if x.id == c.section), None) if doc else None
        if section is None:
            errors.append(f"{where}: no such section in the catalog")
        elif c.quote != section.text:
            errors.append(f"{where}: the quote is not the section's text")
    return errors


@dataclass
class _Plan:
    """A Schedule seen through the verifier's PlanLike protocol."""

    terms: list[PlannedTerm]
    graduation_term: str | None


@dataclass
class _Sections:
    """Next-term sections seen through the verifier's SectionsLike protocol."""

    term: str
    sections: dict[str, str]
    free_days: list[str]
    not_before: str | None
    not_after: str | None


def plannable_programs(intake: IntakeResult, proposal: RequirementsProposal) -> list[str]:
    """The programs the plan is for: targets without what-if programs the student may not
    add (the critique reports those; no plan is made for them)."""
    blocked = set()
    if proposal.audit is not None:
        blocked = {p.code for p in proposal.audit.programs if not p.eligible}
    return [p for p in intake.target_programs if p not in blocked]


def _plan_checks(
    r: _Partial,
    final: Schedule,
    intake: IntakeResult,
    proposal: RequirementsProposal,
    tools: Toolbox,
    resolve: bool,
    told: str = "",
) -> None:
    """Verify the final plan; ``told`` is the text of the recommendation's risks: a broken
    time wish is a defect unless a risk names the course."""
    if final.status != "done" or final.solver_status not in ("optimal", "feasible"):
        return
    if final.constraints is None or intake.student is None:
        r.plan_checked, r.defects = True, ["the final schedule has no constraint set"]
        return
    student, programs = intake.student, plannable_programs(intake, proposal)
    pc = to_plan_constraints(final.constraints, intake, tools)
    the_plan = _Plan(terms=as_result(final).terms, graduation_term=final.graduation_term)
    nt, prefs = final.next_term, intake.constraints.time_preferences
    sections = None
    # A clash-free choice ('ok') is checked whole, time wishes included.
    if nt is not None and nt.status == "ok":
        sections = _Sections(
            term=nt.term,
            sections={p.course: p.section for p in nt.sections},
            free_days=list(prefs.free_days),
            not_before=prefs.not_before,
            not_after=prefs.not_after,
        )
    defects = verify_plan(
        tools.catalog,
        student,
        programs,
        pc,
        the_plan,
        sections=sections,
        next_term=nt.term if nt is not None else None,
    )
    r.plan_checked = True
    r.defects = [
        f"{d.kind} ({d.term or '-'}): {d.message}"
        for d in defects
        if not (d.kind == "free_time" and d.course and d.course in told)
        # A check the student overrode by forcing the course, disclosed as a risk.
        and not (d.course in pc.forced and d.kind in FORCIBLE and d.course in told)
    ]
    grad = final.graduation_term
    bound = lower_bound(tools.catalog, student, programs, pc)
    r.lower_bound = bound
    if grad is not None and bound is not None:
        r.gap = enrolled_terms_between(bound, grad, student, pc)
    if resolve:
        again = plan(tools.catalog, student, programs, pc)
        r.resolved = again.graduation_term
        r.optimum_match = again.graduation_term == grad

"""Synthesis agent: turns the final artifacts and the negotiation history into the
Recommendation the student and advisor read.

Facts come from the artifacts and the catalog: the plan and sections from the schedule,
risks and violations from the critique (plus the schedule's own binding reasons), quotes
from the catalog's document sections. Policy questions are answered by quoting the
sections retrieval ranks first, and, for questions about course load, by naming the load
rules that apply to this student's GPA, standing and status. The letter is written last,
from the finished draft, by the configured backend (the template offline).
"""

from __future__ import annotations

import structlog

from agents.advice.alternatives import alternative_plans
from agents.advice.answers import (
    LETTER_SOURCE,
    STATUS_WORDS,
    cite,
    cite_rule,
    dedupe_citations,
    policy_answer,
    progress_answer,
    term_label,
)
from agents.advice.suggestions import close_report
from agents.artifacts import (
    ApprovalItem,
    ApprovalUse,
    Critique,
    IntakeResult,
    NegotiationRound,
    Outcome,
    Recommendation,
    RequirementsProposal,
    Risk,
    Schedule,
)
from agents.audit import audit, requirement_titles
from agents.audit.exceptions import approval_problems
from agents.case import Case
from agents.catalog import Catalog, credits_text, unit_name
from agents.catalog.exceptions import ExceptionUse, use_of
from agents.catalog.overrides import effective_catalog
from agents.policy import applicable_rules, num
from agents.toolbox import Toolbox

log = structlog.get_logger(__name__)

# --------------------------------------------------------------------------- risks

# Words in a schedule's binding reason and the kind of risk they signal, first match wins.
REASON_KINDS = (
    ("consent", "consent_needed"),
    ("offered", "offering"),
    ("section", "sections"),
    ("clash", "sections"),
    ("target", "target_missed"),
)


def _reason_kind(reason: str) -> str:
    return next((kind for word, kind in REASON_KINDS if word in reason.lower()), "other")


def collect_risks(schedule: Schedule, critique: Critique) -> list[Risk]:
    """The critique's risks, then the schedule's binding reasons and section clashes the
    critique did not already state."""
    risks = list(critique.risks)
    said = {r.message for r in risks}
    # The critique states consent per course and term; the planner's note says the same.
    covered = {r.kind for r in risks} & {"consent_needed"}
    for reason in schedule.reasons:
        if _reason_kind(reason) in covered:
            continue
        if reason not in said:
            risks.append(Risk.model_validate({"kind": _reason_kind(reason), "message": reason}))
            said.add(reason)
    nt = schedule.next_term
    if (
        nt
        and nt.status in ("clash", "no_sections")
        and not any(r.kind == "sections" for r in risks)
    ):
        detail = "; ".join(nt.clashes or nt.unscheduled)
        what = "clash-free sections" if nt.status == "clash" else "sections"
        risks.append(
            Risk(
                kind="sections",
                term=nt.term,
                message=f"No {what} for {term_label(nt.term)}" + (f": {detail}" if detail else "."),
            )
        )
    return risks


# --------------------------------------------------------------------------- summary


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _programs_phrase(intake: IntakeResult) -> str:
    kept = [p for p in intake.target_programs if p not in intake.added_programs]
    added, dropped = intake.added_programs, intake.dropped_programs
    text = "with " + _and(kept) if kept else ""
    if added and dropped:
        change = f"switching from {_and(dropped)} to {_and(added)}"
        text += f", {change}" if text else change
    elif added:
        text += (", adding " if text else "adding ") + _and(added)
    return text


def _approval_phrases(catalog: Catalog, schedule: Schedule, approvals: list[Risk]) -> str:
    """One sentence per rule: the terms that need its approval and their units."""
    by_rule: dict[str | None, list[Risk]] = {}
    for r in approvals:
        by_rule.setdefault(r.rule_id, []).append(r)
    units_of = {t.term: t.units for t in schedule.terms}
    out = []
    for rule_id, risks in by_rule.items():
        rule = catalog.rule_by_id.get(rule_id or "")
        who = (
            f"{rule.requires_approval} approval" if rule and rule.requires_approval else "approval"
        )
        terms = [r.term for r in risks if r.term]
        units = sorted({units_of[t] for t in terms if t in units_of})
        text = (_and([term_label(t) for t in terms]) if terms else "The plan") + (
            " need " if len(terms) > 1 else " needs "
        )
        text += who
        if units:
            amount = (
                credits_text(units[0])
                if len(units) == 1
                else f"{num(units[0])}-{num(units[-1])} {unit_name()}"
            )
            text += f" for {amount}"
        out.append(text + (f" ({rule_id})." if rule_id else "."))
    return " ".join(out)


def progress_summary(intake: IntakeResult, proposal: RequirementsProposal) -> str:
    p = intake.profile
    standing = (
        f"{credits_text(p.units_earned)} earned, {p.class_standing.replace('_', ' ')} standing"
    )
    if proposal.audit is None:
        return f"Progress: {standing}."
    progs = ", ".join(f"{a.code} {STATUS_WORDS[a.status]}" for a in proposal.audit.programs)
    return f"Progress: {progs}; {standing}."


def summarize(
    intake: IntakeResult,
    proposal: RequirementsProposal,
    schedule: Schedule,
    critique: Critique,
    outcome: Outcome,
    risks: list[Risk],
    catalog: Catalog,
    answered_from: tuple[list[str], list[str]] = ([], []),
) -> str:
    """The answer in one or two sentences."""
    grad = term_label(schedule.graduation_term)
    progs = _programs_phrase(intake)
    plan = f"graduate in {grad}" + (f" {progs}" if progs else "") if grad else "no plan"
    if outcome == "answered":
        if intake.intent == "check_progress":
            return progress_summary(intake, proposal)
        headings, rule_ids = answered_from
        rules = f" Load rules that apply to you: {', '.join(rule_ids)}." if rule_ids else ""
        if headings:
            return f"Answered from the policy sections: {', '.join(headings)}.{rules}"
        return f"No policy section matched the question; an advisor will answer it.{rules}"
    if outcome == "needs_input":
        n = len(intake.open_questions)
        first = intake.open_questions[0].question if n else "the request is incomplete."
        more = f" ({n - 1} more question{'s' if n > 2 else ''} below.)" if n > 1 else ""
        return f"Needs input: {first}{more}"
    if outcome == "infeasible":
        first = schedule.reasons[0].rstrip(".") if schedule.reasons else "no plan fits"
        text = f"Infeasible: {first}."  # an older checkpoint's schedule does not say which
        if schedule.infeasible_kind == "proven":
            text = f"Infeasible: no plan exists - {first}."
        elif schedule.infeasible_kind == "timed_out":
            # Never a proof: what ran out, where, and that it decides nothing.
            text = f"No plan found in time: {first}."
        if schedule.earliest_feasible_term:
            text += f" Earliest feasible graduation: {term_label(schedule.earliest_feasible_term)}."
        return text
    if outcome == "unresolved_after_max_rounds":
        ids = sorted({v.rule_id for v in critique.violations})
        return (
            f"Unresolved after {critique.round} round{'s' if critique.round > 1 else ''}: "
            f"{_and(ids) if ids else 'the critique'} "
            f"still violated; the last proposal would {plan}."
        )
    text = f"{'Approved' if outcome == 'approved' else 'Approved with risks'}: {plan}."
    approvals = [r for r in risks if r.kind == "approval_needed"]
    if approvals:
        text += " " + _approval_phrases(catalog, schedule, approvals)
    if len(risks) > len(approvals):
        n = len(risks) - len(approvals)
        other = " other" if approvals else ""
        text += f" {n}{other} risk{'s' if n > 1 else ''} to review."
    return text


def decisions_phrase(approvals: list[ApprovalUse]) -> str:
    """' Approved by Dr. Rivera on 2026-11-23: LOAD-OVERLOAD for Spring 2027 and Fall 2027.'
    - one sentence per decision maker and verdict."""
    groups: dict[tuple[str, str, str, str], list[str]] = {}
    for a in approvals:
        groups.setdefault((a.decision, a.by, a.date, a.rule_id), []).append(term_label(a.term))
    out = ""
    for (decision, by, day, rule_id), terms in groups.items():
        out += f" {decision.capitalize()} by {by} on {day}: {rule_id} for {_and(terms)}."
    return out


def years_phrase(years: dict[str, str]) -> str:
    """' IS-BS follows the 2024-2025 catalog and CS-MIN the 2026-2027 one.' when the
    programs follow different catalog years; empty otherwise."""
    if len(set(years.values())) < 2:
        return ""
    (first, year), *rest = years.items()
    others = [f"{code} the {y} one" for code, y in rest]
    return f" {first} follows the {year} catalog and {_and(others)}."


def exception_uses(
    intake: IntakeResult, schedule: Schedule, critique: Critique, catalog: Catalog
) -> list[ExceptionUse]:
    """What each advisor exception did: program exceptions in the final plan's audit, the
    record's approvals in the critique (used by a planned term, or not needed), and the
    expired ones."""
    student = intake.student
    if student is None or not student.exceptions:
        return list(intake.exceptions_expired)
    programs = [p for p in intake.target_programs if p in catalog.program_by_code]
    planned = {c.course: t.term for t in schedule.terms if not t.away for c in t.courses}
    if programs:
        uses = list(audit(catalog, student, programs, planned=planned).exceptions)
    else:
        uses = approval_problems(catalog, student)
    invalid = {u.exception for u in uses if u.kind == "approve"}
    for grant in student.approvals():
        if grant.label() in invalid:
            continue
        terms = [
            a.term
            for a in critique.approvals
            if a.source == "record" and a.rule_id == grant.rule and a.by == grant.by
        ]
        if terms:
            note = f"{grant.rule} approved for {_and([term_label(t) for t in terms])}"
            uses.append(use_of(grant, "used", note))
        else:
            uses.append(use_of(grant, "unused", "no planned term needed it"))
    return [*uses, *intake.exceptions_expired]


# --------------------------------------------------------------------------- run


def run(case: Case, tools: Toolbox) -> Recommendation:
    """The stage: the recommendation for the run's last round and terminal status."""
    return synthesize(
        case.need_intake(),
        case.need_proposal(),
        case.schedule,
        case.critique,
        list(case.negotiation),
        case.need_outcome(),
        tools,
        alternatives=case.request.alternatives,
        decisions=case.approvals,
        close=case.need_intake().goals.close_programs,
    )


def synthesize(
    intake: IntakeResult,
    proposal: RequirementsProposal,
    schedule: Schedule,
    critique: Critique,
    rounds: list[NegotiationRound],
    outcome: Outcome,
    tools: Toolbox,
    *,
    alternatives: int = 0,
    decisions: tuple[ApprovalItem, ...] = (),
    close: int = 0,
) -> Recommendation:
    """Build the Recommendation and its letter; with ``alternatives``, that many checked
    plans beside the recommended one (``agents.advice.alternatives``), found once, here; with
    ``close``, the programs close by (``agents.advice.suggestions``)."""
    catalog = tools.catalog
    risks = collect_risks(schedule, critique)
    # What the plan assumes for the student to settle (an undeclared concentration).
    risks += [Risk(kind="other", message=n[0].upper() + n[1:]) for n in intake.assumed]
    violations = [] if outcome in ("approved", "approved_with_risks") else critique.violations
    citations = [v.citation for v in violations] + [r.citation for r in risks if r.citation]
    for rnd in rounds:
        citations += [
            c for ch in rnd.revision if ch.rule_id and (c := cite_rule(catalog, ch.rule_id))
        ]
    answer: str | None = None
    answered_from: tuple[list[str], list[str]] = ([], [])
    if intake.intent == "policy_question":
        answer, found, rule_ids = policy_answer(intake, tools)
        answered_from = ([c.heading for c in found if c.rule_id is None], rule_ids)
        citations += found
    elif intake.intent == "check_progress":
        answer = progress_answer(intake, proposal)
    if schedule.terms and intake.profile.academic_status != "good":
        # A student not in good standing plans under a status rule (e.g. the probation
        # load cap) even when the plan breaks nothing: cite the rule that governs them.
        citations += [
            c
            for r in applicable_rules(catalog, intake.profile)
            if r.applies_when.status_in and (c := cite_rule(catalog, r.id))
        ]
    own = effective_catalog(catalog, intake.student) if intake.student else catalog
    for code in intake.added_programs:
        prog = own.program_by_code.get(code)  # the version of the year the student follows
        doc = catalog.document_by_id.get(prog.document) if prog and prog.document else None
        if doc is not None:
            citations += [cite(catalog, doc.id, s.id) for s in doc.sections]
    citations += [a.citation for a in critique.approvals]
    others, others_note = alternative_plans(
        intake, proposal, schedule, critique, outcome, alternatives, tools, decisions
    )
    draft = Recommendation(
        request_id=intake.request_id,
        student_id=intake.profile.student_id,
        student_name=intake.profile.name,
        intent=intake.intent,
        outcome=outcome,
        summary=summarize(
            intake, proposal, schedule, critique, outcome, risks, catalog, answered_from
        )
        + decisions_phrase(critique.approvals)
        + years_phrase(catalog_years(proposal)),
        programs=list(intake.target_programs),
        catalog_years=catalog_years(proposal),
        close_programs=close_report(intake, schedule, close, tools),
        plan=list(schedule.terms),
        graduation_term=schedule.graduation_term,
        infeasible_kind=schedule.infeasible_kind if outcome == "infeasible" else None,
        time_limits=list(schedule.time_limits),
        next_term=schedule.next_term,
        counter_proposal=schedule.counter_proposal,
        target_blockers=list(schedule.target_blockers),
        alternatives=others,
        alternatives_note=others_note,
        risks=risks,
        violations=list(violations),
        citations=dedupe_citations(citations),
        open_questions=list(intake.open_questions),
        answer=answer,
        negotiation=list(rounds),
        exceptions=exception_uses(intake, schedule, critique, catalog),
        approvals=list(critique.approvals),
        letter="",
        letter_source="template",
    )
    # Titles of the requirements the draft names by id (what courses count toward, the
    # planner's reasons), for everything written for people; the ids stay for machines.
    titles = requirement_titles(proposal.audit, mentioned_in=draft.model_dump_json())
    draft = draft.model_copy(update={"requirement_titles": titles})
    result = tools.llm.write_letter(draft, ledger=tools.ledger)
    rec = draft.model_copy(
        update={
            "letter": result.value,
            "letter_source": LETTER_SOURCE[result.source],
            "letter_note": result.note,
        }
    )
    log.info(
        "synthesis.done",
        request_id=rec.request_id,
        outcome=outcome,
        citations=len(rec.citations),
        risks=len(rec.risks),
        letter_source=rec.letter_source,
    )
    return rec


def catalog_years(proposal: RequirementsProposal) -> dict[str, str]:
    """The catalog year of each audited program's version (empty without an audit)."""
    if (report := proposal.audit) is None:
        return {}
    return {p.code: p.catalog_year or report.catalog_year for p in report.programs}

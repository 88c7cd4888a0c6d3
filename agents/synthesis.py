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

import re
from collections.abc import Iterable

import structlog

from agents.artifacts import (
    CitationRef,
    Critique,
    IntakeResult,
    NegotiationRound,
    Outcome,
    Recommendation,
    RequirementsProposal,
    Risk,
    Schedule,
    StudentProfile,
)
from agents.catalog import Catalog, PolicyRule, Term
from agents.policy import applicable_rules
from agents.toolbox import Toolbox

log = structlog.get_logger(__name__)

LETTER_SOURCE = {"offline": "template", "gemini": "gemini", "offline_fallback": "template_fallback"}
QUOTED_SECTIONS = 2
LOAD_RULE_KINDS = (
    "max_units_per_term",
    "overload",
    "probation_max_units",
    "min_units_per_term",
    "max_courses_per_term",
)
_LOAD_WORDS = re.compile(
    r"\b(units?|load|overload|credits?|full[- ]time|part[- ]time|how many (?:courses|classes))\b",
    re.IGNORECASE,
)
STATUS_WORDS = {"met": "met", "partly_met": "partly met", "unmet": "not yet met"}


def _label(code: str | None) -> str:
    return Term.parse(code).label() if code else ""


def _num(x: float) -> str:
    return f"{x:g}"


# --------------------------------------------------------------------------- citations


def cite(catalog: Catalog, document: str, section: str, rule_id: str | None = None) -> CitationRef:
    """The exact text of a catalog document section as a citation."""
    sec = catalog.section_text(document, section)
    return CitationRef(
        document=document, section=section, heading=sec.heading, quote=sec.text, rule_id=rule_id
    )


def cite_rule(catalog: Catalog, rule_id: str) -> CitationRef | None:
    rule = catalog.rule_by_id.get(rule_id)
    if rule is None:
        return None
    return cite(catalog, rule.citation.document, rule.citation.section, rule.id)


def dedupe_citations(citations: Iterable[CitationRef]) -> list[CitationRef]:
    """One citation per document section, in first-seen order; a section first cited
    without a rule takes the rule id of a later citation of it."""
    out: dict[tuple[str, str], CitationRef] = {}
    for c in citations:
        key = (c.document, c.section)
        if key not in out:
            out[key] = c
        elif out[key].rule_id is None and c.rule_id is not None:
            out[key] = out[key].model_copy(update={"rule_id": c.rule_id})
    return list(out.values())


# --------------------------------------------------------------------------- rules


def condition_gaps(rule: PolicyRule, profile: StudentProfile) -> list[str]:
    """Why ``rule`` does not apply to the student, one phrase per unmet condition."""
    cond = rule.applies_when
    gpa = profile.gpa
    gpa_text = f"{gpa:.2f}" if gpa is not None else "not yet set"
    gaps: list[str] = []
    if cond.gpa_min is not None and (gpa is None or gpa < cond.gpa_min):
        gaps.append(f"a GPA of at least {cond.gpa_min:.1f} (yours is {gpa_text})")
    if cond.gpa_max is not None and (gpa is None or gpa >= cond.gpa_max):
        gaps.append(f"a GPA below {cond.gpa_max:.1f} (yours is {gpa_text})")
    if cond.standing_in and profile.class_standing not in cond.standing_in:
        wanted = ", ".join(s.replace("_", " ") for s in cond.standing_in)
        gaps.append(
            f"class standing {wanted} (yours is {profile.class_standing.replace('_', ' ')})"
        )
    if cond.status_in and profile.academic_status not in cond.status_in:
        gaps.append(
            f"academic status {', '.join(cond.status_in)} (yours is {profile.academic_status})"
        )
    return gaps


def _rule_text(rule: PolicyRule) -> str:
    return f"{rule.id} ({rule.title}): {rule.summary or rule.title}"


def load_rules_answer(catalog: Catalog, profile: StudentProfile) -> tuple[str, list[str]]:
    """A paragraph naming the load rules that apply to the student (the policy engine
    decides) and why the others do not, and the ids of the applying rules."""
    applying = [r for r in applicable_rules(catalog, profile) if r.kind in LOAD_RULE_KINDS]
    ids = {r.id for r in applying}
    gpa = f"GPA {profile.gpa:.2f}" if profile.gpa is not None else "no GPA yet"
    who = (
        f"{gpa}, {profile.class_standing.replace('_', ' ')} standing, "
        f"{profile.academic_status} academic status"
    )
    lines = [f"For you ({who}) these load rules apply:"]
    lines += [f"- {_rule_text(r)}" for r in applying] or ["- none"]
    others = [r for r in catalog.policies if r.kind in LOAD_RULE_KINDS and r.id not in ids]
    for r in others:
        gaps = condition_gaps(r, profile)
        why = " and ".join(gaps) if gaps else "the policy engine's conditions"
        lines.append(f"{r.id} does not apply to you: it requires {why}.")
    return "\n".join(lines), [r.id for r in applying]


# --------------------------------------------------------------------------- answers


def _retrieved(tools: Toolbox, question: str) -> list[CitationRef]:
    hits = tools.retriever.search_policies(question, limit=QUOTED_SECTIONS)
    return [cite(tools.catalog, h.document, h.section) for h in hits]


def policy_answer(intake: IntakeResult, tools: Toolbox) -> tuple[str, list[CitationRef], list[str]]:
    """The answer to a policy question, its citations, and the applying load rules."""
    question = (intake.question or "").strip()
    found = _retrieved(tools, question) if question else []
    parts = [f'You asked: "{question}"'] if question else []
    parts += [f'{c.heading}: "{c.quote}"' for c in found]
    rule_ids: list[str] = []
    if _LOAD_WORDS.search(question):
        paragraph, rule_ids = load_rules_answer(tools.catalog, intake.profile)
        parts.append(paragraph)
        found += [c for r in rule_ids if (c := cite_rule(tools.catalog, r)) is not None]
    if not found:
        parts.append("No policy section matches the question; an advisor will answer it.")
    return "\n\n".join(parts), found, rule_ids


def progress_answer(intake: IntakeResult, proposal: RequirementsProposal) -> str:
    """Where the student stands: each program's status, units, standing."""
    report = proposal.audit
    p = intake.profile
    lines = [
        f"Class standing: {p.class_standing.replace('_', ' ')}; "
        f"{_num(p.units_earned)} units earned, {_num(p.units_in_progress)} in progress."
    ]
    if report is None:
        lines.append(f"No audit was made: {proposal.not_needed_reason or 'nothing to audit'}.")
        return "\n".join(lines)
    for prog in report.programs:
        line = f"- {prog.code} {prog.name}: {STATUS_WORDS[prog.status]}"
        if prog.total_units_required is not None and prog.units_toward_total is not None:
            left = max(prog.total_units_required - prog.units_toward_total, 0)
            line += (
                f"; {_num(prog.units_toward_total)} of {_num(prog.total_units_required)} "
                f"units counted, {_num(left)} to go"
            )
        open_reqs = [c.title or c.id for c in prog.root.children if c.status != "met"]
        if open_reqs:
            line += "; open: " + ", ".join(open_reqs)
        lines.append(line + ".")
    return "\n".join(lines)


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
                message=f"No {what} for {_label(nt.term)}" + (f": {detail}" if detail else "."),
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
        text = (_and([_label(t) for t in terms]) if terms else "The plan") + (
            " need " if len(terms) > 1 else " needs "
        )
        text += who
        if units:
            amount = _num(units[0]) if len(units) == 1 else f"{_num(units[0])}-{_num(units[-1])}"
            text += f" for {amount} units"
        out.append(text + (f" ({rule_id})." if rule_id else "."))
    return " ".join(out)


def progress_summary(intake: IntakeResult, proposal: RequirementsProposal) -> str:
    p = intake.profile
    standing = f"{_num(p.units_earned)} units earned, {p.class_standing.replace('_', ' ')} standing"
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
    grad = _label(schedule.graduation_term)
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
        text = f"Infeasible: {first}."
        if schedule.earliest_feasible_term:
            text += f" Earliest feasible graduation: {_label(schedule.earliest_feasible_term)}."
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


# --------------------------------------------------------------------------- run


def run(
    intake: IntakeResult,
    proposal: RequirementsProposal,
    schedule: Schedule,
    critique: Critique,
    rounds: list[NegotiationRound],
    outcome: Outcome,
    tools: Toolbox,
) -> Recommendation:
    """Build the Recommendation and its letter."""
    catalog = tools.catalog
    risks = collect_risks(schedule, critique)
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
    for code in intake.added_programs:
        prog = catalog.program_by_code.get(code)
        doc = catalog.document_by_id.get(prog.document) if prog and prog.document else None
        if doc is not None:
            citations += [cite(catalog, doc.id, s.id) for s in doc.sections]
    draft = Recommendation(
        request_id=intake.request_id,
        student_id=intake.profile.student_id,
        student_name=intake.profile.name,
        intent=intake.intent,
        outcome=outcome,
        summary=summarize(
            intake, proposal, schedule, critique, outcome, risks, catalog, answered_from
        ),
        programs=list(intake.target_programs),
        plan=list(schedule.terms),
        graduation_term=schedule.graduation_term,
        next_term=schedule.next_term,
        risks=risks,
        violations=list(violations),
        citations=dedupe_citations(citations),
        open_questions=list(intake.open_questions),
        answer=answer,
        negotiation=list(rounds),
        letter="",
        letter_source="template",
    )
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

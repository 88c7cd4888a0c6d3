"""What synthesis quotes and answers: citations of catalog sections and rules, the load
rules that apply to a student, and the direct answers to policy questions (retrieved
sections, and the rules the question is about applied to the student's record as data -
probation threshold, pass/fail elections, overload eligibility, repeats - each citing the
section that states it) and progress checks (the audit)."""

from __future__ import annotations

import re
from collections.abc import Iterable

import structlog

from agents.artifacts import (
    CitationRef,
    IntakeResult,
    RequirementsProposal,
    StudentProfile,
)
from agents.catalog import Catalog, PolicyRule, Term, credit_sub, credits_text
from agents.catalog.policies import RuleKind
from agents.policy import Applied, applicable_rules, apply_rules, num
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
# What a question says when it is about a rule of each kind the policy engine can apply to
# the student's record (``agents.policy.applied``).
_PROBATION = re.compile(
    r"\b(probation\w*|academic (?:standing|status|warning)|good standing|suspen\w*)\b", re.I
)
_KIND_WORDS: dict[RuleKind, re.Pattern[str]] = {
    "academic_standing": _PROBATION,
    "probation_max_units": _PROBATION,
    "pass_fail_limit": re.compile(
        r"(\bpass[/ -]?(?:fail|no[ -]?pass)\b|\bs/u\b|\bp/f\b|satisfactory/unsatisfactory)", re.I
    ),
    "overload": re.compile(
        r"\b(overload\w*|more than (?:\w+ )?(?:units?|credits?|courses|classes)|extra "
        r"(?:units?|credits?|course|class))\b",
        re.I,
    ),
    "repeat_limit": re.compile(
        r"\b(retak\w*|re-take\w*|repeat\w*|again|(?:second|third|fourth) (?:time|attempt)|"
        r"attempts?)\b",
        re.I,
    ),
}


def term_label(code: str | None) -> str:
    return Term.parse(code).label() if code else ""


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
    return f"{rule.title} ({rule.id}): {rule.summary or rule.title}"


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
        lines.append(f"{r.title} ({r.id}) does not apply to you: it requires {why}.")
    return "\n".join(lines), [r.id for r in applying]


# --------------------------------------------------------------------------- answers


def named_courses(catalog: Catalog, text: str) -> list[str]:
    """The catalog's courses ``text`` names, in the order it names them, spelt with any
    case and separator ('csci120' or 'CSCI-120' for 'CSCI 120')."""
    hits = []
    for course in catalog.courses:
        runs = re.findall(r"[A-Za-z]+|[0-9]+", course.code)
        pattern = r"[\s-]?".join(re.escape(r) for r in runs)
        m = re.search(rf"(?<![\w-]){pattern}(?![\w-])", text, re.I)
        if m is not None:
            hits.append((m.start(), course.code))
    return [code for _, code in sorted(hits)]


def applied_rules(intake: IntakeResult, catalog: Catalog, question: str) -> list[Applied]:
    """The rules a question is about (by kind, from its words) applied to the student."""
    kinds = [k for k, rx in _KIND_WORDS.items() if rx.search(question)]
    if not kinds:
        return []
    courses = named_courses(catalog, question)
    return apply_rules(catalog, intake.profile, intake.student, kinds, courses)


def _retrieved(tools: Toolbox, question: str) -> list[CitationRef]:
    hits = tools.retriever.search_policies(question, limit=QUOTED_SECTIONS)
    return [cite(tools.catalog, h.document, h.section) for h in hits]


def policy_answer(intake: IntakeResult, tools: Toolbox) -> tuple[str, list[CitationRef], list[str]]:
    """The answer to a policy question, its citations, and the applying load rules. The
    answer quotes the retrieved sections, then what each rule the question is about says
    for this student (``applied_rules``), each rule cited with its own section."""
    question = (intake.question or "").strip()
    found = _retrieved(tools, question) if question else []
    parts = [f'You asked: "{question}"'] if question else []
    parts += [f'{c.heading}: "{c.quote}"' for c in found]
    applied = applied_rules(intake, tools.catalog, question)
    if applied:
        parts.append(
            "For you, from your record and the rules as the catalog states them:\n"
            + "\n".join(f"- {a.rule.title} ({a.rule.id}): {a.text}" for a in applied)
        )
        found += [c for a in applied if (c := cite_rule(tools.catalog, a.rule.id)) is not None]
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
        f"{credits_text(p.units_earned)} earned, {num(p.units_in_progress)} in progress."
    ]
    if report is None:
        lines.append(f"No audit was made: {proposal.not_needed_reason or 'nothing to audit'}.")
        return "\n".join(lines)
    for prog in report.programs:
        line = f"- {prog.code} {prog.name}: {STATUS_WORDS[prog.status]}"
        if prog.total_units_required is not None and prog.units_toward_total is not None:
            left = max(credit_sub(prog.total_units_required, prog.units_toward_total), 0)
            line += (
                f"; {num(prog.units_toward_total)} of {credits_text(prog.total_units_required)} "
                f"counted, {num(left)} to go"
            )
        open_reqs = [c.title or c.id for c in prog.root.children if c.status != "met"]
        if open_reqs:
            line += "; open: " + ", ".join(open_reqs)
        lines.append(line + ".")
    return "\n".join(lines)

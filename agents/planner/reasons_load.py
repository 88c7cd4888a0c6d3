"""What the catalog's load rules let a term carry, for the reasons that argue from load
(``agents.planner.reasons``): remaining units that do not fit, courses fixed in a term.

The planner is given its caps (``PlanConstraints``: the rules' standard loads, the student's
own cap, a cap a critique set); the load rules may allow more - an overload with approval,
a maximum that an approval may lift. A reason that says the load binds counts every rule
that can raise it; when the planned caps bind but a rule would allow more, it says that the
plan needs that rule's approval to fit, naming the rule.

The rules are read per term and class standing as ``agents.policy.rules.term_load_limit``
reads them (the planner sits below the policy layer; this is its reading of the same
rules, with the record's GPA and status): the standard maximum is the smallest limit of the
``max_units_per_term`` and ``probation_max_units`` rules that cover the term and apply;
unless a probation rule applies, an ``overload`` rule that applies raises the allowed
maximum to its limit, with its approver's approval; a standard maximum that names an
approver is its own overload, up to the next maximum that names no one (none: no limit).
A term no load rule covers has no rule maximum. Each term's allowed maximum is the highest
over the standings the student can have at its start at the most the rules allow before it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from agents.catalog import (
    STANDINGS,
    ClassStanding,
    PolicyRule,
    Term,
    credit_sum,
    credits_noun,
    credits_text,
    format_credits,
)
from agents.catalog.policies import RuleCondition
from agents.planner.prep import Prep

CAP_KINDS = frozenset({"max_units_per_term", "probation_max_units"})
LOAD_KINDS = CAP_KINDS | {"overload"}


@dataclass(frozen=True)
class RuleLoad:
    """The most a term may carry under the load rules, and who says so."""

    allowed: float  # math.inf: an approval may lift the standard maximum with no bound
    rule: str  # the rule that allows ``allowed``
    approver: str | None  # whose approval a load above ``standard`` needs (None: no one's)
    standard: float  # the most without approval
    standard_rule: str
    ceiling_rule: str | None = None  # the maximum above an approvable one that bounds it


@dataclass(frozen=True)
class Facts:
    """What a rule condition reads of the student (the record's, now)."""

    prep: Prep
    gpa: float | None
    status: str

    @classmethod
    def of(cls, prep: Prep) -> Facts:
        student, catalog = prep.student, prep.catalog
        gpa = student.computed_gpa(catalog)
        status: str = student.academic_status
        if status not in ("probation", "suspended") and gpa is not None:
            # An academic_standing rule puts a student below its threshold on probation.
            now = catalog.standing_for_units(prep.history.units_earned)
            for r in catalog.policies:
                if r.kind == "academic_standing" and holds(
                    r.applies_when, cls(prep, gpa, status), now
                ):
                    limit = limit_of(r, cls(prep, gpa, status), now, None)
                    if limit is not None and gpa < limit:
                        status = "probation"
        return cls(prep, gpa, status)


def holds(
    when: RuleCondition, facts: Facts, standing: ClassStanding, term: Term | None = None
) -> bool:
    """Whether ``when`` holds for the student at ``standing`` (in ``term``, if given)."""
    gpa = facts.gpa
    if when.gpa_min is not None and (gpa is None or gpa < when.gpa_min):
        return False
    if when.gpa_max is not None and (gpa is None or gpa >= when.gpa_max):
        return False
    if when.standing_in and standing not in when.standing_in:
        return False
    if when.status_in and facts.status not in when.status_in:
        return False
    if when.recent_gpa_min is not None:
        recent = facts.prep.student.recent_gpa(facts.prep.catalog, when.recent_terms)
        if recent is None or recent < when.recent_gpa_min:
            return False
    if when.term_kinds:
        return term is not None and term.kind in when.term_kinds
    return True


def limit_of(
    rule: PolicyRule, facts: Facts, standing: ClassStanding, term: Term | None
) -> float | None:
    """The limit of the first row of ``rule``'s table that holds, else its own."""
    return next(
        (r.limit for r in rule.limit_table if holds(r.when, facts, standing, term)), rule.limit
    )


def _applies(rule: PolicyRule, facts: Facts, standing: ClassStanding, term: Term) -> bool:
    if not holds(rule.applies_when, facts, standing, term):
        return False
    return not (
        rule.kind == "probation_max_units"
        and not rule.applies_when.status_in
        and facts.status != "probation"
    )


def _governs(rule: PolicyRule, term: Term, named: frozenset[str]) -> bool:
    """Whether a per-term rule covers ``term`` (``agents.policy.conditions.governs`` with
    optional terms covered by plain rules when no load rule names their kind)."""
    kinds = rule.applies_when.term_kinds
    if kinds:
        return term.kind in kinds
    return term.regular or term.kind in rule.term_kinds_named or term.kind not in named


def _specificity(rule: PolicyRule) -> int:
    w = rule.applies_when
    return sum(
        [
            w.gpa_min is not None,
            w.gpa_max is not None,
            bool(w.standing_in),
            bool(w.status_in),
            w.recent_gpa_min is not None,
            bool(w.term_kinds),
        ]
    )


def rule_load(prep: Prep, facts: Facts, term: Term, standing: ClassStanding) -> RuleLoad | None:
    """The load rules' maximum for ``term`` at ``standing``; None when no rule caps it."""
    family = [r for r in prep.catalog.policies if r.kind in LOAD_KINDS]
    named = frozenset(k for r in family for k in r.term_kinds_named)
    entries: list[tuple[PolicyRule, float]] = []
    for r in family:
        if _governs(r, term, named) and _applies(r, facts, standing, term):
            limit = limit_of(r, facts, standing, term)
            if limit is not None:
                entries.append((r, limit))
    caps = [e for e in entries if e[0].kind in CAP_KINDS]
    if not caps:
        return None
    # Ties go to the rule with more conditions (a first-year's cap before the general one).
    std, low = min(caps, key=lambda e: (e[1], -_specificity(e[0])))
    probation = any(e[0].kind == "probation_max_units" for e in caps)  # no overload lifts it
    overloads = [e for e in entries if not probation and e[0].kind == "overload" and e[1] > low]
    if overloads:
        over, top = max(overloads, key=lambda e: e[1])
        return RuleLoad(top, over.id, over.requires_approval or "advisor", low, std.id)
    if (
        std.kind == "max_units_per_term"
        and std.requires_approval
        and not std.applies_when.status_in
    ):
        # Its own overload, up to the next maximum that names no one (none: no limit).
        above = [e for e in caps if e[1] > low and e[0].requires_approval is None]
        bound = min(above, key=lambda e: e[1]) if above else None
        return RuleLoad(
            bound[1] if bound else math.inf,
            std.id,
            std.requires_approval,
            low,
            std.id,
            bound[0].id if bound else None,
        )
    return RuleLoad(low, std.id, None, low, std.id)


def rule_loads(prep: Prep) -> list[RuleLoad | None]:
    """Per position, the rules' most for the standings the student can have at its start
    (reached at the most the rules, or the planned caps when higher, allow before it);
    None where no rule caps some of those standings. Computed once per prep."""
    hit = prep.derived.get("rule_loads")
    if isinstance(hit, list):
        return hit
    facts = Facts.of(prep)
    units = prep.history.units_earned
    lo = STANDINGS.index(prep.catalog.standing_for_units(units))
    out: list[RuleLoad | None] = []
    for i, term in enumerate(prep.terms):
        hi = STANDINGS.index(prep.catalog.standing_for_units(units))
        loads = [x for k in range(lo, hi + 1) if (x := rule_load(prep, facts, term, STANDINGS[k]))]
        best = max(loads, key=lambda x: x.allowed) if len(loads) == hi - lo + 1 else None
        out.append(best)
        if prep.active[i]:
            top = math.inf if best is None else max(prep.caps[i], best.allowed)
            units = credit_sum((units, top)) if math.isfinite(top + units) else math.inf
    prep.derived["rule_loads"] = out
    return out


def rule_words(load: RuleLoad) -> str:
    """'LOAD-OVERLOAD allows up to 63 units with advisor approval', 'LOAD-MAX allows at
    most 54 units', 'LOAD-MAX allows more than 20 credits with dean approval'."""
    if load.approver is None:
        return f"{load.rule} allows at most {credits_text(load.allowed)}"
    if math.isinf(load.allowed) or load.ceiling_rule:
        top = ""
        if load.ceiling_rule:
            top = f", up to {credits_text(load.allowed)} ({load.ceiling_rule})"
        return (
            f"{load.rule} allows more than {credits_text(load.standard)} with "
            f"{load.approver} approval{top}"
        )
    return f"{load.rule} allows up to {credits_text(load.allowed)} with {load.approver} approval"


def remain(n: int) -> str:
    return f"{n} remains" if n == 1 else f"{n} remain"


def total(values: Sequence[float]) -> float:
    """The exact sum of credit values (infinite when one is)."""
    return math.inf if any(math.isinf(v) for v in values) else credit_sum(values)


def need_text(
    need: float, caps: Sequence[float], end_word: str, at: str = "", label: str = ""
) -> str:
    """'27 remaining units need 3 terms at 9 units, only 1 remains through F2027' when even
    the largest of ``caps`` in every term leaves too few terms; else the units the terms
    hold. ``at`` qualifies the loads ('the planned '), ``label`` follows them."""
    noun = credits_noun(need)
    if not caps:
        return f"{need:g} remaining {noun} need at least 1 term, only 0 remain through {end_word}"
    top, m = max(caps), len(caps)
    terms = math.ceil(need / top) if top > 0 else None
    head = f"{need:g} remaining {noun} need{'s' if need == 1 else ''}"
    if terms is not None and terms > m:
        return (
            f"{head} {terms} terms at {at}{credits_text(top)}{label}, only {remain(m)} "
            f"through {end_word}"
        )
    low = min(caps)
    each = credits_text(top) if low == top else f"{format_credits(low)} to {credits_text(top)}"
    return (
        f"{head} more than the {credits_text(credit_sum(caps))} that the {m} "
        f"term{'' if m == 1 else 's'} through "
        f"{end_word} hold at {at}{each} each{label}"
    )


def capacity_reason(prep: Prep, need: float, active: Sequence[int], end_word: str) -> str | None:
    """Why ``need`` units do not fit in the ``active`` positions (None when they do at the
    planned caps): at the most the load rules allow, when even that is too little (the
    load binds, and the rule that sets it is named); else at the planned caps, naming the
    rule that would let the plan fit (within its standard load, or with its approval)."""
    caps = [prep.caps[i] for i in active]
    if need <= total(caps) + 1e-9:
        return None
    loads = rule_loads(prep)
    ruled = [loads[i] for i in active]
    if all(x is None for x in ruled):
        return need_text(need, caps, end_word)  # no load rule: the request's caps bind
    pairs = list(zip(caps, ruled, strict=True))
    best = [c if x is None else max(c, x.allowed) for c, x in pairs]
    if None not in ruled and need > total(best) + 1e-9:
        return need_text(need, best, end_word, label=_most_label(pairs))
    text = need_text(need, caps, end_word, "the planned ")
    standard = [c if x is None else max(c, x.standard) for c, x in pairs]
    if need <= total(standard) + 1e-9:
        above = [x for c, x in pairs if x is not None and x.standard > c]
        lift = max(above, key=lambda x: x.standard)
        return (
            f"{text}; {lift.standard_rule} allows {credits_text(lift.standard)} per term "
            "without approval"
        )
    above = [x for c, x in pairs if x is not None and x.allowed > c]
    if not above:
        return text
    lift = max(above, key=lambda x: x.allowed)
    if need <= total(best) + 1e-9:
        return f"{text}; {rule_words(lift)}: the plan needs an overload approval to fit"
    return f"{text} ({rule_words(lift)})"


def _most_label(pairs: Sequence[tuple[float, RuleLoad | None]]) -> str:
    """' (the most LOAD-MAX allows)' after loads that are the most the rules allow; each
    rule with its load when several set them; '' when the planned caps are above them."""
    setters: dict[str, RuleLoad] = {}
    for cap, x in pairs:
        if x is None or x.allowed < cap:
            return ""  # a planned cap above what the rules allow: the loads are the plan's
        setters.setdefault(x.ceiling_rule or x.rule, x)

    def how(x: RuleLoad) -> str:
        if x.ceiling_rule:  # above an approvable maximum, with its approver's approval
            return f", above {x.rule} with {x.approver} approval"
        return f", with {x.approver} approval" if x.approver else ""

    if len(setters) == 1:
        ((name, x),) = setters.items()
        return f" (the most {name} allows{how(x)})"
    each = "; ".join(
        f"{name} {format_credits(x.allowed)}{how(x)}"
        for name, x in sorted(setters.items(), key=lambda kv: kv[1].allowed)
    )
    return f" (the most the load rules allow: {each})"


def load_note(prep: Prep, i: int, units: float) -> str:
    """What the load rules say of ``units`` in position ``i``, above its planned cap: ''
    when no rule covers the term; whether a rule's standard load or an approval allows
    them; that the cap is the most a rule allows."""
    load = rule_loads(prep)[i]
    cap = prep.caps[i]
    if load is None:
        return ""
    if load.standard + 1e-9 >= units:
        return f"; {load.standard_rule} allows {credits_text(load.standard)} without approval"
    if load.allowed + 1e-9 >= units:
        return f"; carrying them needs an overload approval ({rule_words(load)})"
    if load.allowed <= cap + 1e-9:
        how = f" with {load.approver} approval" if load.approver else ""
        return f", the most {load.rule} allows{how}" if load.allowed == cap else ""
    return f" ({rule_words(load)})"


def cap_note(prep: Prep) -> str:
    """What the load rules say of planned caps found too low: the rule that allows more
    (with its approval), or that they are the most the rules allow; '' when no rule caps
    a term."""
    active = [i for i in range(len(prep.terms)) if prep.active[i]]
    loads = rule_loads(prep)
    ruled = [(prep.caps[i], x) for i in active if (x := loads[i]) is not None]
    above = [x for c, x in ruled if x.allowed > c + 1e-9]
    if above:
        return f"; {rule_words(max(above, key=lambda x: x.allowed))}"
    if not ruled or len(ruled) < len(active) or any(x.allowed < c - 1e-9 for c, x in ruled):
        return ""  # a term no rule caps, or planned above what the rules allow
    top = max(ruled, key=lambda p: p[1].allowed)[1]
    how = f", with {top.approver} approval" if top.approver else ""
    return f" (the most {top.rule} allows{how})"

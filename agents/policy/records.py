"""Checks of the rules that read the student's record: repeats, pass/fail elections and
academic standing.

``repeat_limit``: a planned retake of a course already attempted (not repeatable for
credit; a W is not an attempt). Without ``grade_ceiling`` the limit counts attempts: a
retake past it is a violation, the last allowed attempt a risk. With ``grade_ceiling`` the
limit counts repeats (attempts after the first; no limit: any number) and a course may be
repeated only after a grade at or below the ceiling (by grade points): a planned repeat
after a better grade, or past the limit, is a violation; a repeat after an attempt still in
progress is a risk (allowed only if that attempt ends at the ceiling or below), and so is
the last allowed repeat.

``pass_fail_limit``: plans never elect pass/fail, so the record's elections are counted
(courses graded only pass/fail are not elections), in courses or units (``measure``):
``scope`` 'term' (the default of a rule that names neither scope nor measure) per term,
'overall' over the whole record - both a risk when over, since the plan cannot undo them -
and 'program': elections the degree audit of the plan counts toward a program of the
given ``program_kinds`` (any kind when empty); over the limit is a violation when the plan
graduates on them, else a risk.

``academic_standing``: a cumulative GPA below the probation threshold is a ``gpa`` risk
(see ``agents.policy.standing``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from agents.artifacts import Modification, Risk, ScheduledCourse, ScheduledTerm
from agents.audit import ProgramAudit, RequirementAudit
from agents.catalog import (
    Catalog,
    CourseAttempt,
    PolicyRule,
    StudentRecord,
    Term,
    credit_sum,
    singular,
)
from agents.policy.conditions import Facts, because
from agents.policy.plancheck import Findings, PlanCheck
from agents.policy.rules import NOT_ATTEMPTS, label, num
from agents.policy.standing import probation_note


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def _avoid(ctx: PlanCheck, f: Findings, rule: PolicyRule, course: str) -> None:
    f.suggest(
        Modification(
            action="avoid_course",
            course=course,
            rule_id=rule.id,
            reason=f"{course} may not be attempted again; plan an alternative "
            "or petition for an exception",
        )
    )


def _prior(ctx: PlanCheck, course: str) -> list[CourseAttempt] | None:
    """Earlier attempts of a planned course that count for repeats; None if it is no repeat."""
    assert ctx.record is not None
    c = ctx.catalog.course_by_code.get(course)
    prior = [a for a in ctx.record.attempts_of(course) if a.grade not in NOT_ATTEMPTS]
    return None if not prior or (c is not None and c.repeatable) else prior


def _planned_repeats(
    ctx: PlanCheck,
) -> Iterator[tuple[ScheduledTerm, ScheduledCourse, list[CourseAttempt], str]]:
    """Each planned course the record already has attempts of: the term, the course, the
    earlier attempts and those attempts in words."""
    for t in ctx.enrolled_terms:
        for sc in t.courses:
            prior = _prior(ctx, sc.course)
            if prior is not None:
                yield t, sc, prior, ", ".join(f"{a.term} {a.grade or 'in progress'}" for a in prior)


def check_repeats(ctx: PlanCheck, rule: PolicyRule, f: Findings) -> None:
    """Planned retakes against the attempt limit (or the grade ceiling and repeat count)."""
    limit, why = ctx.threshold(rule)
    if rule.grade_ceiling is not None:
        _repeats_after_ceiling(ctx, rule, rule.grade_ceiling, limit, why, f)
        return
    assert limit is not None
    most = int(limit)
    for t, sc, prior, when in _planned_repeats(ctx):
        if len(prior) >= most:
            msg = (
                f"{sc.course} is planned for {label(t.term)} but was already attempted "
                f"{len(prior)} times ({when}); the limit is {most} attempts{because(why)}"
            )
            f.violations.append(ctx.violation(rule, msg, t.term))
            _avoid(ctx, f, rule, sc.course)
        elif len(prior) == most - 1:
            f.risks.append(
                Risk(
                    kind="repeat",
                    message=f"{sc.course} in {label(t.term)} is the last allowed attempt "
                    f"({most} of {most}; earlier: {when})",
                    term=t.term,
                    rule_id=rule.id,
                    citation=ctx.cite(rule.id),
                )
            )


def _repeats_after_ceiling(
    ctx: PlanCheck, rule: PolicyRule, ceiling: str, limit: float | None, why: str, f: Findings
) -> None:
    grades = ctx.catalog.grade_by_symbol
    top = grades[ceiling].points if ceiling in grades else 0.0

    def points(a: CourseAttempt) -> float:
        g = grades.get(a.grade or "")
        return g.points if g is not None else 0.0

    most = None if limit is None else int(limit)
    for t, sc, prior, when in _planned_repeats(ctx):
        used = len(prior) - 1
        above = [a for a in prior if a.status == "completed" and points(a) > top]
        msg = ""
        if above:
            best = max(above, key=points)
            msg = (
                f"{sc.course} is planned again for {label(t.term)} after a {best.grade} in "
                f"{label(best.term)}; a course may be repeated only after a grade of "
                f"{ceiling} or below"
            )
        elif most is not None and used >= most:
            msg = (
                f"{sc.course} is planned again for {label(t.term)} but was already "
                f"repeated {_times(used)} ({when}); it may be repeated at most "
                f"{_times(most)}{because(why)}"
            )
        if msg:
            f.violations.append(ctx.violation(rule, msg, t.term))
            _avoid(ctx, f, rule, sc.course)
            continue
        risk = ""
        if any(a.status == "in_progress" for a in prior):
            risk = (
                f"{sc.course} in {label(t.term)} may be repeated only if the attempt in "
                f"progress ends at {ceiling} or below"
            )
        elif most is not None and used == most - 1:
            risk = (
                f"{sc.course} in {label(t.term)} is the last allowed repeat "
                f"({most} of {most}{because(why)}; earlier: {when})"
            )
        if risk:
            f.risks.append(
                Risk(
                    kind="repeat",
                    message=risk,
                    term=t.term,
                    rule_id=rule.id,
                    citation=ctx.cite(rule.id),
                )
            )


# --------------------------------------------------------------------------- pass/fail


def pass_fail_elections(record: StudentRecord, catalog: Catalog) -> list[CourseAttempt]:
    """The record's pass/fail elections: institution attempts taken pass/fail in a course
    that also offers grades."""
    out = []
    for a in record.courses:
        course = catalog.course_by_code.get(a.course)
        only_pf = course is not None and course.grading == "pass_fail_only"
        if a.pass_fail and a.source == "institution" and not only_pf:
            out.append(a)
    return out


def _amount(ctx: PlanCheck, rule: PolicyRule, attempts: Sequence[CourseAttempt]) -> float:
    if rule.pass_fail_measure == "courses":
        return float(len(attempts))
    assert ctx.record is not None
    return credit_sum(ctx.record.units_of(a, ctx.catalog) for a in attempts)


def _words(ctx: PlanCheck, rule: PolicyRule, amount: float) -> str:
    """'2 pass/fail courses', '5 pass/fail credits'."""
    if rule.pass_fail_measure == "courses":
        return f"{num(amount)} pass/fail course{'' if amount == 1 else 's'}"
    return f"{num(amount)} pass/fail {singular(ctx.unit_name) if amount == 1 else ctx.unit_name}"


def _measure(ctx: PlanCheck, rule: PolicyRule, limit: float) -> str:
    """'1 course', '2 courses', '12 credits' - the limit and what it counts."""
    what = "courses" if rule.pass_fail_measure == "courses" else ctx.unit_name
    if limit == 1 and what.endswith("s"):
        what = what[:-1]
    return f"{num(limit)} {what}"


def check_pass_fail(ctx: PlanCheck, rule: PolicyRule, f: Findings) -> None:
    """The record's elections per term, overall or per program (see the module docstring)."""
    limit, why = ctx.threshold(rule)
    assert limit is not None
    assert ctx.record is not None
    elections = pass_fail_elections(ctx.record, ctx.catalog)
    scope = rule.pass_fail_scope
    if scope == "program":
        _per_program(ctx, rule, limit, why, elections, f)
        return
    groups: dict[str | None, list[CourseAttempt]] = {}
    for a in elections:
        groups.setdefault(a.term if scope == "term" else None, []).append(a)
    for term, attempts in sorted(groups.items(), key=lambda kv: _order(kv[0])):
        amount = _amount(ctx, rule, attempts)
        if amount <= limit:
            continue
        if term is not None:
            codes = ", ".join(a.course for a in attempts)
            head = f"{label(term)} has {_words(ctx, rule, amount)} ({codes})"
            tail = f"the limit is {num(limit)} per term{because(why)}"
        else:
            codes = ", ".join(f"{a.course} {a.term}" for a in attempts)
            head = f"the record has {_words(ctx, rule, amount)} ({codes})"
            tail = f"at most {_measure(ctx, rule, limit)} may be taken pass/fail{because(why)}"
        f.risks.append(
            Risk(
                kind="other",
                message=f"{head}; {tail} - ask the registrar how the extra ones count",
                term=term,
                rule_id=rule.id,
                citation=ctx.cite(rule.id),
            )
        )


def _order(term: str | None) -> int:
    return Term.parse(term).index if term is not None else 0


def _counted(node: RequirementAudit, out: set[tuple[str, str]]) -> set[tuple[str, str]]:
    out |= {(c.course, c.term) for c in node.counted}
    for child in node.children:
        _counted(child, out)
    return out


def _program_courses(pa: ProgramAudit) -> set[tuple[str, str]]:
    """(course, term) of every attempt the audit counts toward the program."""
    out: set[tuple[str, str]] = set()
    for node in [pa.root, *pa.checks]:
        _counted(node, out)
    return out


def _per_program(
    ctx: PlanCheck,
    rule: PolicyRule,
    limit: float,
    why: str,
    elections: list[CourseAttempt],
    f: Findings,
) -> None:
    report = ctx.plan_audit
    if report is None:
        return
    for pa in report.programs:
        if rule.program_kinds and pa.kind not in rule.program_kinds:
            continue
        counted = _program_courses(pa)
        pf = [a for a in elections if (a.course, a.term) in counted]
        amount = _amount(ctx, rule, pf)
        if amount <= limit:
            continue
        codes = ", ".join(f"{a.course} {a.term}" for a in pf)
        msg = (
            f"{_words(ctx, rule, amount)} count toward {pa.code} ({codes}); at most "
            f"{_measure(ctx, rule, limit)} taken pass/fail may count toward a "
            f"{pa.kind}{because(why)}"
        )
        if ctx.schedule.graduation_term is not None:
            f.violations.append(ctx.violation(rule, msg, ctx.schedule.graduation_term))
        else:
            f.risks.append(
                Risk(kind="other", message=msg, rule_id=rule.id, citation=ctx.cite(rule.id))
            )


# --------------------------------------------------------------------------- standing


def check_standing(ctx: PlanCheck, rule: PolicyRule, f: Findings) -> None:
    """A GPA below the probation threshold is a risk citing the rule; the plan itself is
    checked under the status that follows (``PlanCheck.facts``)."""
    p = ctx.profile
    recorded = Facts(
        gpa=p.gpa, standing=p.class_standing, status=p.academic_status, recent=ctx.facts.recent
    )
    note = probation_note(rule, recorded)
    if note is None or p.academic_status == "suspended":
        return
    if p.academic_status == "probation":
        msg = f"the student stays on academic probation: {note}"
    else:
        msg = (
            f"the student is on academic probation although the record says "
            f"{p.academic_status}: {note}; the plan is checked under the probation rules"
        )
    f.risks.append(Risk(kind="gpa", message=msg, rule_id=rule.id, citation=ctx.cite(rule.id)))

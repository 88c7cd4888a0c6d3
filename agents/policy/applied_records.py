"""Policy rules that read the record, applied to one student for a policy question:
pass/fail elections and repeats (``agents.policy.applied`` has the rest and the module map).

``pass_fail_limit``: the record's elections (institution attempts taken pass/fail in a
course that also offers grades, in progress included, as the critique counts them) against
the limit by the rule's scope and measure; for scope 'program' the elections the degree
audit counts toward each program of the rule's kinds. ``repeat_limit``: for each course the
question names (else the record's courses that were repeated, or may be: a letter grade at
or below the ceiling), whether it may be repeated - the grade ceiling, the repeats or
attempts already used and the limit (a W is no attempt, as in the critique).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agents.artifacts import StudentProfile
from agents.audit import audit, iter_nodes
from agents.catalog import Catalog, CourseAttempt, PolicyRule, StudentRecord, credit_sum
from agents.catalog.lookup import program_uses
from agents.policy.conditions import Facts, threshold
from agents.policy.records import pass_fail_elections
from agents.policy.rules import NOT_ATTEMPTS, label, num


@dataclass(frozen=True)
class Asker:
    """The student a policy question is answered for, and the courses it names."""

    catalog: Catalog
    profile: StudentProfile
    record: StudentRecord | None
    facts: Facts
    courses: list[str]

    @property
    def unit(self) -> str:
        return self.catalog.institution.unit_name


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


# --------------------------------------------------------------------------- pass/fail


def pass_fail_conclusion(who: Asker, rule: PolicyRule) -> str | None:
    record = who.record
    if record is None:
        return "Without your record the pass/fail courses you have elected cannot be counted."
    limit, why = threshold(rule, who.facts)
    if limit is None:
        return None
    cat = who.catalog
    courses = [cat.course_by_code[c] for c in who.courses]
    notes = [
        f"{c.code} is graded only pass/fail: it is no election."
        if c.grading == "pass_fail_only"
        else f"{c.code} is graded with letters only: it cannot be taken pass/fail."
        for c in courses
        if c.grading != "pass_fail_allowed"
    ]
    named = [c for c in courses if c.grading == "pass_fail_allowed"]
    by_units = rule.pass_fail_measure == "units"
    unit = who.unit

    def qty(x: float) -> str:
        """'1 pass/fail course', '4.5 pass/fail credits'."""
        noun = unit if by_units else "courses"
        return f"{num(x)} pass/fail {noun[:-1] if x == 1 and noun.endswith('s') else noun}"

    def amount(attempts: Sequence[CourseAttempt]) -> float:
        if not by_units:
            return float(len(attempts))
        return credit_sum(record.units_of(a, cat) for a in attempts)

    def listing(attempts: Sequence[CourseAttempt]) -> str:
        return ", ".join(
            f"{a.course} {a.term}" + (" in progress" if a.status == "in_progress" else "")
            for a in attempts
        )

    def then(used: float, toward: str = "") -> str:
        """What the courses the question names would add ('; 80-180 would be your 3rd')."""
        out = []
        for c in named:
            if toward and toward not in {u.program for u in program_uses(cat, c.code)}:
                out.append(f"{c.code} does not count toward {toward}")
                continue
            after = credit_sum((used, c.units if by_units else 1.0))
            what = f"{c.code} would bring you to {num(after)}" if by_units else (
                f"{c.code} would be your {_ordinal(int(after))}"
            )  # fmt: skip
            if after > limit:
                what += ", over the limit" + (
                    f": it would not count toward {toward}" if toward else ""
                )
            out.append(what)
        if not out:
            left = max(0.0, limit - used)
            out = [f"{qty(left)} left" if left > 0 else "none left"]
        return "; ".join(out)

    assert who.record is not None
    elections = pass_fail_elections(who.record, who.catalog)
    because = f" ({why})" if why else ""
    scope = rule.pass_fail_scope
    if scope == "term":
        now = [a for a in elections if a.term == who.profile.current_term]
        elected = f"{qty(amount(now))} ({listing(now)})" if now else "none"
        then_what = f"you may elect {qty(limit)} in each later term"
        if named:
            then_what += f", {' and '.join(c.code for c in named)} included"
        lines = [
            f"At most {qty(limit)} per term{because}: you have elected {elected} in "
            f"{label(who.profile.current_term)}; {then_what}."
        ]
    elif scope == "overall":
        used, codes = amount(elections), listing(elections)
        if not elections:
            head = f"You have used none of your {qty(limit)}{because}"
        elif used <= limit:
            head = f"You have used {num(used)} of your {qty(limit)}{because} ({codes})"
        else:
            head = (
                f"You have elected {qty(used)} ({codes}), over the limit of {num(limit)}{because}"
            )
        lines = [f"{head}; {then(used)}."]
    else:
        report = audit(cat, record)
        lines = []
        for pa in report.programs:
            if rule.program_kinds and pa.kind not in rule.program_kinds:
                continue
            counted = {(c.course, c.term) for code, n in iter_nodes(report) if code == pa.code
                       for c in n.counted}  # fmt: skip
            pf = [a for a in elections if (a.course, a.term) in counted]
            n = amount(pf)
            counts = f"{qty(n)} {'counts' if n == 1 else 'count'}" if pf else "None counts"
            lines.append(
                f"{counts} toward {pa.code}{f' ({listing(pf)})' if pf else ''}, at most "
                f"{num(limit)}{because}; {then(n, pa.code)}."
            )
    return " ".join([*lines, *notes]) or None


# --------------------------------------------------------------------------- repeats


def repeat_conclusion(who: Asker, rule: PolicyRule) -> str | None:
    record = who.record
    if record is None:
        return "Without your record the attempts of a course cannot be counted."
    limit, why = threshold(rule, who.facts)
    if rule.grade_ceiling is None and limit is None:
        return None
    because = f" ({why})" if why else ""
    if who.courses:
        return " ".join(_repeat_one(who, rule, code, limit, because) for code in who.courses)
    taken = sorted({a.course for a in record.courses})
    lines = [
        _repeat_one(who, rule, code, limit, because)
        for code in taken
        if _repeated_or_low(who, rule, code)
    ]
    if not lines:
        return "No course on your record has been repeated or may be repeated under this rule."
    return "On your record: " + " ".join(lines)


def _prior(who: Asker, code: str) -> list[CourseAttempt]:
    assert who.record is not None
    return [a for a in who.record.attempts_of(code) if a.grade not in NOT_ATTEMPTS]


def _points(who: Asker, grade: str | None) -> float:
    g = who.catalog.grade_by_symbol.get(grade or "")
    return g.points if g is not None else 0.0


def _repeated_or_low(who: Asker, rule: PolicyRule, code: str) -> bool:
    """Whether a course of the record is worth naming: attempted more than once, or (with a
    grade ceiling) completed at or below it."""
    course = who.catalog.course_by_code.get(code)
    prior = _prior(who, code)
    if course is None or course.repeatable or not prior:
        return False
    if len(prior) > 1 or rule.grade_ceiling is None:
        return len(prior) > 1
    top, grades = _points(who, rule.grade_ceiling), who.catalog.grade_by_symbol
    return all(
        a.status == "completed"
        and a.grade in grades
        and grades[a.grade].in_gpa
        and _points(who, a.grade) <= top
        for a in prior
    )  # a P or TR is no grade to raise


def _repeat_one(who: Asker, rule: PolicyRule, code: str, limit: float | None, because: str) -> str:
    course = who.catalog.course_by_code[code]
    if course.repeatable:
        return f"{code} is repeatable for credit: taking it again is no repeat."
    prior = _prior(who, code)
    if not prior:
        return f"{code} is not on your record: taking it is no repeat."
    when = ", ".join(f"{a.term} {a.grade or 'in progress'}" for a in prior)
    most = None if limit is None else int(limit)
    ceiling = rule.grade_ceiling
    if ceiling is None:
        assert most is not None
        if len(prior) >= most:
            return (
                f"{code} was attempted {len(prior)} times ({when}); the limit is {most} "
                f"attempts{because}: it may not be taken again."
            )
        return f"{code} ({when}) may be taken again: attempt {len(prior) + 1} of {most}."
    top = _points(who, ceiling)
    above = [a for a in prior if a.status == "completed" and _points(who, a.grade) > top]
    used = len(prior) - 1
    if above:
        best = max(above, key=lambda a: _points(who, a.grade))
        return (
            f"{code} was passed with {best.grade} in {label(best.term)}, above the {ceiling} "
            "ceiling: it may not be repeated."
        )
    if most is not None and used >= most:
        return (
            f"{code} was already repeated {_times(used)} ({when}); it may be repeated at most "
            f"{_times(most)}{because}: not again."
        )
    if any(a.status == "in_progress" for a in prior):
        return (
            f"{code} is in progress ({when}): it may be repeated only if that grade ends at "
            f"{ceiling} or below."
        )
    count = f": repeat {used + 1} of {most}" if most is not None else ""
    return f"{code} ({when}) is at or below the {ceiling} ceiling and may be repeated{count}."

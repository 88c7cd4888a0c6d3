"""The audit's account of a student's advisor exceptions: which were used, which did
nothing and why, and the explanation of every node an exception changed.

The exceptions themselves act through the effective catalog (``agents.catalog.overrides``);
this module reads the finished report to say what each one did. Approvals of policy rules
are the critique's: the audit only checks that the rule exists and can be approved.
"""

from __future__ import annotations

from agents.audit.report import AuditReport, ProgramAudit, RequirementAudit
from agents.catalog import Catalog, StudentRecord, credits_text
from agents.catalog.exceptions import Application, ExceptionUse, Substitution, Waiver, use_of
from agents.catalog.overrides import Applied, Overrides


def _node(root: RequirementAudit, node_id: str) -> RequirementAudit | None:
    if root.id == node_id:
        return root
    for child in root.children:
        found = _node(child, node_id)
        if found is not None:
            return found
    return None


def _counted(program: ProgramAudit, node_id: str, course: str) -> bool:
    node = _node(program.root, node_id)
    return node is not None and any(c.course == course for c in node.counted)


def approval_problems(catalog: Catalog, student: StudentRecord) -> list[ExceptionUse]:
    """Approvals that name no rule, or a rule nobody may approve."""
    out = []
    for e in student.approvals():
        rule = catalog.rule_by_id.get(e.rule)
        if rule is None:
            out.append(use_of(e, "invalid", f"no policy rule {e.rule!r} in the catalog"))
        elif rule.requires_approval is None:
            out.append(
                use_of(
                    e,
                    "invalid",
                    f"rule {e.rule} cannot be approved by a person (it names no approver); "
                    "only rules with requires_approval can",
                )
            )
    return out


def _use(item: Applied, report: AuditReport, student: StudentRecord) -> ExceptionUse:
    e = item.exception
    program = next((p for p in report.programs if p.code == item.program), None)
    if program is None:
        return use_of(
            e, "unused", f"{item.program} is not among the audited programs", program=item.program
        )
    if isinstance(e, Waiver):
        owed = f"; {_owed(e.units_owed)} in its place" if e.units_owed else ""
        return use_of(
            e, "used", f"{e.requirement} in {item.program} is waived{owed}", program=item.program
        )
    assert isinstance(e, Substitution | Application)
    on_record = e.course in {a.course for a in student.courses}
    nodes = [item.requirement] if item.requirement else item.leaves  # never empty here
    hit = next((n for n in nodes if _counted(program, n, e.course)), None)
    left = f"; it no longer counts toward {', '.join(item.refused)}" if item.refused else ""
    if hit is not None:
        verb = "counts toward" if isinstance(e, Application) else "substitutes in"
        return use_of(
            e, "used", f"{e.course} {verb} {hit} in {item.program}{left}",
            program=item.program, requirement=hit,
        )  # fmt: skip
    why = (
        f"{e.course} is not on the record or the plan"
        if not on_record
        else f"{e.course} is not counted there (the requirement is met by other courses, or "
        "the course does not qualify, e.g. by its grade)"
    )
    return use_of(
        e, "unused", f"{why}; it would count toward {', '.join(nodes)} in {item.program}{left}",
        program=item.program,
    )  # fmt: skip


def _annotate(node: RequirementAudit, notes: dict[str, list[str]]) -> RequirementAudit:
    kids = [_annotate(c, notes) for c in node.children]
    update: dict[str, object] = {}
    if any(a is not b for a, b in zip(kids, node.children, strict=True)):
        update["children"] = kids
    if node.id in notes:
        parts = notes[node.id]
        waived = [p for p in parts if p.startswith("waived by ")]
        others = [f" ({p})" for p in parts if not p.startswith("waived by ")]
        if waived and "still owed" not in waived[0]:
            update["explanation"] = waived[0] + "".join(others)
        else:
            head = f"{waived[0]}; " if waived else ""
            update["explanation"] = head + node.explanation + "".join(others)
    return node.model_copy(update=update) if update else node


def _note(item: Applied) -> str:
    e = item.exception
    who = f"{e.by} on {e.date.isoformat()}: {e.reason}"
    if isinstance(e, Waiver):
        owed = f" ({credits_text(e.units_owed)} still owed in its place)" if e.units_owed else ""
        return f"waived by {who}{owed}"
    if isinstance(e, Substitution) and e.for_course is not None:
        return f"{e.course} may substitute for {e.for_course}, by {who}"
    assert isinstance(e, Substitution | Application)
    verb = "applied to it" if isinstance(e, Application) else "may count toward it"
    return f"{e.course} {verb} by {who}"


def account(
    catalog: Catalog, student: StudentRecord, report: AuditReport, found: Overrides
) -> AuditReport:
    """``report`` with every exception's use and the changed nodes explained."""
    uses = []
    for item in found.applied:
        e = item.exception
        if isinstance(e, Substitution) and e.for_course is not None and not item.leaves:
            # A course substitution covers every program; say "unused" once, not per program.
            same = [i for i in found.applied if i.exception is e]
            if any(i.leaves for i in same) or item is not same[0]:
                continue
            names = ", ".join(i.program for i in same)
            uses.append(use_of(e, "unused", f"no requirement of {names} asks for {e.for_course}"))
            continue
        uses.append(_use(item, report, student))
    uses += found.rejected + approval_problems(catalog, student)
    order = {(e.kind, e.label()): i for i, e in reversed(list(enumerate(student.exceptions)))}
    uses.sort(key=lambda u: order.get((u.kind, u.exception), len(order)))
    programs = []
    for p in report.programs:
        notes: dict[str, list[str]] = {}
        for item in found.applied:
            if item.program != p.code:
                continue
            for node_id in [item.requirement] if item.requirement else item.leaves:
                if node_id:
                    notes.setdefault(node_id, []).append(_note(item))
            e = item.exception
            for node_id in item.refused:
                notes.setdefault(node_id, []).append(
                    f"{e.by} applied {getattr(e, 'course', '')} to {item.requirement} on "
                    f"{e.date.isoformat()}, so it no longer counts here"
                )
        programs.append(p.model_copy(update={"root": _annotate(p.root, notes)}) if notes else p)
    return report.model_copy(update={"programs": programs, "exceptions": uses})


def _owed(units: float) -> str:
    """'15 units are still owed', '1 credit is still owed'."""
    return f"{credits_text(units)} {'is' if units == 1 else 'are'} still owed"

"""What a person reads for a requirement: its title, never its internal id.

Artifacts name requirements by id - ``'IS-BS/is-electives'`` (program code, then node id) in
what a planned course counts toward, ``'is-electives'`` inside one program's audit - because
machines join on them. Everything written for people shows the node's title instead:
``requirement_titles`` maps every id of an audit to its title (an untitled course leaf by
its course, another untitled option of an n-of by the n-of's title), and ``requirement_name``
looks an id up there, falling back to a readable form of the id (``readable_id``) when the
catalog gave no title; ``name_requirements`` puts titles for the ids in a sentence (the
planner's reasons name requirements by id).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping

from agents.audit.report import AuditReport, ProgramAudit, RequirementAudit

# What the planner writes for a course that counts toward no requirement of a program.
FREE_ELECTIVE = "free elective"


def readable_id(req_id: str) -> str:
    """A requirement id as words, for an id without a title: 'IS-BS/is-electives' ->
    'Is electives', 'total-units' -> 'Total units'."""
    tail = req_id.rsplit("/", 1)[-1]
    words = " ".join(tail.replace("_", " ").replace("-", " ").split())
    return words[:1].upper() + words[1:] if words else req_id


def _node_name(node: RequirementAudit, choice: str) -> str:
    if node.title:
        return node.title
    if node.kind == "course":  # an untitled course leaf is its course
        codes = [c.course for c in node.counted] or node.options
        if len(codes) == 1:
            return codes[0]
    if choice:  # an untitled option of an n-of is one way to meet the n-of
        return f"{choice} (option)"
    return readable_id(node.id)


def program_titles(program: ProgramAudit) -> dict[str, str]:
    """Node id -> title for every node of ``program``'s audit (tree and checks)."""
    out: dict[str, str] = {}

    def walk(node: RequirementAudit, choice: str) -> None:
        out[node.id] = _node_name(node, choice)
        for child in node.children:
            walk(child, node.title or choice if node.kind == "n_of" else "")

    for node in [program.root, *program.checks]:
        walk(node, "")
    return out


def requirement_titles(
    report: AuditReport | None,
    wanted: Collection[str] | None = None,
    mentioned_in: str = "",
) -> dict[str, str]:
    """'PROGRAM/node' -> title for every node of ``report``, sorted by id; only the ids in
    ``wanted`` or mentioned in the text ``mentioned_in`` when either is given."""
    every = wanted is None and not mentioned_in
    out: dict[str, str] = {}
    for program in report.programs if report is not None else []:
        for node_id, title in program_titles(program).items():
            key = f"{program.code}/{node_id}"
            if every or key in (wanted or ()) or key in mentioned_in:
                out[key] = title
    return dict(sorted(out.items()))


def name_requirements(text: str, titles: Mapping[str, str]) -> str:
    """``text`` with every requirement id of ``titles`` in it ('MATH-MIN/math-min-advanced
    cannot be met') replaced by its title; the longest id first, a whole id only."""
    if not titles or "/" not in text:
        return text
    ids = "|".join(re.escape(k) for k in sorted(titles, key=len, reverse=True))
    return re.sub(rf"(?<![\w/-])({ids})(?![\w-])", lambda m: titles[m[1]], text)


def requirement_name(req_id: str, titles: Mapping[str, str]) -> str:
    """What a person reads for ``req_id``: its title, else a readable form of the id
    ('free elective' stays as it is)."""
    if req_id == FREE_ELECTIVE:
        return req_id
    return titles.get(req_id) or readable_id(req_id)


def requirement_names(req_ids: Iterable[str], titles: Mapping[str, str]) -> list[str]:
    """``requirement_name`` of each id, in order."""
    return [requirement_name(req_id, titles) for req_id in req_ids]

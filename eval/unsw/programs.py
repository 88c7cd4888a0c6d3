"""programs/*.yaml from circles' programs and specialisations.

A degree (e.g. 3778 Computer Science) becomes a program of kind ``major`` holding the
degree's own blocks (general education, degree cores) and its total UOC; the
specialisations it offers become programs too: its majors and honours specialisations of
kind ``concentration`` (``eligible_majors``: the degrees that offer them), with
``concentration_required`` on a degree whose group of them is not optional, and its minors
of kind ``minor``. A student lists the degree and the specialisations they take
(``["3778", "COMPA1"]``). Courses are shared freely between a degree and its
specialisations, as UNSW counts a major's first-year courses toward the degree's cores too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eval.unsw.requirements import CourseFacts, block_node, slug
from eval.unsw.source import Block, Source, SourceProgram, SourceSpec
from eval.unsw.tally import Tally

SECTION = "Programs and specialisations"
CATALOG_YEAR = "2022"
KIND_WORD = {"major": "major", "minor": "minor", "honours": "honours specialisation"}


@dataclass(frozen=True)
class ProgramOut:
    """One program file and its description document."""

    code: str
    data: dict[str, Any]
    document: str  # the document's Markdown


def selected_codes(source: Source, degrees: list[str]) -> list[str]:
    """The codes of every program the catalog holds: the degrees, then the specialisations
    they offer that the data has, in code order."""
    specs: set[str] = set()
    for d in degrees:
        for g in source.programs[d].groups:
            specs.update(s for s in g.specs if s in source.specs)
    return [*degrees, *sorted(specs)]


def build_programs(
    source: Source, degrees: list[str], facts: CourseFacts, tally: Tally
) -> list[ProgramOut]:
    """The degrees and their specialisations, degrees first."""
    out = []
    offered: dict[str, dict[str, list[str]]] = {}  # spec -> group kind -> degrees
    for d in degrees:
        prog = source.programs[d]
        out.append(_degree(prog, source, facts, tally))
        for g in prog.groups:
            for s in g.specs:
                if s not in source.specs:
                    tally.add(SECTION, "not converted", "specialisation missing from the data",
                              "The degree lists it but circles' specialisation file of this "
                              "commit has no entry for it.", f"{d}: {s}")  # fmt: skip
                    continue
                offered.setdefault(s, {}).setdefault(g.kind, []).append(d)
    for s in sorted(offered):
        out.append(_spec(source.specs[s], offered[s], source, facts, tally))
    return out


def _tree(
    code: str, title: str, blocks: tuple[Block, ...], faculty: str, facts: CourseFacts,
    tally: Tally,
) -> dict[str, Any] | None:  # fmt: skip
    children = []
    used: set[str] = set()
    for b in blocks:
        base = f"{code.lower()}-{slug(b.title or b.type)}"
        block_id, n = base, 2
        while block_id in used:
            block_id, n = f"{base}-{n}", n + 1
        node = block_node(b, block_id, code, faculty, facts, tally)
        if node is not None:
            used.add(block_id)
            children.append(node)
    if not children:
        return None
    return {"id": code.lower(), "title": title, "kind": "all_of", "children": children}


def _degree(prog: SourceProgram, source: Source, facts: CourseFacts, tally: Tally) -> ProgramOut:
    tree = _tree(prog.code, prog.title, prog.blocks, prog.faculty, facts, tally)
    required = [g for g in prog.groups if not g.optional and _has(g.specs, source)]
    data: dict[str, Any] = {
        "code": prog.code,
        "name": prog.title,
        "kind": "major",
        "aliases": [f"{prog.code} {prog.title}"],
        "catalog_year": CATALOG_YEAR,
        "department": prog.faculty or "UNSW",
        "total_units": prog.uoc,
        "document": f"program-{prog.code.lower()}",
    }
    if any(g.kind in ("majors", "honours") for g in required):
        data["concentration_required"] = True
        tally.add(SECTION, "exact", "required major or honours specialisation",
                  "`concentration_required`: the student declares one of the degree's "
                  "specialisations of that group.", prog.code)  # fmt: skip
    for g in required:
        if g.kind == "minors" or len(required) > 1:
            tally.add(SECTION, "approximate", "second required specialisation group",
                      "A degree that requires a specialisation from more than one group (or "
                      "a minor): the format requires one concentration, so the others are "
                      "not enforced.", f"{prog.code}: {g.kind}")  # fmt: skip
    if tree is None:
        # The format needs a requirement tree; a degree with none of its own blocks
        # converted is its total UOC and its specialisation only.
        tree = {"id": prog.code.lower(), "title": prog.title, "kind": "course_set",
                "min_level": 0, "min_units": prog.uoc}  # fmt: skip
        tally.add(SECTION, "approximate", "degree without converted blocks",
                  "No block of the degree itself converted: its requirement is its total "
                  "UOC of any courses.", prog.code)  # fmt: skip
    data["requirement"] = tree
    tally.add(SECTION, "exact", "degree (code, title, faculty, total UOC)",
              "A program of kind `major` with the degree's total UOC (`total_units`); "
              "its duration is stated in its document.", prog.code)  # fmt: skip
    doc = _document(data, prog.title, prog.code, [
        f"{prog.title} ({prog.code}): an undergraduate degree of {prog.uoc} UOC, "
        f"{prog.duration} years of full-time study. Faculty: {prog.faculty or 'UNSW'}.",
        *_group_lines(prog, source),
    ])  # fmt: skip
    return ProgramOut(prog.code, data, doc)


def _has(specs: tuple[str, ...], source: Source) -> bool:
    return any(s in source.specs for s in specs)


def _group_lines(prog: SourceProgram, source: Source) -> list[str]:
    lines = []
    for g in prog.groups:
        names = ", ".join(f"{source.specs[s].name} ({s})" for s in g.specs if s in source.specs)
        if names:
            need = "optional" if g.optional else "one required"
            lines.append(f"Its {g.kind} ({need}): {names}.")
    return lines


def _spec(
    spec: SourceSpec, offered: dict[str, list[str]], source: Source, facts: CourseFacts,
    tally: Tally,
) -> ProgramOut:  # fmt: skip
    kind = "minor" if "minors" in offered and len(offered) == 1 else "concentration"
    if len(offered) > 1:
        tally.add(SECTION, "approximate", "specialisation in two kinds of group",
                  "Offered as a major by one degree and as a minor by another: kept as a "
                  "concentration.", spec.code)  # fmt: skip
    degrees = sorted({d for ds in offered.values() for d in ds})
    faculty = source.programs[degrees[0]].faculty
    word = KIND_WORD.get(spec.type, spec.type)
    name = f"{spec.name} {word}"
    tree = _tree(spec.code, name, spec.blocks, faculty, facts, tally)
    if spec.constraints:
        tally.add(
            SECTION,
            "not converted",
            "course constraint of a specialisation",
            "A constraint circles keeps as prose only (e.g. 'a minimum of 30 UOC of "
            "level 4 COMP courses'): not parsed.",
            spec.code,
            spec.constraints,
        )
    if tree is None:
        tree = {"id": spec.code.lower(), "title": name, "kind": "course_set",
                "min_level": 0, "min_units": spec.uoc}  # fmt: skip
        tally.add(
            SECTION,
            "approximate",
            "specialisation without converted blocks",
            "No block converted: its requirement is its UOC of any courses.",
            spec.code,
        )
    data: dict[str, Any] = {
        "code": spec.code,
        "name": name,
        "kind": kind,
        "aliases": [f"{spec.code} {spec.name}"],
        "catalog_year": CATALOG_YEAR,
        "department": faculty or "UNSW",
        "eligible_majors": degrees,
        "document": f"program-{spec.code.lower()}",
        "requirement": tree,
    }
    tally.add(SECTION, "exact", f"specialisation as a {kind}",
              f"A {spec.type} specialisation: a program of kind `{kind}` whose "
              "`eligible_majors` are the degrees offering it.", spec.code)  # fmt: skip
    doc = _document(data, name, spec.code, [
        f"{name} ({spec.code}), {spec.uoc} UOC, taken within "
        + ", ".join(f"{source.programs[d].title} ({d})" for d in degrees) + ".",
    ])  # fmt: skip
    return ProgramOut(spec.code, data, doc)


def _document(data: dict[str, Any], title: str, code: str, lines: list[str]) -> str:
    body = [f"---\nid: {data['document']}\ntitle: {title} ({code})\nkind: program\n---\n"]
    body.append("## Overview {#overview}\n")
    body.append("\n\n".join(lines) + "\n")
    body.append("## Requirements {#requirements}\n")
    reqs = []
    for child in _children(data["requirement"]):
        reqs.append(f"- {child.get('title') or child['id']}: {_summary(child)}")
    body.append("\n".join(reqs) + "\n")
    return "\n".join(body)


def _children(node: dict[str, Any]) -> list[dict[str, Any]]:
    return list(node["children"]) if node["kind"] == "all_of" else [node]


def _summary(node: dict[str, Any]) -> str:
    if node["kind"] == "all_of":
        parts = []
        for c in node["children"]:
            if c["kind"] == "course":
                parts.append(c["course"])
            else:
                parts.append(" or ".join(x["course"] for x in c["children"]))
        return "all of " + ", ".join(parts) + "."
    what = []
    if node.get("courses"):
        what.append(", ".join(node["courses"]))
    if node.get("patterns"):
        what.append("courses matching " + ", ".join(node["patterns"]))
    if node.get("attributes"):
        what.append("general education courses")
    low, high = node.get("min_level"), node.get("max_level")
    if low == 0 and high is None:
        what.append("any course")
    elif low is not None:
        what.append(f"courses of level {low}" + (f" to {high}" if high not in (None, low) else ""))
    text = f"{node['min_units']} UOC from " + "; ".join(what)
    if node.get("exclude"):
        text += f" (not the {len(node['exclude'])} offered by the program's own faculty)"
    return text + "."

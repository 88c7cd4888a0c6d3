"""``documents/<id>.md``: one document, its fields in front matter, one section per heading.

::

    ---
    id: academic-policies
    title: Undergraduate Academic Policies
    kind: policy
    ---

    ## Course Load {#course-load}

    A full course load is 36 to 54 units ...

A line starting with ``## `` starts a section; it ends with the section id in braces. The
section's text is every line up to the next such heading, verbatim, without the blank
lines that open and close it: a blank line inside the text stays a blank line (``\\n\\n``
in the JSON), a line break stays a line break - Markdown never reflows it, since citations
quote the text word for word. ``export_document`` refuses text this cannot hold.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from agents.catalog.authoring.csvfiles import read_layout_text
from agents.catalog.authoring.sourcemap import SourceMap
from agents.catalog.authoring.yamlfiles import dump_yaml, parse_front_matter
from agents.catalog.policies import Document

FRONT_MATTER_FIELDS = ("id", "title", "kind")
DOCUMENT_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_HEADING_RE = re.compile(r"^##(?:[ \t](?P<rest>.*))?$")
_ID_RE = re.compile(r"^(?P<heading>.*?)[ \t]*\{#(?P<id>[^\s{}]+)\}[ \t]*$")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section-id"


def _front_matter(
    lines: list[str], name: str, stem: str, problems: list[str]
) -> tuple[dict[str, Any] | None, int, dict[str, int]]:
    """The front matter's fields, the index of the first body line, each field's line."""
    if not lines or lines[0].rstrip() != "---":
        problems.append(
            f"{name}:1: the file must start with front matter - a line '---', the fields "
            f"{', '.join(FRONT_MATTER_FIELDS)}, and another line '---'"
        )
        return None, 0, {}
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
    if end is None:
        problems.append(f"{name}:1: the front matter has no closing '---' line - add one")
        return None, 0, {}
    ok, value = parse_front_matter("\n".join(lines[1:end]), name, 2, problems)
    if not ok:
        return None, end + 1, {}
    if not isinstance(value, dict):
        problems.append(
            f"{name}:2: the front matter must be fields such as 'id: {stem}' - write "
            f"{', '.join(FRONT_MATTER_FIELDS)}, one per line"
        )
        return None, end + 1, {}
    field_lines: dict[str, int] = {}
    for i in range(1, end):
        key = lines[i].split(":", 1)[0].strip()
        field_lines.setdefault(key, i + 1)
    for key in value:
        if key not in FRONT_MATTER_FIELDS:
            problems.append(
                f"{name}:{field_lines.get(str(key), 2)}: unknown front matter field {key!r} - "
                f"the fields are {', '.join(FRONT_MATTER_FIELDS)}"
            )
    if value.get("id") != stem:
        problems.append(
            f"{name}:{field_lines.get('id', 2)} field 'id': {value.get('id')!r} does not match "
            f"the file name - the id of documents/{stem}.md is {stem!r}; rename the file or "
            "fix the id"
        )
    return value, end + 1, field_lines


def read_document(
    path: Path, index: int, smap: SourceMap, problems: list[str]
) -> dict[str, Any] | None:
    """The document in a Markdown file, as catalog JSON; None when it has problems."""
    name = f"documents/{path.name}"
    text = read_layout_text(path, name, problems)
    if text is None:
        return None
    lines = text.split("\n")
    before = len(problems)
    fields, body, field_lines = _front_matter(lines, name, path.stem, problems)
    at: tuple[str | int, ...] = ("documents", index)
    smap.add(at, f"{name}:1")
    for key, line in field_lines.items():
        smap.add((*at, key), f"{name}:{line} field {key!r}")
    sections: list[dict[str, Any]] = []
    starts: list[int] = []  # index of each section's heading line
    id_lines: dict[str, int] = {}
    headed = False  # a heading was seen, even one without an id
    for i in range(body, len(lines)):
        m = _HEADING_RE.match(lines[i])
        if m is None:
            if not headed and lines[i].strip():
                problems.append(
                    f"{name}:{i + 1}: text before the first '## ' heading belongs to no "
                    "section - put it under a heading such as '## Overview {#overview}'"
                )
            continue
        headed = True
        rest = (m.group("rest") or "").strip()
        idm = _ID_RE.match(rest)
        if idm is None:
            problems.append(
                f"{name}:{i + 1}: section heading {lines[i]!r} has no id - end the heading "
                f"with an id in braces, e.g. '## {rest} {{#{_slug(rest)}}}'"
            )
            continue
        heading, sid = idm.group("heading").strip(), idm.group("id")
        if sid in id_lines:
            problems.append(
                f"{name}:{i + 1}: section id {sid!r} is already used on line "
                f"{id_lines[sid]} - section ids are unique in a document"
            )
        id_lines.setdefault(sid, i + 1)
        sat = (*at, "sections", len(sections))
        smap.add(sat, f"{name}:{i + 1}")
        sections.append({"id": sid, "heading": heading, "text": ""})
        starts.append(i)
    for k, (section, start) in enumerate(zip(sections, starts, strict=True)):
        stop = starts[k + 1] if k + 1 < len(starts) else len(lines)
        text_lines = lines[start + 1 : stop]
        while text_lines and not text_lines[0].strip():
            text_lines.pop(0)
        while text_lines and not text_lines[-1].strip():
            text_lines.pop()
        section["text"] = "\n".join(text_lines)
        if not text_lines:
            problems.append(
                f"{name}:{start + 1}: section {section['id']!r} has no text - write its text "
                "below the heading"
            )
    if fields is None or len(problems) > before:
        return None
    return {**fields, "sections": sections}


def document_problems(doc: Document) -> list[str]:
    """What in ``doc`` the Markdown layout cannot hold exactly."""
    where = f"document {doc.id!r}"
    out = []
    if not DOCUMENT_ID_RE.match(doc.id):
        out.append(f"{where}: the id is not a file name - use letters, digits, '.', '_', '-'")
    for s in doc.sections:
        at = f"{where} section {s.id!r}"
        if not re.fullmatch(r"[^\s{}]+", s.id):
            out.append(f"{at}: a section id cannot contain spaces or braces")
        if s.heading != s.heading.strip() or "\n" in s.heading or "\r" in s.heading:
            out.append(f"{at}: the heading starts or ends with spaces, or has a line break")
        lines = s.text.split("\n")
        if "\r" in s.text:
            out.append(f"{at}: the text has a carriage return - use '\\n' line breaks")
        if not lines[0].strip() or not lines[-1].strip():
            out.append(f"{at}: the text starts or ends with a blank line - remove it")
        for line in lines:
            if _HEADING_RE.match(line):
                out.append(f"{at}: a line of the text starts with '##' - it would start a section")
    return out


def document_text(doc: Document) -> str:
    """The Markdown file of ``doc``; ``read_document`` reads it back to the same document
    when ``document_problems(doc)`` is empty."""
    front = dump_yaml({"id": doc.id, "title": doc.title, "kind": doc.kind})
    parts = [f"---\n{front}---\n"]
    for s in doc.sections:
        heading = f"{s.heading} " if s.heading else ""
        parts.append(f"\n## {heading}{{#{s.id}}}\n\n{s.text}\n")
    return "".join(parts)

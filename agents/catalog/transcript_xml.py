"""Reading transcript XML safely into a small element tree that remembers lines.

Transcripts come from outside, so the parser is ``defusedxml.sax`` (expat underneath, the
only standard parser that reports element lines) with a DTD forbidden: a DOCTYPE is
refused before its declarations are read, so no entity is ever expanded (a "billion
laughs") and no external entity or DTD is ever fetched (a file or URL read through the
transcript). The file's elements (``xml_elements``) and their nesting (``nesting``) are
bounded while it is read (``agents.catalog.limits``). Every refusal is a
``StudentRecordError`` that names the line and the fix.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any
from xml.sax import SAXParseException
from xml.sax.handler import ContentHandler, feature_namespaces
from xml.sax.xmlreader import Locator

import defusedxml.sax
from defusedxml import DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden

from agents.catalog.limits import LIMITS
from agents.catalog.transcript import Cell
from agents.errors import StudentRecordError

NO_DOCTYPE = (
    "transcripts with a DTD or entity declarations are refused (they can read local files "
    "or expand without bound) - export the transcript without a DOCTYPE"
)


@dataclass
class Node:
    """An element: local name, namespace, line, path below the root's child, children and
    text."""

    name: str
    namespace: str
    line: int
    path: str
    children: list[Node] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # children by name, for indexes
    used: bool = False  # read by the importer (elements never marked are reported)

    @property
    def text(self) -> str:
        return "".join(self.parts).strip()

    def all(self, name: str) -> list[Node]:
        return [c for c in self.children if c.name == name]

    def first(self, name: str) -> Node | None:
        return next((c for c in self.children if c.name == name), None)

    def cell(self, name: str) -> Cell | None:
        """The text of the first child ``name`` (marked used); None when it is missing or
        empty."""
        node = self.first(name)
        if node is None:
            return None
        node.used = True
        if not node.text:
            return None
        return Cell(node.text, node.line, node.path)

    def walk(self) -> list[Node]:
        """This element and every element below it, in document order."""
        out = [self]
        for child in self.children:
            out.extend(child.walk())
        return out


class _OverLimit(Exception):
    def __init__(self, problem: str) -> None:
        self.problem = problem


class _Builder(ContentHandler):
    def __init__(self, repeated: frozenset[str], strip: str) -> None:
        super().__init__()
        self.repeated = repeated
        self.strip = strip
        self.stack: list[Node] = []
        self.roots: list[Node] = []
        self.elements = 0
        self.locator: Locator | None = None

    @property
    def line(self) -> int:
        line = self.locator.getLineNumber() if self.locator is not None else None
        return line or 0

    def setDocumentLocator(self, locator: Locator) -> None:
        self.locator = locator

    def startElementNS(self, name: tuple[str | None, str], qname: Any, attrs: Any) -> None:
        self.elements += 1
        for key, count in (("xml_elements", self.elements), ("nesting", len(self.stack) + 1)):
            if count > LIMITS[key].value:
                raise _OverLimit(LIMITS[key].past("is this one student's transcript?"))
        namespace, local = name[0] or "", name[1]
        parent = self.stack[-1] if self.stack else None
        step = local
        if parent is not None and local in self.repeated:
            parent.counts[local] = parent.counts.get(local, 0) + 1
            step += f"[{parent.counts[local]}]"
        path = step if parent is None or len(self.stack) == 1 else f"{parent.path}/{step}"
        node = Node(local, namespace, self.line, path.removeprefix(self.strip))
        (parent.children if parent is not None else self.roots).append(node)
        self.stack.append(node)

    def endElementNS(self, name: Any, qname: Any) -> None:
        self.stack.pop()

    def characters(self, content: str) -> None:
        if self.stack:
            self.stack[-1].parts.append(content)


def parse_xml(
    data: bytes, source: str, fix: str, repeated: frozenset[str], strip: str = ""
) -> Node:
    """The element tree of ``data``: elements named in ``repeated`` carry a 1-based index
    in their paths ('Course[3]'), and ``strip`` is taken off the front of every path. A
    file that cannot be read is a ``StudentRecordError`` naming the line (``fix``: what to
    pass instead)."""
    body = data.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not body:
        raise StudentRecordError(source, [f"the file is empty; {fix}"])
    if not body.startswith(b"<"):
        first = body.splitlines()[0][:60].decode("utf-8", "replace")
        raise StudentRecordError(source, [f"line 1: not XML: it starts with {first!r}; {fix}"])
    builder = _Builder(repeated, strip)
    parser = defusedxml.sax.make_parser()
    parser.forbid_dtd = True
    parser.forbid_entities = True
    parser.forbid_external = True
    parser.setFeature(feature_namespaces, True)
    parser.setContentHandler(builder)
    try:
        parser.parse(io.BytesIO(data))
    except DTDForbidden as exc:
        named = f" ({exc.name}" + (f", SYSTEM {exc.sysid!r}" if exc.sysid else "") + ")"
        problem = f"line {builder.line}: the file has a DOCTYPE{named}; {NO_DOCTYPE}"
        raise StudentRecordError(source, [problem]) from None
    except (EntitiesForbidden, ExternalReferenceForbidden):  # pragma: no cover - no DTD
        problem = f"line {builder.line}: the file declares or references an entity; {NO_DOCTYPE}"
        raise StudentRecordError(source, [problem]) from None
    except _OverLimit as exc:
        raise StudentRecordError(source, [f"line {builder.line}: {exc.problem}"]) from None
    except SAXParseException as exc:
        raise StudentRecordError(
            source,
            [f"line {exc.getLineNumber()}, column {(exc.getColumnNumber() or 0) + 1}: not "
             "well-formed "
             f"XML ({exc.getMessage()}); {fix}"],
        ) from None  # fmt: skip
    return builder.roots[0]

"""Reading circles' processed enrolment conditions into trees.

circles states each course's conditions as a boolean expression over tokens, e.g.
``COMP1531 && (COMP2521 || COMP1927) && COMP# && 102UOC``. This module reads the forms
below into a tree of ``Leaf`` and ``Group`` nodes; ``eval.unsw.lowering`` turns a tree into
the catalog's prerequisite syntax. The grammar is written here from the data's forms:

=====================  ===========================================================
form                   meaning
=====================  ===========================================================
``COMP1511``           the course completed
``[A && B]``           corequisites: taken before or in the same term
``48UOC``              48 units of credit completed
``48UOC in L2 MATH``   ... of a category: a level (``L2``), a level and subject
                       (``L2 MATH``), a subject (``LAWS``, ``LAWS courses``), a
                       faculty or school (``F Business``, ``S Biology``)
``65GRADE in X``       a mark of at least 65 in course X (or in a category)
``70WAM``              a weighted average mark of at least 70 (optionally ``in`` X)
``3778``               enrolment in program 3778
``COMPA1``             enrolment in specialisation COMPA1
``ACCTB13554``         enrolment in specialisation ACCTB1 of program 3554
``COMP#``              enrolment in a program of the Computer Science kind
``BABS?H``             enrolment in an honours specialisation of subject BABS
``&&``, ``||``, ``()``  and, or, grouping; both operators at one level without
                       brackets (``A || B && C``) are read with ``||`` binding tighter,
                       as the handbook's "A or B, and C" means; the group is marked
                       ``mixed`` and the conversion counts it as approximate. Beside a
                       bracketed group (``(A && B) || C && D``) they are refused
=====================  ===========================================================

Anything else (free text left by circles' own parser) raises ``ConditionSyntaxError``
naming the token; the converter counts such a condition as not converted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

LeafKind = Literal[
    "course", "uoc", "wam", "grade", "program", "spec", "spec_in_program",
    "program_type", "spec_wildcard",
]  # fmt: skip

COURSE_RE = re.compile(r"[A-Z]{4}[0-9]{4}")
_TOKEN_RE = re.compile(r"\(|\)|\[|\]|&&|\|\||[^\s()\[\]]+")
_NUMBER_RE = re.compile(r"([0-9]+)(UOC|WAM|GRADE)")
_PROGRAM_RE = re.compile(r"[0-9]{4}")
_SPEC_RE = re.compile(r"([A-Z]{5}[A-Z0-9])([0-9]{4})?")
_TYPE_RE = re.compile(r"[A-Z]{4}#")
_WILDCARD_RE = re.compile(r"[A-Z]{4}\?[A-Z0-9]")
_SUBJECT_RE = re.compile(r"[A-Z]{4}")
_LEVEL_RE = re.compile(r"L[0-9]")


@dataclass(frozen=True)
class Leaf:
    """One condition: ``value`` is the course, program, specialisation or prefix;
    ``number`` the UOC, WAM or mark; ``category`` what a UOC/WAM/GRADE counts ('L2 MATH',
    a course code) or, for ``spec_in_program``, the program; ``concurrent`` marks a course
    inside ``[...]``."""

    kind: LeafKind
    value: str = ""
    number: int | None = None
    category: str | None = None
    concurrent: bool = False


@dataclass(frozen=True)
class Group:
    """``and`` / ``or`` of two or more nodes."""

    op: Literal["and", "or"]
    items: tuple[Node, ...]
    mixed: bool = False  # written with '&&' and '||' at one level: '||' read as binding tighter


Node = Leaf | Group


Problem = Literal["text", "operator", "ambiguous", "structure"]
"""Why a condition is outside the grammar: a word of no form (free text), two conditions
with no operator between them, '&&' and '||' mixed beside a bracketed group, or brackets
and keywords out of place."""


class ConditionSyntaxError(ValueError):
    """A condition outside the grammar: ``token`` is the first token not read."""

    def __init__(self, message: str, text: str, token: str, problem: Problem) -> None:
        self.text = text
        self.token = token
        self.problem = problem
        super().__init__(f"{message} in {text!r}")


def parse_condition(text: str) -> Node | None:
    """The tree of a processed condition (None when it is empty)."""
    tokens = _TOKEN_RE.findall(text)
    if not tokens:
        return None
    parser = _Parser(text, tokens)
    node = parser.expr(closing=None, concurrent=False)
    return node


class _Parser:
    def __init__(self, text: str, tokens: list[str]) -> None:
        self.text = text
        self.tokens = tokens
        self.i = 0

    def _peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def _fail(
        self, message: str, token: str | None, problem: Problem = "structure"
    ) -> ConditionSyntaxError:
        return ConditionSyntaxError(message, self.text, token or "", problem)

    def expr(self, closing: str | None, concurrent: bool) -> Node:
        segments: list[list[Node]] = [[self.term(concurrent)]]  # split at '&&'
        ops: set[str] = set()
        while (tok := self._peek()) is not None and tok != closing:
            if tok not in ("&&", "||"):
                problem: Problem = "operator" if _starts_condition(tok) else "text"
                raise self._fail(f"expected '&&' or '||' before {tok!r}", tok, problem)
            ops.add(tok)
            self.i += 1
            item = self.term(concurrent)
            if tok == "&&":
                segments.append([item])
            else:
                segments[-1].append(item)
        if closing is not None:
            if self._peek() != closing:
                raise self._fail(f"missing {closing!r}", None)
            self.i += 1
        ors: list[Node] = [s[0] if len(s) == 1 else Group("or", tuple(s)) for s in segments]
        node = ors[0] if len(ors) == 1 else Group("and", tuple(ors))
        if len(ops) > 1:
            if any(isinstance(i, Group) for seg in segments for i in seg):
                # '(A && B) || C && D': no phrasing settles which operator binds tighter.
                raise self._fail(
                    "'&&' and '||' at one level beside a bracketed group", "&&", "ambiguous"
                )
            assert isinstance(node, Group)
            return Group(node.op, node.items, mixed=True)
        return node

    def term(self, concurrent: bool) -> Node:
        tok = self._peek()
        if tok is None:
            raise self._fail("the condition ends early", None)
        self.i += 1
        if tok == "(":
            return self.expr(")", concurrent)
        if tok == "[":
            if concurrent:
                raise self._fail("'[' inside '[...]'", tok)
            return self.expr("]", True)
        leaf = self.atom(tok)
        if concurrent and leaf.kind != "course":
            raise self._fail("only courses may stand inside '[...]'", tok)
        return Leaf(leaf.kind, leaf.value, leaf.number, leaf.category, concurrent)

    def atom(self, tok: str) -> Leaf:
        if COURSE_RE.fullmatch(tok):
            return Leaf("course", tok)
        if m := _NUMBER_RE.fullmatch(tok):
            kind = {"UOC": "uoc", "WAM": "wam", "GRADE": "grade"}[m.group(2)]
            category = self.category() if self._peek() == "in" else None
            if kind == "grade" and category is None:
                raise self._fail("a mark needs 'in' and a course", tok)
            return Leaf(kind, "", int(m.group(1)), category)  # type: ignore[arg-type]
        if _PROGRAM_RE.fullmatch(tok):
            return Leaf("program", tok)
        if m := _SPEC_RE.fullmatch(tok):
            if m.group(2):
                return Leaf("spec_in_program", m.group(1), None, m.group(2))
            return Leaf("spec", tok)
        if _TYPE_RE.fullmatch(tok):
            return Leaf("program_type", tok[:4])
        if _WILDCARD_RE.fullmatch(tok):
            return Leaf("spec_wildcard", tok)
        raise self._fail(f"{tok!r} is not a condition", tok, "text")

    def category(self) -> str:
        self.i += 1  # 'in'
        tok = self._peek()
        if tok is None:
            raise self._fail("'in' without a category", None)
        self.i += 1
        if COURSE_RE.fullmatch(tok):
            return tok
        if _LEVEL_RE.fullmatch(tok):
            nxt = self._peek()
            if nxt is not None and _SUBJECT_RE.fullmatch(nxt):
                self.i += 1
                return f"{tok} {nxt}"
            return tok
        if tok in ("F", "S"):
            nxt = self._peek()
            if nxt is None or not nxt[:1].isalpha():
                raise self._fail(f"'{tok}' needs a faculty or school name", nxt, "text")
            self.i += 1
            return f"{tok} {nxt}"
        if _SUBJECT_RE.fullmatch(tok):
            if self._peek() == "courses":
                self.i += 1
            return tok
        raise self._fail(f"{tok!r} is not a category", tok, "text")


def _starts_condition(tok: str) -> bool:
    """Whether ``tok`` could begin a condition (else it is a word of free text)."""
    return tok in ("(", "[") or any(
        r.fullmatch(tok)
        for r in (COURSE_RE, _NUMBER_RE, _PROGRAM_RE, _SPEC_RE, _TYPE_RE, _WILDCARD_RE)
    )


def leaves(node: Node | None) -> list[Leaf]:
    """Every leaf of a tree, left to right."""
    if node is None:
        return []
    if isinstance(node, Leaf):
        return [node]
    return [leaf for item in node.items for leaf in leaves(item)]

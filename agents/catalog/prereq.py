"""Prerequisite and corequisite trees, their readable expression syntax, parser and printer.

A tree is made of course conditions (optionally with a minimum grade, or taken concurrently),
``all`` / ``any`` groups, and other conditions (class standing, units completed, program
membership, test scores and placements, consent). As an expression::

    15-112 and (21-127 or 21-128[C]) and concurrent(15-151)
    standing(junior) and units(180) and program(CS-BS)
    consent(instructor) or score(AP-CALC-BC, 4) or placement(MATH-PLACEMENT, MATH 2B)

``and`` binds tighter than ``or``; parentheses group. A minimum grade follows a code in
brackets."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from agents.catalog.test_scores import ScoreCond
from agents.errors import PrereqSyntaxError

ClassStanding = Literal["first_year", "sophomore", "junior", "senior"]
STANDINGS: tuple[ClassStanding, ...] = ("first_year", "sophomore", "junior", "senior")

COURSE_CODE_PATTERN = r"^(?:[0-9]{2}-[0-9]{3}|[A-Z]{2,5}[ -]?[0-9]{2,4}[A-Z]?)$"
GRADE_PATTERN = r"^[A-Z][+-]?$"


class _Node(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CourseCond(_Node):
    """The named course must be completed (or in progress) with at least the grade given."""

    course: str = Field(description="Course code, e.g. '15-112'.", pattern=COURSE_CODE_PATTERN)
    min_grade: str | None = Field(
        default=None,
        description="Lowest grade that satisfies the condition.",
        pattern=GRADE_PATTERN,
    )
    concurrent: bool = Field(
        default=False,
        description="'X, which may be taken concurrently': completed before the term, or "
        "taken in the same term (a corequisite, by contrast, must be taken with it or "
        "before). Written concurrent(X) in an expression.",
    )

    @model_serializer(mode="wrap")
    def _without_default(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """``concurrent`` is written only when true: catalogs without the form serialize as
        before."""
        out: dict[str, Any] = handler(self)
        if not self.concurrent:
            out.pop("concurrent", None)
        return out


class StandingCond(_Node):
    """The student must have at least this class standing in the term the course is taken."""

    standing: ClassStanding = Field(description="Minimum class standing.")


class UnitsCond(_Node):
    """The student must have completed at least this many units before the term."""

    units_completed: float = Field(ge=0, description="Minimum units completed before the term.")


class ProgramCond(_Node):
    """The student must be in (or be adding) the named program."""

    program: str = Field(description="Program code, e.g. 'CS-BS'.")


class ConsentCond(_Node):
    """Permission is needed from the named party; planners treat it as an approval risk."""

    consent: Literal["instructor", "department", "dean"] = Field(description="Who must consent.")


class AllOf(_Node):
    """Every child condition must hold."""

    all: list[PrereqNode] = Field(min_length=1, description="Conditions that must all hold.")


class AnyOf(_Node):
    """At least one child condition must hold."""

    any: list[PrereqNode] = Field(min_length=1, description="Conditions of which one must hold.")


PrereqNode = Annotated[
    Union[CourseCond, AllOf, AnyOf, StandingCond, UnitsCond, ProgramCond, ScoreCond, ConsentCond],  # noqa: UP007
    Field(union_mode="left_to_right"),
]
AllOf.model_rebuild()
AnyOf.model_rebuild()

_FUNCS = "standing|units|consent|program|concurrent|score|placement"  # condition names
_TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<lparen>\()
  | (?P<rparen>\))
  | (?P<func>(?P<fname>{names})\s*\((?P<arg>[^()]*)\))
  | (?P<badfunc>(?:{names})\s*\()
  | (?P<kw>(?:and|or)\b)
  | (?P<course>[0-9]{2}-[0-9]{3}|[A-Z]{2,5}[ -]?[0-9]{2,4}[A-Z]?)(?P<grade>\[[^\]]*\])?
""".replace("{names}", _FUNCS),
    re.VERBOSE,
)


_CONCURRENT_RE = re.compile(
    r"\s*(?P<course>[0-9]{2}-[0-9]{3}|[A-Z]{2,5}[ -]?[0-9]{2,4}[A-Z]?)\s*"
    r"(?:\[\s*(?P<grade>[A-Z][+-]?)\s*\])?\s*"
)
_WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]*")
_SPACED_WORD_RE = re.compile(r"[A-Za-z]{2,5} [A-Za-z0-9]+")  # 'CS lO1'
_LOOKALIKE = {"O": "0", "o": "0", "l": "1", "I": "1"}


def suggest_course_code(text: str) -> str | None:
    """The course code ``text`` was probably meant to be, reading letters that look like
    digits (O, o, l, I) as the digits; None when no such reading is a course code (or
    ``text`` already is one)."""
    if re.fullmatch(COURSE_CODE_PATTERN, text):
        return None
    spots = [i for i, ch in enumerate(text) if ch in _LOOKALIKE][:6]
    for n in range(len(spots) + 1):
        for chosen in itertools.combinations(spots, n):
            chars = list(text)
            for i in chosen:
                chars[i] = _LOOKALIKE[chars[i]]
            candidate = "".join(chars)
            if re.fullmatch(COURSE_CODE_PATTERN, candidate):
                return candidate
    return None


def _lookalikes(word: str, fix: str) -> str:
    """': the letter 'O' looks like the digit 0' for the letters ``fix`` reads as digits."""
    pairs = [(a, b) for a, b in zip(word, fix, strict=True) if a in _LOOKALIKE and b.isdigit()]
    if not pairs:
        return ""
    if len(pairs) == 1:
        return f": the letter {pairs[0][0]!r} looks like the digit {pairs[0][1]}"
    letters = ", ".join(repr(a) for a, _ in pairs)
    digits = ", ".join(b for _, b in pairs)
    return f": the letters {letters} look like the digits {digits}"


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str, int, str | None]] = []
        pos = 0
        while pos < len(text):
            m = _TOKEN_RE.match(text, pos)
            if m is None:
                raise self._bad_text(pos)
            if m.group("badfunc"):
                raise PrereqSyntaxError(
                    f"missing ')' after {m.group('badfunc').strip()!r}", text, len(text) + 1
                )
            if m.group("course"):
                self.tokens.append(("course", m.group("course"), pos + 1, m.group("grade")))
            elif m.group("func"):
                arg_col = m.start("arg") + 1
                self.tokens.append(("func", m.group("fname"), arg_col, m.group("arg")))
            elif not m.group("ws"):
                kind = m.lastgroup or ""
                self.tokens.append((kind, m.group(kind), pos + 1, None))
            pos = m.end()
        self.i = 0

    def _bad_text(self, pos: int) -> PrereqSyntaxError:
        """The error for text the tokens cannot read at ``pos``: a word is named whole (with
        the course code it was probably meant to be), any other character on its own."""
        text = self.text
        last = self.tokens[-1] if self.tokens else None
        if last is not None and last[0] == "course" and pos > 0 and text[pos - 1].isalnum():
            pos = last[2] - 1  # '21-1200': a code ran on past its end; name it whole
            self.tokens.pop()
        for word_re in (_SPACED_WORD_RE, _WORD_RE):
            m = word_re.match(text, pos)
            fix = suggest_course_code(m.group()) if m else None
            if m and fix:
                word = m.group()
                at = next(i for i, (a, b) in enumerate(zip(word, fix, strict=True)) if a != b)
                return PrereqSyntaxError(
                    f"{word!r} is not a course code{_lookalikes(word, fix)}; write {fix!r}",
                    text,
                    pos + at + 1,
                )
        m = _WORD_RE.match(text, pos)
        if m:
            return PrereqSyntaxError(
                f"{m.group()!r} is not a course code, 'and', 'or' or a condition; course codes "
                "look like 15-112, CS 101 or MATH221",
                text,
                pos + 1,
            )
        return PrereqSyntaxError(
            f"unexpected character {text[pos]!r}; expected a course code, 'and', 'or', "
            "'(' or a condition such as standing(junior)",
            text,
            pos + 1,
        )

    def _peek(self) -> tuple[str, str, int, str | None] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def _col_end(self) -> int:
        return len(self.text) + 1

    def parse(self) -> PrereqNode:
        if not self.tokens:
            raise PrereqSyntaxError("empty expression", self.text, 1)
        node = self._or()
        tok = self._peek()
        if tok is not None:
            raise PrereqSyntaxError(f"unexpected {tok[1]!r}", self.text, tok[2])
        return node

    def _or(self) -> PrereqNode:
        items = [self._and()]
        while (tok := self._peek()) is not None and tok[0] == "kw" and tok[1] == "or":
            self.i += 1
            items.append(self._and())
        return items[0] if len(items) == 1 else AnyOf(any=items)

    def _and(self) -> PrereqNode:
        items = [self._atom()]
        while (tok := self._peek()) is not None and tok[0] == "kw" and tok[1] == "and":
            self.i += 1
            items.append(self._atom())
        return items[0] if len(items) == 1 else AllOf(all=items)

    def _atom(self) -> PrereqNode:
        tok = self._peek()
        if tok is None:
            raise PrereqSyntaxError(
                "expression ends early; expected a course code, '(' or a condition",
                self.text,
                self._col_end(),
            )
        kind, value, col, grade = tok
        self.i += 1
        if kind == "lparen":
            node = self._or()
            close = self._peek()
            if close is None or close[0] != "rparen":
                where = close[2] if close else self._col_end()
                raise PrereqSyntaxError("missing ')'", self.text, where)
            self.i += 1
            return node
        if kind == "course":
            min_grade = None
            if grade is not None:
                min_grade = grade[1:-1].strip()
                if not re.fullmatch(GRADE_PATTERN, min_grade):
                    raise PrereqSyntaxError(
                        f"bad minimum grade {min_grade!r}; expected a letter grade such as 'C' "
                        "or 'B-'",
                        self.text,
                        col + len(value),
                    )
            return CourseCond(course=value, min_grade=min_grade)
        if kind == "func":
            return self._func(value, (grade or "").strip(), col)
        raise PrereqSyntaxError(
            f"unexpected {value!r}; expected a course code, '(' or a condition", self.text, col
        )

    def _func(self, name: str, arg: str, col: int) -> PrereqNode:
        try:
            if name == "standing":
                if arg not in STANDINGS:
                    raise ValueError(f"standing must be one of {', '.join(STANDINGS)}")
                return StandingCond(standing=arg)  # type: ignore[arg-type]
            if name == "units":
                try:
                    return UnitsCond(units_completed=float(arg))
                except ValueError:
                    raise ValueError("units needs a number, e.g. units(90)") from None
            if name == "consent":
                if arg not in ("instructor", "department", "dean"):
                    raise ValueError("consent must be instructor, department or dean")
                return ConsentCond(consent=arg)  # type: ignore[arg-type]
            if name in ("score", "placement"):
                test, comma, value = (part.strip() for part in arg.partition(","))
                if not test or not comma or not value:
                    raise ValueError(
                        f"{name} needs a test id and a {'score' if name == 'score' else 'result'}"
                        f", e.g. score(AP-CALC-BC, 4) or placement(MATH-PLACEMENT, MATH 2B)"
                    )
                if name == "placement":
                    return ScoreCond(test=test, result=value)
                try:
                    return ScoreCond(test=test, min_score=float(value))
                except ValueError:
                    raise ValueError(f"score needs a number, not {value!r}") from None
            if name == "concurrent":
                m = _CONCURRENT_RE.fullmatch(arg)
                if m is None:
                    raise ValueError(
                        "concurrent needs one course code, with an optional minimum grade, "
                        "e.g. concurrent(15-112) or concurrent(21-128[C])"
                    )
                grade = m.group("grade")
                return CourseCond(course=m.group("course"), min_grade=grade, concurrent=True)
            if not arg:
                raise ValueError("program code is empty")
            return ProgramCond(program=arg)
        except ValueError as exc:
            msg = str(exc).splitlines()[0]
            raise PrereqSyntaxError(f"{name}({arg}): {msg}", self.text, col) from None


def parse_prereq(text: str) -> PrereqNode:
    """Parse a prerequisite expression into a tree; raises PrereqSyntaxError with a column."""
    return _Parser(text).parse()


def format_prereq(node: PrereqNode, _parent: str | None = None) -> str:
    """Print a tree as an expression that ``parse_prereq`` reads back to the same tree."""
    if isinstance(node, CourseCond):
        text = node.course + (f"[{node.min_grade}]" if node.min_grade else "")
        return f"concurrent({text})" if node.concurrent else text
    if isinstance(node, ScoreCond):
        if node.result is not None and node.min_score is None:
            return f"placement({node.test}, {node.result})"
        # Both or neither (JSON only): an expression that does not read back to it.
        return f"score({node.test}, {node.min_score or 0:g})"
    if isinstance(node, StandingCond):
        return f"standing({node.standing})"
    if isinstance(node, UnitsCond):
        u = node.units_completed
        return f"units({int(u) if u == int(u) else u})"
    if isinstance(node, ConsentCond):
        return f"consent({node.consent})"
    if isinstance(node, ProgramCond):
        return f"program({node.program})"
    if isinstance(node, AllOf):
        if len(node.all) == 1:
            return f"({format_prereq(node.all[0], 'all1')})"
        inner = " and ".join(format_prereq(c, "all") for c in node.all)
        return f"({inner})" if _parent == "all" else inner
    assert isinstance(node, AnyOf)
    if len(node.any) == 1:
        return f"({format_prereq(node.any[0], 'any1')})"
    inner = " or ".join(format_prereq(c, "any") for c in node.any)
    return f"({inner})" if _parent in ("all", "any") else inner


def coerce_prereq(value: object) -> PrereqNode | None:
    """Accept an expression string, a tree (dict or model), or None."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return parse_prereq(value)
    return value  # type: ignore[return-value]


def iter_prereq(node: PrereqNode | None) -> Iterator[PrereqNode]:
    """Every node of a prerequisite tree, depth first, parents before children: the one
    walk over a tree that every reader of prerequisites uses."""
    if node is None:
        return
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, AllOf):
            stack.extend(reversed(n.all))
        elif isinstance(n, AnyOf):
            stack.extend(reversed(n.any))


def courses_in(node: PrereqNode | None) -> list[str]:
    """Every course code named in a tree, in order of first appearance."""
    out: list[str] = []
    for n in iter_prereq(node):
        if isinstance(n, CourseCond) and n.course not in out:
            out.append(n.course)
    return out


def programs_in(node: PrereqNode | None) -> list[str]:
    """Every program code named in a tree."""
    return [n.program for n in iter_prereq(node) if isinstance(n, ProgramCond)]

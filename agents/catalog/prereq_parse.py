"""Reading a prerequisite expression into a tree (``agents.catalog.prereq`` has the trees,
the syntax and the printer).

Course codes are read against the catalog's own codes when they are known
(``agents.catalog.codes``: the longest code at each place, in any case and spacing, so
``A&B SCI 6B and (CHEM H2A or PHYS 7LC)`` reads), else in the common shapes ``15-112``,
``CS 101``, ``MATH221`` or ``ECON-201A``. The catalog's codes are known while a catalog is
validated or in use (``codes.use_codes``), or when passed; an expression naming a code the
catalog does not have is then an error with the codes meant. Every error names the column.
"""

from __future__ import annotations

import itertools
import re

from agents.catalog.codes import CodeIndex, active_codes
from agents.catalog.prereq import (
    GRADE_PATTERN,
    STANDINGS,
    AllOf,
    AnyOf,
    ConsentCond,
    CourseCond,
    MetCond,
    PrereqNode,
    ProgramCond,
    StandingCond,
    UnitsCond,
)
from agents.catalog.test_scores import ScoreCond
from agents.errors import PrereqSyntaxError

__all__ = ["coerce_prereq", "parse_prereq", "suggest_course_code"]

# The common code shapes: read without a catalog's codes, and suggested for look-alikes.
_SHAPE = r"[0-9]{2}-[0-9]{3}|[A-Z]{2,5}[ -]?[0-9]{2,4}[A-Z]?"
_SHAPE_PATTERN = rf"^(?:{_SHAPE})$"

_FUNCS = "standing|units|consent|program|concurrent|score|placement|met"  # condition names
_TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<lparen>\()
  | (?P<rparen>\))
  | (?P<func>(?P<fname>{names})\s*\((?P<arg>[^()]*)\))
  | (?P<badfunc>(?:{names})\s*\()
  | (?P<kw>(?:and|or)\b)
""".replace("{names}", _FUNCS),
    re.VERBOSE,
)
_SHAPE_RE = re.compile(_SHAPE)
_GRADE_RE = re.compile(r"\[[^\]]*\]")
_RUN_WORD = re.compile(r"[^\s()\[\]]+")
_FUNC_START = re.compile(rf"(?:{_FUNCS})\s*\(")
_CONCURRENT_RE = re.compile(r"\s*(?P<course>[^\[\]]*?)\s*(?:\[\s*(?P<grade>[A-Z][+-]?)\s*\])?\s*")


_WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]*")
_SPACED_WORD_RE = re.compile(r"[A-Za-z]{2,5} [A-Za-z0-9]+")  # 'CS lO1'
_LOOKALIKE = {"O": "0", "o": "0", "l": "1", "I": "1"}


def suggest_course_code(text: str) -> str | None:
    """The course code ``text`` was probably meant to be, reading letters that look like
    digits (O, o, l, I) as the digits; None when no such reading is a course code (or
    ``text`` already is one)."""
    if re.fullmatch(_SHAPE_PATTERN, text):
        return None
    spots = [i for i, ch in enumerate(text) if ch in _LOOKALIKE][:6]
    for n in range(len(spots) + 1):
        for chosen in itertools.combinations(spots, n):
            chars = list(text)
            for i in chosen:
                chars[i] = _LOOKALIKE[chars[i]]
            candidate = "".join(chars)
            if re.fullmatch(_SHAPE_PATTERN, candidate):
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
    def __init__(self, text: str, codes: CodeIndex | None) -> None:
        self.text = text
        self.codes = codes
        self.tokens: list[tuple[str, str, int, str | None]] = []
        pos = 0
        while pos < len(text):
            m = _TOKEN_RE.match(text, pos)
            if m is None:
                code, end = self._course_at(pos)
                grade = _GRADE_RE.match(text, end)
                self.tokens.append(("course", code, pos + 1, grade.group() if grade else None))
                pos = grade.end() if grade else end
                continue
            if m.group("badfunc"):
                raise PrereqSyntaxError(
                    f"missing ')' after {m.group('badfunc').strip()!r}", text, len(text) + 1
                )
            if m.group("func"):
                arg_col = m.start("arg") + 1
                self.tokens.append(("func", m.group("fname"), arg_col, m.group("arg")))
            elif not m.group("ws"):
                kind = m.lastgroup or ""
                self.tokens.append((kind, m.group(kind), pos + 1, None))
            pos = m.end()
        self.i = 0

    def _course_at(self, pos: int) -> tuple[str, int]:
        """The course code at ``pos`` and where it ends: the catalog's longest code written
        there, else a code of the common shapes (which the catalog check then resolves)."""
        text, codes = self.text, self.codes
        if codes is not None and (hit := codes.match_at(text, pos)) is not None:
            return hit
        m = _SHAPE_RE.match(text, pos)
        if m is not None and (codes is None or _word_ends(text, m.end())):
            return m.group(), m.end()
        if codes is not None:
            self._unknown_code(pos, codes)
        raise self._bad_text(pos)

    def _unknown_code(self, pos: int, codes: CodeIndex) -> None:
        """Raise the error for a code the catalog does not have written at ``pos``: the
        words up to the next keyword, bracket or condition, when they hold a digit."""
        text, end, i = self.text, pos, pos
        if pos > 0 and text[pos - 1].isalnum():
            return
        while (m := _RUN_WORD.match(text, i)) is not None:
            if m.group() in ("and", "or") or _FUNC_START.match(text, i):
                break
            end = m.end()
            gap = re.match(r"[ \t]+", text[end:])
            if gap is None:
                break
            i = end + gap.end()
        run = text[pos:end]
        if not run[:1].isalnum() or not any(ch.isdigit() for ch in run):
            return
        meant = [c for c in [codes.lookalike(run)] if c is not None]
        meant += [c for c in codes.closest(run) if c not in meant]
        hint = f"; did you mean {', '.join(meant[:5])}?" if meant else ""
        raise PrereqSyntaxError(f"unknown course {run!r}{hint}", text, pos + 1)

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
            shown = self.codes.codes[:3] if self.codes else []
            like = ", ".join(shown[:-1]) + f" or {shown[-1]}" if len(shown) > 1 else ""
            return PrereqSyntaxError(
                f"{m.group()!r} is not a course code, 'and', 'or' or a condition; course codes "
                f"look like {like or '15-112, CS 101 or MATH221'}",
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

    def _one_code(self, text: str) -> str | None:
        """``text`` as one course code: the catalog's (any case and spacing), else one of
        the common shapes; None when it is not one (a ValueError for a code the catalog
        does not have)."""
        codes = self.codes
        if codes is not None and (hit := codes.find(text)) is not None:
            return hit
        if re.fullmatch(_SHAPE_PATTERN, text):
            return text
        if codes is None or re.search(r"\b(?:and|or)\b", text) or not re.search(r"\d", text):
            return None
        meant = codes.closest(text)
        hint = f"; did you mean {', '.join(meant)}?" if meant else ""
        raise ValueError(f"unknown course {text!r}{hint}")

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
            if name == "met":
                if not arg:
                    raise ValueError("met needs a milestone id, e.g. met(ELWR)")
                return MetCond(met=arg)
            if name == "concurrent":
                m = _CONCURRENT_RE.fullmatch(arg)
                code = self._one_code(m.group("course")) if m is not None else None
                if m is None or code is None:
                    raise ValueError(
                        "concurrent needs one course code, with an optional minimum grade, "
                        "e.g. concurrent(15-112) or concurrent(21-128[C])"
                    )
                grade = m.group("grade")
                return CourseCond(course=code, min_grade=grade, concurrent=True)
            if not arg:
                raise ValueError("program code is empty")
            return ProgramCond(program=arg)
        except ValueError as exc:
            msg = str(exc).splitlines()[0]
            raise PrereqSyntaxError(f"{name}({arg}): {msg}", self.text, col) from None


def parse_prereq(text: str, codes: CodeIndex | None = None) -> PrereqNode:
    """Parse a prerequisite expression into a tree; raises PrereqSyntaxError with a column.
    Course codes are read against ``codes`` (default: the codes in use, ``use_codes``);
    with none, in the common shapes only."""
    return _Parser(text, codes if codes is not None else active_codes()).parse()


def _word_ends(text: str, end: int) -> bool:
    return end >= len(text) or not (text[end].isalnum() or text[end] == "&")


def coerce_prereq(value: object) -> PrereqNode | None:
    """Accept an expression string, a tree (dict or model), or None."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return parse_prereq(value)
    return value  # type: ignore[return-value]

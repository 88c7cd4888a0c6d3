"""Reading a PESC College Transcript (XML) - the PESC/AACRAO standard registrars exchange.

What is read, by element local name (real files put the root in the
``urn:org:pesc:message:CollegeTranscript:v1.x`` namespace and the rest unqualified or in
the AcademicRecord and CoreMain namespaces; any prefixes are fine)::

    CollegeTranscript/Student
      Person/SchoolAssignedPersonID            the student id
      Person/Name/CompositeName, or FirstName + LastName   the name
      AcademicRecord[r]                        one per school record
        AcademicProgram/AcademicProgramName (or AcademicProgramCode), AcademicProgramType
        AcademicSummary/GPA/GradePointAverage  cumulative GPA (a summary typed Transfer
                                               is skipped)
        Course[c]                              credit outside any session (AP, transfer)
        AcademicSession[s]
          AcademicSessionDetail/SessionName     'Fall 2023', read with the catalog calendar
          AcademicSessionDetail/SessionDesignator  '2023-09', read with its months
          AcademicProgram ...                   when the record lists none itself
          Course[c]
            CourseSubjectAbbreviation + CourseNumber   the course code
            CourseAcademicGrade, CourseCreditValue (else CourseCreditEarned),
            CourseCreditBasis, CourseInProgressIndicator (true, or the grade 'IP':
            in progress)

Programs come from the first AcademicRecord that lists any (a transfer school's record
comes after the sender's): its own AcademicProgram elements, else those of its last session
that lists any. Problems name the element's path below Student and its line.

Transcripts come from outside, so the parser is ``xml.parsers.expat`` (the parser under
``xml.etree``, which cannot report element lines) with every DOCTYPE refused before its
declarations are read: no DTD, no entity expansion, no external entity is ever fetched -
which is what ``defusedxml`` would add, so it is not needed (expat itself, 2.4 and later,
also caps entity amplification). The file's size (``transcript_bytes``), its elements
(``xml_elements``) and their nesting (``nesting``) are bounded (``agents.catalog.limits``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from xml.parsers import expat

from agents.catalog.limits import LIMITS
from agents.catalog.transcript import (
    Cell,
    Problem,
    Transcript,
    TranscriptCourse,
    TranscriptProgram,
)
from agents.errors import StudentRecordError

PESC_NAMESPACE = "urn:org:pesc:message:CollegeTranscript"
"""The namespace of the root element, before its version (':v1.6.0')."""

REPEATED = frozenset(
    {"AcademicRecord", "AcademicSession", "Course", "AcademicProgram", "AcademicSummary"}
)
"""Elements that repeat: their paths carry a 1-based index, 'Course[3]'."""

_TRUE = frozenset({"true", "1", "yes", "y"})
_FALSE = frozenset({"false", "0", "no", "n"})
FIX = "pass a PESC College Transcript XML file, or --format csv for a CSV transcript"


@dataclass
class _Node:
    """An element: local name, namespace, line, path below Student, children, text."""

    name: str
    namespace: str
    line: int
    path: str
    children: list[_Node] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # children by name, for indexes

    @property
    def text(self) -> str:
        return "".join(self.parts).strip()

    def all(self, name: str) -> list[_Node]:
        return [c for c in self.children if c.name == name]

    def first(self, name: str) -> _Node | None:
        return next((c for c in self.children if c.name == name), None)

    def cell(self, name: str) -> Cell | None:
        """The text of the first child ``name``; None when it is missing or empty."""
        node = self.first(name)
        if node is None or not node.text:
            return None
        return Cell(node.text, node.line, node.path)


class _DoctypeRefused(Exception):
    def __init__(self, line: int) -> None:
        self.line = line


class _OverLimit(Exception):
    def __init__(self, line: int, problem: str) -> None:
        self.line = line
        self.problem = problem


def read_pesc(data: bytes, source: str) -> Transcript:
    """The transcript in PESC College Transcript XML ``data`` (the bytes of ``source``)."""
    root = _parse(data, source)
    if root.name != "CollegeTranscript" or not (
        root.namespace == "" or root.namespace.startswith(PESC_NAMESPACE + ":")
    ):
        shown = f"{{{root.namespace}}}{root.name}" if root.namespace else root.name
        raise StudentRecordError(
            source,
            [f"line {root.line}: the root element is {shown!r}, not a PESC CollegeTranscript "
             f"(namespace {PESC_NAMESPACE}:v1.x); {FIX}"],
        )  # fmt: skip
    students = root.all("Student")
    if len(students) != 1:
        found = "no Student element" if not students else f"{len(students)} Student elements"
        raise StudentRecordError(
            source,
            [f"line {root.line}: CollegeTranscript has {found}; a College Transcript holds "
             "exactly one student"],
        )  # fmt: skip
    student = students[0]
    courses: list[TranscriptCourse] = []
    problems: list[Problem] = []
    programs: list[TranscriptProgram] = []
    gpa: Cell | None = None
    for record in student.all("AcademicRecord"):
        for node in record.all("Course"):
            _add_course(node, (), courses, problems)
        sessions = record.all("AcademicSession")
        for session in sessions:
            detail = session.first("AcademicSessionDetail") or session
            terms = tuple(
                c for c in (detail.cell("SessionName"), detail.cell("SessionDesignator")) if c
            )
            for node in session.all("Course"):
                _add_course(node, terms, courses, problems)
        listing = [record, *reversed(sessions)]
        declared = next((n.all("AcademicProgram") for n in listing if n.all("AcademicProgram")), [])
        programs = programs or [p for p in map(_program, declared) if p is not None]
        gpa = gpa or _gpa(record)
    person = student.first("Person")
    return Transcript(
        source,
        "pesc",
        courses=tuple(courses),
        student_id=person.cell("SchoolAssignedPersonID") if person else None,
        name=_name(person.first("Name")) if person else None,
        programs=tuple(programs),
        gpa=gpa,
        problems=tuple(problems),
    )


def _parse(data: bytes, source: str) -> _Node:
    """The element tree of ``data``, or a ``StudentRecordError`` that names the line."""
    body = data.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not body:
        raise StudentRecordError(source, [f"the file is empty; {FIX}"])
    if not body.startswith(b"<"):
        first = body.splitlines()[0][:60].decode("utf-8", "replace")
        raise StudentRecordError(source, [f"line 1: not XML: it starts with {first!r}; {FIX}"])
    parser = expat.ParserCreate(namespace_separator=" ")
    parser.buffer_text = True
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[_Node] = []
    roots: list[_Node] = []
    elements = 0

    def refuse(*_args: object) -> None:
        raise _DoctypeRefused(parser.CurrentLineNumber)

    def start(name: str, _attributes: object) -> None:
        nonlocal elements
        elements += 1
        for key, count in (("xml_elements", elements), ("nesting", len(stack) + 1)):
            if count > LIMITS[key].value:
                problem = LIMITS[key].past("is this one student's transcript?")
                raise _OverLimit(parser.CurrentLineNumber, problem)
        namespace, _, local = name.rpartition(" ")
        parent = stack[-1] if stack else None
        step = local
        if parent is not None and local in REPEATED:
            parent.counts[local] = parent.counts.get(local, 0) + 1
            step += f"[{parent.counts[local]}]"
        path = step if parent is None or len(stack) == 1 else f"{parent.path}/{step}"
        node = _Node(local, namespace, parser.CurrentLineNumber, path.removeprefix("Student/"))
        (parent.children if parent is not None else roots).append(node)
        stack.append(node)

    def text(data: str) -> None:
        if stack:
            stack[-1].parts.append(data)

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.StartElementHandler = start
    parser.EndElementHandler = lambda _name: stack.pop()
    parser.CharacterDataHandler = text
    try:
        parser.Parse(data, True)
    except _DoctypeRefused as exc:
        raise StudentRecordError(
            source,
            [f"line {exc.line}: the file has a DOCTYPE; transcripts with a DTD or entity "
             "declarations are refused (they can read local files or expand without "
             "bound) - export the transcript without a DOCTYPE"],
        ) from None  # fmt: skip
    except _OverLimit as exc:
        raise StudentRecordError(source, [f"line {exc.line}: {exc.problem}"]) from None
    except expat.ExpatError as exc:
        reason = expat.ErrorString(exc.code)
        raise StudentRecordError(
            source,
            [f"line {exc.lineno}, column {exc.offset + 1}: not well-formed XML ({reason}); "
             f"{FIX}"],
        ) from None  # fmt: skip
    return roots[0]


def _add_course(
    node: _Node,
    terms: tuple[Cell, ...],
    courses: list[TranscriptCourse],
    problems: list[Problem],
) -> None:
    number = node.cell("CourseNumber")
    if number is None:
        problems.append(Problem(node.line, node.path, "no CourseNumber; the course is left out"))
        return
    subject = node.cell("CourseSubjectAbbreviation")
    text = f"{subject.value} {number.value}" if subject else number.value
    code = Cell(text, number.line, number.where)
    grade = node.cell("CourseAcademicGrade")
    flag = node.cell("CourseInProgressIndicator")
    if flag is not None and flag.value.casefold() not in _TRUE | _FALSE:
        problems.append(
            Problem.at(flag, f"{flag.value!r} is not true or false; {code.value} is left out")
        )
        return
    courses.append(
        TranscriptCourse(
            code=code,
            terms=terms,
            grade=grade,
            credits=node.cell("CourseCreditValue") or node.cell("CourseCreditEarned"),
            source=node.cell("CourseCreditBasis"),
            in_progress=(flag is not None and flag.value.casefold() in _TRUE)
            or (grade is not None and grade.value.upper() == "IP"),
            at=Cell(code.value, node.line, node.path),
        )
    )


def _program(node: _Node) -> TranscriptProgram | None:
    text = node.cell("AcademicProgramName") or node.cell("AcademicProgramCode")
    if text is None:
        return None
    kind = node.cell("AcademicProgramType")
    return TranscriptProgram(text, kind.value if kind else None)


def _gpa(record: _Node) -> Cell | None:
    for summary in record.all("AcademicSummary"):
        kind = summary.cell("AcademicSummaryType")
        if kind is not None and "transfer" in kind.value.casefold():
            continue
        gpa = summary.first("GPA")
        value = gpa.cell("GradePointAverage") if gpa else None
        if value is not None:
            return value
    return None


def _name(node: _Node | None) -> Cell | None:
    if node is None:
        return None
    composite = node.cell("CompositeName")
    if composite is not None:
        return composite
    parts = [c.value for c in (node.cell("FirstName"), node.cell("LastName")) if c]
    return Cell(" ".join(parts), node.line, node.path) if parts else None

"""Reading a PESC College Transcript (XML) - the PESC/AACRAO standard registrars exchange.

What is read, by element local name (real files put the root in the
``urn:org:pesc:message:CollegeTranscript:v1.x`` namespace and the rest unqualified or in
the AcademicRecord and CoreMain namespaces; any prefixes are fine)::

    CollegeTranscript/Student
      Person/SchoolAssignedPersonID            the student id
      Person/Name/CompositeName, or FirstName + LastName   the name
      AcademicRecord[r]                        one per school record
        School/OrganizationName                the school (transfer equivalencies)
        AcademicProgram/AcademicProgramName and AcademicProgramCode, AcademicProgramType
        AcademicSummary/GPA/GradePointAverage  cumulative GPA (a summary typed Transfer
                                               is skipped)
        Course[c]                              credit outside any session (AP, transfer)
        AcademicSession[s]
          AcademicSessionDetail/SessionBeginDate + SessionEndDate   the session's dates,
                                               placed in the catalog calendar's terms
          AcademicSessionDetail/SessionName     'Fall 2023', read with the catalog calendar
          AcademicSessionDetail/SessionDesignator  '2023-09', read with its months
          AcademicProgram ...                   when the record lists none itself
          Course[c]
            CourseSubjectAbbreviation + CourseNumber   the course code
            CourseAcademicGrade, CourseCreditValue (else CourseCreditEarned),
            CourseCreditUnits (converted with the catalog's credit_conversion),
            CourseCreditBasis, CourseInProgressIndicator (true, or the grade 'IP':
            in progress)

Programs come from the first AcademicRecord that lists any (a transfer school's record
comes after the sender's): its own AcademicProgram elements, else those of its last session
that lists any. Courses of a later AcademicRecord are another school's: their school name
is kept for the transfer equivalency table. Every other element is reported as not used
(``Transcript.ignored``), grouped by element, with the reason where one is known.
Problems name the element's path below Student and its line. The XML is read by
``agents.catalog.transcript_xml`` (defusedxml; a DOCTYPE is refused).
"""

from __future__ import annotations

from agents.catalog.transcript import (
    Cell,
    Problem,
    SessionDates,
    Transcript,
    TranscriptCourse,
    TranscriptProgram,
)
from agents.catalog.transcript_xml import Node, parse_xml
from agents.errors import StudentRecordError

PESC_NAMESPACE = "urn:org:pesc:message:CollegeTranscript"
"""The namespace of the root element, before its version (':v1.6.0')."""

REPEATED = frozenset(
    {"AcademicRecord", "AcademicSession", "Course", "AcademicProgram", "AcademicSummary"}
)
"""Elements that repeat: their paths carry a 1-based index, 'Course[3]'."""

WHY_NOT_USED: dict[str, str] = {
    "CourseTitle": "titles are the catalog's",
    "CourseRepeatCode": "the record itself counts a repeated course once (its best attempt) "
    "under the catalog's repeat rules",
    "CourseGPAApplicabilityCode": "what counts in the GPA follows the catalog's grade scale",
    "CourseAcademicGradeStatusCode": "only the grade itself is read",
    "AcademicAward": "degrees and honors awarded are not part of a student record",
    "AcademicHonors": "honors are not part of a student record",
    "NoteMessage": "notes are not imported; copy what matters into the record's notes",
    "SessionType": "the catalog's calendar says which term a session is",
    "SessionSchoolYear": "the catalog's calendar says which academic year a term is in",
    "TransmissionData": "the document's transmission header, not about the student",
    "AcademicSummaryType": "only the cumulative GPA of the sender's summary is read",
    "GPA": "only the cumulative GPA of the sender's record is read",
    "AcademicProgram": "programs are read from the first record that lists any (the sender's)",
}
"""Why an element the importer does not read is left alone, by local name."""

_TRUE = frozenset({"true", "1", "yes", "y"})
_FALSE = frozenset({"false", "0", "no", "n"})
FIX = "pass a PESC College Transcript XML file, or --format csv for a CSV transcript"


def read_pesc(data: bytes, source: str) -> Transcript:
    """The transcript in PESC College Transcript XML ``data`` (the bytes of ``source``)."""
    root = parse_xml(data, source, FIX, REPEATED, strip="Student/")
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
    for number, record in enumerate(student.all("AcademicRecord")):
        school_node = record.first("School")
        school = school_node.cell("OrganizationName") if school_node else None
        other = school if number > 0 else None  # the sender's own record comes first
        for node in record.all("Course"):
            _add_course(node, (), None, other, courses, problems)
        sessions = record.all("AcademicSession")
        for session in sessions:
            detail = session.first("AcademicSessionDetail") or session
            terms = tuple(
                c for c in (detail.cell("SessionName"), detail.cell("SessionDesignator")) if c
            )
            dates = _dates(detail)
            for node in session.all("Course"):
                _add_course(node, terms, dates, other, courses, problems)
        listing = [record, *reversed(sessions)]
        declared = next((n.all("AcademicProgram") for n in listing if n.all("AcademicProgram")), [])
        if not programs:
            programs = [p for p in map(_program, declared) if p is not None]
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
        ignored=tuple(not_used(root)),
    )


def not_used(root: Node) -> list[str]:
    """One line per kind of element nothing was read from: how many, where the first is,
    and why it is not used (``WHY_NOT_USED``) - grouped by element name."""
    groups: dict[str, list[Node]] = {}

    def visit(node: Node) -> bool:  # whether anything in it was read
        read = [visit(child) for child in node.children]
        return node.used or any(read)

    def collect(node: Node) -> None:
        for child in node.children:
            if visit(child):
                collect(child)
            else:
                groups.setdefault(child.name, []).append(child)

    collect(root)
    lines = []
    for name, nodes in groups.items():
        first = nodes[0]
        many = f"{len(nodes)} elements, first" if len(nodes) > 1 else "1 element"
        why = WHY_NOT_USED.get(first.name, "the importer does not read it")
        lines.append(f"{name} ({many} at line {first.line}, {first.path}): {why}")
    return lines


def _dates(detail: Node) -> SessionDates | None:
    begin, end = detail.cell("SessionBeginDate"), detail.cell("SessionEndDate")
    if begin is None and end is None:
        return None
    return SessionDates(begin, end)


def _add_course(
    node: Node,
    terms: tuple[Cell, ...],
    dates: SessionDates | None,
    school: Cell | None,
    courses: list[TranscriptCourse],
    problems: list[Problem],
) -> None:
    node.used = True
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
    value, earned = node.cell("CourseCreditValue"), node.cell("CourseCreditEarned")
    courses.append(
        TranscriptCourse(
            code=code,
            terms=terms,
            grade=grade,
            credits=value or earned,
            source=node.cell("CourseCreditBasis"),
            in_progress=(flag is not None and flag.value.casefold() in _TRUE)
            or (grade is not None and grade.value.upper() == "IP"),
            at=Cell(code.value, node.line, node.path),
            credit_unit=node.cell("CourseCreditUnits"),
            dates=dates,
            institution=school,
        )
    )


def _program(node: Node) -> TranscriptProgram | None:
    name, code = node.cell("AcademicProgramName"), node.cell("AcademicProgramCode")
    text = name or code
    if text is None:
        return None
    kind = node.cell("AcademicProgramType")
    return TranscriptProgram(text, kind.value if kind else None, code if name else None)


def _gpa(record: Node) -> Cell | None:
    for summary in record.all("AcademicSummary"):
        kind = summary.cell("AcademicSummaryType")
        if kind is not None and "transfer" in kind.value.casefold():
            continue
        gpa = summary.first("GPA")
        value = gpa.cell("GradePointAverage") if gpa else None
        if value is not None:
            return value
    return None


def _name(node: Node | None) -> Cell | None:
    if node is None:
        return None
    composite = node.cell("CompositeName")
    if composite is not None:
        return composite
    parts = [c.value for c in (node.cell("FirstName"), node.cell("LastName")) if c]
    return Cell(" ".join(parts), node.line, node.path) if parts else None

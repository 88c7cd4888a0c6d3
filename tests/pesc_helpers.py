"""PESC College Transcript documents for the transcript tests, in the structure of the
published CollegeTranscript v1.6.0 (see tests/test_transcript_registrars.py for the elements
followed), each validated against tests/data/pesc/college-transcript-subset.xsd - the
project's own subset of that structure, not the official schema - before it is imported."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import xmlschema

from agents.catalog import Catalog
from agents.catalog.parse import parse_catalog
from agents.catalog.transcript_import import ImportResult, StudentFacts, import_transcript
from agents.catalog.transcript_transfer import TransferTable
from tests.catalog_base import base_catalog

XSD = Path(__file__).parent / "data" / "pesc" / "college-transcript-subset.xsd"
PESC_NS = "urn:org:pesc:message:CollegeTranscript:v1.6.0"
SENDER = "Test College"


def quarter_catalog(**institution: Any) -> Catalog:
    """The base catalog on a quarter calendar whose spring quarter starts in late March."""
    raw = base_catalog()
    raw["schema_version"] = 3
    raw["institution"].update(institution)
    raw["calendar"] = {
        "system": "quarter",
        "academic_year_starts": "F",
        "terms": [
            {"code": "W", "name": "Winter", "months": [1, 2, 3],
             "typical_dates": {"start": "01-04", "weekday": "M", "weeks": 11}},
            {"code": "S", "name": "Spring", "months": [4, 5, 6],
             "typical_dates": {"start": "03-25", "weekday": "M", "weeks": 11}},
            {"code": "U", "name": "Summer", "regular": False, "months": [7, 8]},
            {"code": "F", "name": "Fall", "months": [9, 10, 11, 12],
             "typical_dates": {"start": "09-20", "weekday": "M", "weeks": 11}},
        ],
    }  # fmt: skip
    return parse_catalog(raw, source="quarter.json")


def course(code: str, grade: str = "A", credits: str = "", **extra: str) -> str:
    """A Course element; without credits the catalog's units stand."""
    subject, _, number = code.partition("-")
    fields = {"CourseCreditValue": credits} if credits else {}
    fields |= {"CourseAcademicGrade": grade, **extra}
    body = "".join(f"<{k}>{v}</{k}>" for k, v in fields.items())
    return (
        f"<Course>{body}<CourseSubjectAbbreviation>{subject}</CourseSubjectAbbreviation>"
        f"<CourseNumber>{number}</CourseNumber></Course>"
    )


def session(name: str, begin: str, end: str, *courses: str) -> str:
    detail = f"<SessionName>{name}</SessionName>" if name else ""
    if begin:
        detail += (
            f"<SessionBeginDate>{begin}</SessionBeginDate><SessionEndDate>{end}</SessionEndDate>"
        )
    return (
        f"<AcademicSession><AcademicSessionDetail>{detail}</AcademicSessionDetail>\n"
        + "\n".join(courses)
        + "\n</AcademicSession>"
    )


def record(*parts: str, school: str = SENDER, program: str = "") -> str:
    program = program or (
        "<AcademicProgram><AcademicProgramType>Minor</AcademicProgramType>"
        "<AcademicProgramCode>CS-MIN</AcademicProgramCode></AcademicProgram>"
    )
    return (
        f"<AcademicRecord><School><OrganizationName>{school}</OrganizationName></School>"
        f"{program}\n" + "\n".join(parts) + "\n</AcademicRecord>"
    )


def document(*records: str) -> str:
    person = (
        "<Person><SchoolAssignedPersonID>S-7</SchoolAssignedPersonID>"
        "<Name><CompositeName>Ada Byron</CompositeName></Name></Person>"
    )
    return (
        f'<ColTrn:CollegeTranscript xmlns:ColTrn="{PESC_NS}">\n'
        "<TransmissionData><DocumentID>D-1</DocumentID></TransmissionData>\n"
        f"<Student>{person}\n" + "\n".join(records) + "\n</Student>\n</ColTrn:CollegeTranscript>\n"
    )


@lru_cache(maxsize=1)
def pesc_schema() -> xmlschema.XMLSchema:
    """The subset XSD, read once."""
    return xmlschema.XMLSchema(str(XSD))


def run(
    tmp_path: Path,
    catalog: Catalog,
    text: str,
    transfer: TransferTable | None = None,
) -> ImportResult:
    pesc_schema().validate(text)  # the document has the published structure
    path = tmp_path / "t.xml"
    path.write_text(text, encoding="utf-8")
    return import_transcript(path, catalog, StudentFacts(), transfer=transfer)

"""The course catalog: typed models, loading with readable problems, prerequisite trees,
terms and student records. Code outside the package imports these names from here."""

from __future__ import annotations

from agents.catalog.courses import Course, Meeting, Section
from agents.catalog.crossref import reference_problems
from agents.catalog.loader import (
    catalog_fingerprint,
    catalog_schema,
    default_catalog_path,
    load_catalog,
    parse_catalog,
)
from agents.catalog.model import Catalog
from agents.catalog.policies import AcademicStatus, PolicyRule, RuleCondition, Severity
from agents.catalog.prereq import (
    COURSE_CODE_PATTERN,
    AllOf,
    AnyOf,
    ClassStanding,
    ConsentCond,
    CourseCond,
    PrereqNode,
    ProgramCond,
    StandingCond,
    UnitsCond,
    courses_in,
    format_prereq,
    iter_prereq,
    parse_prereq,
    programs_in,
)
from agents.catalog.programs import Program, SharingLimit
from agents.catalog.requirements import (
    AllOfRequirement,
    CourseRequirement,
    CourseSetRequirement,
    NOfRequirement,
    RequirementNode,
)
from agents.catalog.schemas import model_schema, published_schema, write_schema_file
from agents.catalog.student import (
    AttemptSource,
    CourseAttempt,
    StudentRecord,
    check_student_against_catalog,
    load_student,
)
from agents.catalog.terms import TERM_CODE_PATTERN, Term, term_label
from agents.catalog.validation import json_path, schema_problems

__all__ = [
    "COURSE_CODE_PATTERN",
    "TERM_CODE_PATTERN",
    "AcademicStatus",
    "AllOf",
    "AllOfRequirement",
    "AnyOf",
    "AttemptSource",
    "Catalog",
    "ClassStanding",
    "ConsentCond",
    "Course",
    "CourseAttempt",
    "CourseCond",
    "CourseRequirement",
    "CourseSetRequirement",
    "Meeting",
    "NOfRequirement",
    "PolicyRule",
    "PrereqNode",
    "Program",
    "ProgramCond",
    "RequirementNode",
    "RuleCondition",
    "Section",
    "Severity",
    "SharingLimit",
    "StandingCond",
    "StudentRecord",
    "Term",
    "UnitsCond",
    "catalog_fingerprint",
    "catalog_schema",
    "check_student_against_catalog",
    "courses_in",
    "default_catalog_path",
    "format_prereq",
    "iter_prereq",
    "json_path",
    "load_catalog",
    "load_student",
    "model_schema",
    "parse_catalog",
    "parse_prereq",
    "programs_in",
    "published_schema",
    "reference_problems",
    "schema_problems",
    "term_label",
    "write_schema_file",
]

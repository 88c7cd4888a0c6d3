"""A small valid catalog as a dict, for tests that break it one field at a time."""

from __future__ import annotations

import copy
from typing import Any

_BASE: dict[str, Any] = {
    "schema_version": 2,
    "institution": {"name": "Test College"},
    "catalog_year": "2026-2027",
    "courses": [
        {
            "code": "15-110",
            "title": "Principles of Computing",
            "units": 10,
            "department": "CS",
            "level": 100,
            "offered": {"terms": ["fall", "spring"]},
            "sections": [
                {
                    "term": "S2027",
                    "id": "A",
                    "meetings": [{"days": "MWF", "start": "09:00", "end": "09:50"}],
                }
            ],
        },
        {
            "code": "15-112",
            "title": "Fundamentals of Programming",
            "units": 12,
            "department": "CS",
            "level": 100,
            "offered": {"terms": ["fall", "spring"]},
            "prerequisites": "15-110",
        },
        {
            "code": "15-122",
            "title": "Imperative Computation",
            "units": 12,
            "department": "CS",
            "level": 100,
            "offered": {"terms": ["spring"]},
            "prerequisites": {"all": [{"course": "15-112", "min_grade": "C"}]},
        },
    ],
    "programs": [
        {
            "code": "CS-MIN",
            "name": "Computer Science minor",
            "kind": "minor",
            "catalog_year": "2026-2027",
            "department": "CS",
            "requirement": {
                "kind": "all_of",
                "id": "core",
                "children": [
                    {"kind": "course", "id": "intro", "course": "15-112"},
                    {
                        "kind": "course_set",
                        "id": "elective",
                        "patterns": ["15-1xx"],
                        "min_courses": 1,
                    },
                ],
            },
            "sharing": [{"with_kind": "major", "max_courses": 2, "rule": "MINOR-SHARE"}],
            "document": "program-cs-min",
        }
    ],
    "policies": [
        {
            "id": "MINOR-SHARE",
            "title": "Sharing courses between a major and a minor",
            "kind": "program_sharing",
            "limit": 2,
            "citation": {"document": "academic-policies", "section": "minors"},
        }
    ],
    "documents": [
        {
            "id": "academic-policies",
            "title": "Academic Policies",
            "kind": "policy",
            "sections": [
                {
                    "id": "minors",
                    "heading": "Minors",
                    "text": "At most two courses may count toward both.",
                }
            ],
        },
        {
            "id": "program-cs-min",
            "title": "CS minor",
            "kind": "program",
            "sections": [{"id": "overview", "heading": "Overview", "text": "Five courses."}],
        },
    ],
}


def base_catalog() -> dict[str, Any]:
    return copy.deepcopy(_BASE)

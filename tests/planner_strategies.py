"""Catalogs and students for planner tests: hypothesis strategies for small instances, and a
deterministic full-size generator (``realistic_catalog``) for performance checks.

Small instances are built as plain dicts and validated through the real models, so every
generated catalog is one the loader would accept (acyclic prerequisites, known references).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from agents.catalog import Catalog, StudentRecord
from agents.planner import PlanConstraints

SEASONS = (["fall"], ["spring"], ["fall", "spring"], ["fall", "spring"])
GRADES = ("A", "B", "C", "D", "F")
POLICY = {
    "id": "SHARE",
    "title": "Sharing",
    "kind": "program_sharing",
    "limit": 1,
    "citation": {"document": "pol", "section": "s"},
}
DOCS = [
    {
        "id": "pol",
        "title": "Policies",
        "kind": "policy",
        "sections": [{"id": "s", "heading": "Sharing", "text": "Sharing is limited."}],
    }
]


def course(
    code: str,
    units: float,
    terms: list[str],
    prereq: Any = None,
    *,
    years: str = "every",
    coreq: Any = None,
    anti: list[str] | None = None,
    attributes: list[str] | None = None,
    level: int = 100,
    sections: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "code": code,
        "title": f"Course {code}",
        "units": units,
        "department": code[:2],
        "level": level,
        "offered": {"terms": terms, "years": years},
    }
    if prereq is not None:
        out["prerequisites"] = prereq
    if coreq is not None:
        out["corequisites"] = coreq
    if anti:
        out["antirequisites"] = anti
    if attributes:
        out["attributes"] = attributes
    if sections:
        out["sections"] = sections
    return out


def program(
    code: str,
    requirement: dict[str, Any],
    *,
    kind: str = "major",
    total: float | None = None,
    sharing: int | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "code": code,
        "name": f"Program {code}",
        "kind": kind,
        "catalog_year": "2026-2027",
        "department": "XX",
        "requirement": requirement,
    }
    if total is not None:
        out["total_units"] = total
    if sharing is not None:
        out["sharing"] = [{"with_kind": "major", "max_courses": sharing, "rule": "SHARE"}]
    return out


def catalog(courses: list[dict[str, Any]], programs: list[dict[str, Any]]) -> Catalog:
    return Catalog.model_validate(
        {
            "schema_version": 2,
            "institution": {"name": "Test Institute"},
            "catalog_year": "2026-2027",
            "courses": courses,
            "programs": programs,
            "policies": [POLICY],
            "documents": DOCS,
        }
    )


def student(
    programs: list[str],
    courses: list[dict[str, Any]] | None = None,
    *,
    away: list[str] | None = None,
    current: str = "F2026",
) -> StudentRecord:
    return StudentRecord.model_validate(
        {
            "id": "t-student",
            "name": "Test Student",
            "programs": programs,
            "catalog_year": "2026-2027",
            "start_term": "F2025",
            "current_term": current,
            "courses": courses or [],
            "terms_away": away or [],
        }
    )


@dataclass
class Instance:
    """A generated planning problem."""

    catalog: Catalog
    student: StudentRecord
    programs: list[str]
    constraints: PlanConstraints


# --------------------------------------------------------------------------- strategies


@st.composite
def prereq_expr(draw: st.DrawFn, earlier: list[str]) -> Any:
    if not earlier:
        return None
    kind = draw(st.sampled_from(["none", "none", "one", "and", "or", "units"]))
    if kind == "none":
        return None
    if kind == "units":
        return f"units({draw(st.sampled_from([9, 20, 30]))})"
    if kind == "one" or len(earlier) < 2:
        code = draw(st.sampled_from(earlier))
        grade = draw(st.sampled_from(["", "", "[C]"]))
        return code + grade
    a, b = draw(st.lists(st.sampled_from(earlier), min_size=2, max_size=2, unique=True))
    return f"{a} {kind} {b}"


@st.composite
def instances(draw: st.DrawFn, max_courses: int = 6, max_terms: int = 4) -> Instance:
    """Small problems: a few courses, one major (maybe a minor), at most ``max_terms``."""
    n = draw(st.integers(min_value=2, max_value=max_courses))
    codes = [f"10-{100 + 10 * i}" for i in range(n)]
    courses = []
    for i, code in enumerate(codes):
        terms = draw(st.sampled_from(SEASONS))
        years = draw(st.sampled_from(["every", "every", "every", "odd", "even"]))
        units = draw(st.sampled_from([3, 6, 9, 12]))
        courses.append(
            course(
                code,
                units,
                terms,
                draw(prereq_expr(codes[:i])),
                years=years,
                attributes=["hum"] if i % 2 else [],
            )
        )
    if n >= 3 and draw(st.booleans()):
        courses[-1]["antirequisites"] = [codes[-2]]
    if n >= 2 and draw(st.integers(0, 4)) == 0:
        courses[1]["corequisites"] = codes[0]
    leaves: list[dict[str, Any]] = []
    required = draw(st.lists(st.sampled_from(codes), max_size=2, unique=True))
    for j, code in enumerate(required):
        leaf: dict[str, Any] = {"kind": "course", "id": f"req{j}", "course": code}
        if draw(st.booleans()):
            leaf["min_grade"] = "C"
        leaves.append(leaf)
    choice = draw(st.lists(st.sampled_from(codes), min_size=2, max_size=3, unique=True))
    leaves.append(
        {
            "kind": "n_of",
            "id": "pick",
            "n": 1,
            "children": [
                {"kind": "course", "id": f"opt{k}", "course": c} for k, c in enumerate(choice)
            ],
        }
    )
    if draw(st.booleans()):
        leaves.append(
            {
                "kind": "course_set",
                "id": "hum",
                "attributes": ["hum"],
                "min_units": draw(st.sampled_from([6, 9, 12])),
            }
        )
    total = draw(st.sampled_from([None, 24, 36]))
    programs = [program("MAJ", {"kind": "all_of", "id": "root", "children": leaves}, total=total)]
    names = ["MAJ"]
    if draw(st.booleans()):
        minor = draw(st.lists(st.sampled_from(codes), min_size=1, max_size=2, unique=True))
        programs.append(
            program(
                "MIN",
                {
                    "kind": "course_set",
                    "id": "minor-set",
                    "courses": minor,
                    "min_courses": len(minor),
                },
                kind="minor",
                sharing=draw(st.sampled_from([0, 1])),
            )
        )
        names.append("MIN")
    cat = catalog(courses, programs)
    history = []
    for code in draw(st.lists(st.sampled_from(codes), max_size=2, unique=True)):
        status = draw(st.sampled_from(["completed", "completed", "in_progress"]))
        if status == "completed":
            history.append(
                {"course": code, "term": "S2026", "grade": draw(st.sampled_from(GRADES))}
            )
        else:
            history.append({"course": code, "term": "F2026", "status": "in_progress"})
    terms = ["S2027", "F2027", "S2028", "F2028"][:max_terms]
    away = draw(st.lists(st.sampled_from(terms[1:]), max_size=1))
    stud = student(["MAJ"], history, away=away)
    cons = PlanConstraints(
        max_units_per_term=draw(st.sampled_from([12, 18, 24, 36])),
        min_units_per_term=draw(st.sampled_from([0, 0, 6])),
        max_courses_per_term=draw(st.sampled_from([None, None, 2])),
        latest_term=terms[-1],
        time_limit_s=10,
    )
    return Instance(cat, stud, names, cons)


# --------------------------------------------------------------------------- full size


def realistic_catalog(seed: int = 0) -> Catalog:
    """~160 courses in 8 departments with prerequisite chains, 2 majors and 2 minors."""
    rnd = random.Random(seed)
    courses: list[dict[str, Any]] = []
    depts = {"15": 12, "21": 10, "36": 9, "73": 9, "80": 9, "76": 9, "79": 9, "85": 9}
    by_level: dict[tuple[str, int], list[str]] = {}
    for dept, units in depts.items():
        for level, count in ((100, 5), (200, 6), (300, 6), (400, 3)):
            for k in range(count):
                code = f"{dept}-{level + 10 * k + rnd.randint(0, 9):03d}"
                below = by_level.get((dept, level - 100), [])
                prereq = None
                if below:
                    picks = rnd.sample(below, min(len(below), rnd.choice([1, 1, 2])))
                    prereq = " and ".join(picks)
                    if rnd.random() < 0.2 and len(below) > 2:
                        other = rnd.choice([c for c in below if c not in picks])
                        prereq = f"({prereq}) or {other}"
                if level == 400 and rnd.random() < 0.3:
                    prereq = f"{prereq} and standing(junior)" if prereq else "standing(junior)"
                terms = (
                    ["fall", "spring"]
                    if level <= 200 or rnd.random() < 0.7
                    else [rnd.choice(["fall", "spring"])]
                )
                years = (
                    "every" if level < 400 or rnd.random() < 0.7 else rnd.choice(["odd", "even"])
                )
                attrs = ["gen-ed"] if dept in ("76", "79", "80", "85") and level <= 200 else []
                courses.append(
                    course(code, units, terms, prereq, years=years, level=level, attributes=attrs)
                )
                by_level.setdefault((dept, level), []).append(code)
    cs = by_level[("15", 100)] + by_level[("15", 200)]
    math = by_level[("21", 100)] + by_level[("21", 200)]
    major = {
        "kind": "all_of",
        "id": "cs-bs",
        "children": [
            *({"kind": "course", "id": f"core-{c}", "course": c} for c in cs[:8]),
            *({"kind": "course", "id": f"math-{c}", "course": c} for c in math[:4]),
            {
                "kind": "n_of",
                "id": "sys-or-theory",
                "n": 1,
                "children": [
                    {"kind": "course", "id": "sys", "course": by_level[("15", 300)][0]},
                    {"kind": "course", "id": "theory", "course": by_level[("15", 300)][1]},
                ],
            },
            {
                "kind": "course_set",
                "id": "cs-electives",
                "patterns": ["15-3xx", "15-4xx"],
                "min_courses": 4,
            },
            {"kind": "course_set", "id": "stats", "patterns": ["36-xxx"], "min_courses": 2},
            {"kind": "course_set", "id": "gen-ed", "attributes": ["gen-ed"], "min_units": 54},
        ],
    }
    econ = {
        "kind": "all_of",
        "id": "econ-ba",
        "children": [
            *(
                {"kind": "course", "id": f"core-{c}", "course": c}
                for c in by_level[("73", 100)][:4] + by_level[("73", 200)][:4]
            ),
            {
                "kind": "course_set",
                "id": "econ-upper",
                "patterns": ["73-3xx", "73-4xx"],
                "min_courses": 5,
            },
            {
                "kind": "course_set",
                "id": "quant",
                "patterns": ["21-1xx", "36-2xx"],
                "min_courses": 3,
            },
            {"kind": "course_set", "id": "gen-ed", "attributes": ["gen-ed"], "min_units": 72},
        ],
    }
    math_min = {"kind": "course_set", "id": "math-min", "patterns": ["21-xxx"], "min_courses": 6}
    phil_min = {
        "kind": "all_of",
        "id": "phil-min",
        "children": [
            {"kind": "course", "id": "intro", "course": by_level[("80", 100)][0]},
            {
                "kind": "course_set",
                "id": "upper",
                "patterns": ["80-2xx", "80-3xx"],
                "min_courses": 4,
            },
        ],
    }
    programs = [
        program("CS-BS", major, total=360),
        program("ECON-BA", econ, total=360),
        program("MATH-MIN", math_min, kind="minor", sharing=2),
        program("PHIL-MIN", phil_min, kind="minor", sharing=2),
    ]
    return catalog(courses, programs)


def realistic_student(cat: Catalog, major: str, done_terms: int, seed: int = 0) -> StudentRecord:
    """A student who took the first courses of the major's core over ``done_terms`` terms."""
    rnd = random.Random(seed)
    prog = cat.program(major)
    wanted = [leaf.course for leaf in prog.requirement.children if hasattr(leaf, "course")]
    taken: list[dict[str, Any]] = []
    done: set[str] = set()
    terms = ["F2024", "S2025", "F2025", "S2026", "F2026"][-(done_terms + 1) :]
    for i, term in enumerate(terms):
        units = 0.0
        for code in wanted + [c.code for c in cat.courses if c.level == 100]:
            c = cat.course(code)
            ready = all(p in done for p in _courses(c.prerequisites))
            if code in done or not ready or units + c.units > 45:
                continue
            if any(t["course"] == code for t in taken):
                continue
            last = i == len(terms) - 1
            grade = rnd.choice(["A", "B", "B", "C"])
            taken.append(
                {
                    "course": code,
                    "term": term,
                    "grade": None if last else grade,
                    "status": "in_progress" if last else "completed",
                }
            )
            units += c.units
        done |= {t["course"] for t in taken}
    return student([major], taken)


def _courses(node: Any) -> list[str]:
    from agents.catalog import courses_in

    return courses_in(node)

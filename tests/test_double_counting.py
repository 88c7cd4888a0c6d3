"""A course counting in two categories of one program where the catalog allows it (issue #28
item 2): a program's ``overlaps`` ("a writing-intensive course may also count as a major
elective", at most ``max_courses`` of them) in the authoring layout and its checks, the
degree audit (a course counted under both, once in the GPA; exact against brute force), the
planner (the double count saves units where allowed, never elsewhere), the verifier, and
sharing limits between programs (a course counted twice in one program uses one slot).
Without overlaps a course counts toward one leaf of a program, as before.

The catalogs are small directories in the authoring layout, written here."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.audit import audit, iter_nodes
from agents.catalog import Catalog, StudentRecord
from agents.catalog.authoring import build_catalog, catalog_json, export_catalog
from agents.errors import LayoutError
from agents.planner import PlanConstraints, PlannedTerm, PlanResult, plan
from agents.verifier import verify_plan

INSTITUTION = "schema_version: 2\ninstitution:\n  name: Test College\ncatalog_year: 2026-2027\n"
HEADER = "code,title,units,department,level,attributes,offered_terms\n"
LOAD = PlanConstraints(max_units_per_term=4, min_units_per_term=0)
WI = "writing-intensive"
COURSES = [
    "ENGL 101,Reading,1,English,100,,fall;spring",
    *(f"ENGL {n},Seminar {n},1,English,300,,fall;spring" for n in (301, 302, 303, 304)),
    *(f"ENGL {n},Writing {n},1,English,300,{WI},fall;spring" for n in (310, 311)),
    f"HIST 210,Historical writing,1,History,200,{WI},fall;spring",
]


def _program(overlaps: str = "", code: str = "ENGL-BA", extra: str = "") -> str:
    return f"""\
code: {code}
name: English
kind: major
catalog_year: 2026-2027
department: English
min_gpa: 2.0
requirement:
  id: engl-ba
  kind: all_of
  children:
  - {{id: intro, kind: course, course: ENGL 101}}
  - {{id: writing, kind: course_set, attributes: [{WI}], min_courses: 2}}
  - id: major
    kind: all_of
    children:
    - {{id: major-electives, kind: course_set, subjects: [ENGL], min_level: 300, min_courses: 3}}
{overlaps}{extra}"""


BOTH = "overlaps:\n- {nodes: [writing, major]}\n"
ONE = "overlaps:\n- {nodes: [writing, major], max_courses: 1}\n"


def _layout(tmp_path: Path, programs: dict[str, str]) -> Path:
    directory = tmp_path / "catalog"
    (directory / "programs").mkdir(parents=True)
    (directory / "institution.yaml").write_text(INSTITUTION, "utf-8")
    (directory / "courses.csv").write_text(HEADER + "".join(f"{r}\n" for r in COURSES), "utf-8")
    for code, text in programs.items():
        (directory / "programs" / f"{code}.yaml").write_text(text, "utf-8")
    return directory


def _catalog(tmp_path: Path, overlaps: str = "", **more: str) -> Catalog:
    built, _ = build_catalog(_layout(tmp_path, {"ENGL-BA": _program(overlaps), **more}))
    return built


def _student(done: list[str], programs: tuple[str, ...] = ("ENGL-BA",), grade: str = "A") -> Any:
    rows = [{"course": c, "term": "F2025", "grade": grade} for c in done]
    return StudentRecord.model_validate(
        {
            "id": "s-2",
            "name": "Student",
            "programs": list(programs),
            "catalog_year": "2026-2027",
            "start_term": "F2025",
            "current_term": "F2026",
            "courses": rows,
        }
    )


def _counted(report: Any) -> dict[str, list[str]]:
    return {
        f"{p}/{n.id}": [c.course for c in n.counted] for p, n in iter_nodes(report) if n.counted
    }


# --------------------------------------------------------------------------- the form


AT = "programs/ENGL-BA.yaml:17 field 'overlaps': "


@pytest.mark.parametrize(
    ("overlaps", "problem"),
    [
        (
            "overlaps:\n- {nodes: [writing, majr]}\n",
            f"{AT}overlaps[0]: no requirement 'majr' in ENGL-BA; the ids are engl-ba, intro, "
            "major, major-electives, writing",
        ),
        (
            "overlaps:\n- {nodes: [major, major-electives]}\n",
            f"{AT}overlaps[0]: 'major' and 'major-electives' are the same node or one contains "
            "the other; name two separate parts of the program",
        ),
        (
            "overlaps:\n- {nodes: [writing, major]}\n- {nodes: [major-electives, writing]}\n",
            f"{AT}overlaps[1]: leaves 'major-electives' and 'writing' are already covered by "
            "overlaps[0]; keep one overlap per pair of requirements",
        ),
        (
            "overlaps:\n- {nodes: [writing]}\n",
            "programs/ENGL-BA.yaml:18 field 'nodes': expected at least 2 item(s), got 1",
        ),
        (
            "overlaps:\n- {nodes: [writing, major], rule: WI-DOUBLE}\n",
            "programs/ENGL-BA.yaml:18: unknown policy rule 'WI-DOUBLE' - add the rule to "
            "policies.yaml or correct the id",
        ),
    ],
)
def test_an_overlap_that_cannot_be_read_is_reported_with_its_line(
    tmp_path: Path, overlaps: str, problem: str
) -> None:
    with pytest.raises(LayoutError) as info:
        build_catalog(_layout(tmp_path, {"ENGL-BA": _program(overlaps)}))
    [found] = info.value.problems
    assert found.startswith(problem)


def test_overlaps_round_trip_and_are_written_only_when_there_is_one(tmp_path: Path) -> None:
    cat = _catalog(tmp_path, ONE)
    export_catalog(cat, tmp_path / "exported")
    again, data = build_catalog(tmp_path / "exported")
    assert data == catalog_json(cat)
    assert again.program("ENGL-BA").overlaps == cat.program("ENGL-BA").overlaps
    plain = _catalog(tmp_path / "plain")
    assert "overlaps" not in plain.program("ENGL-BA").model_dump()
    assert "overlaps" not in catalog_json(plain)["programs"][0]


# --------------------------------------------------------------------------- the audit


def test_an_overlap_lets_a_course_count_in_both_and_once_in_the_gpa(tmp_path: Path) -> None:
    # Without the overlap a course counts toward one leaf of the program, as before.
    cat = _catalog(tmp_path / "plain")
    report = audit(cat, _student(["ENGL 101", "ENGL 301", "ENGL 310", "ENGL 311"]))
    assert not report.all_met
    assert _counted(report) == {
        "ENGL-BA/intro": ["ENGL 101"],
        "ENGL-BA/writing": ["ENGL 310", "ENGL 311"],
        "ENGL-BA/major-electives": ["ENGL 301"],
    }
    electives = next(n for _, n in iter_nodes(report) if n.id == "major-electives")
    assert electives.explanation == (
        "1 of 3 courses counted; needs 2 more courses from: ENGL 302, ENGL 303, ENGL 304"
    )
    assert report.programs[0].sharing_notes == []
    cat = _catalog(tmp_path, BOTH)
    rows = [("ENGL 101", "A"), ("ENGL 301", "A"), ("ENGL 310", "C"), ("ENGL 311", "C")]
    st = StudentRecord.model_validate(
        {
            **_student([]).model_dump(),
            "courses": [{"course": c, "term": "F2025", "grade": g} for c, g in rows],
        }
    )
    report = audit(cat, st)
    assert report.all_met
    assert _counted(report) == {
        "ENGL-BA/intro": ["ENGL 101"],
        "ENGL-BA/writing": ["ENGL 310", "ENGL 311"],
        "ENGL-BA/major-electives": ["ENGL 301", "ENGL 310", "ENGL 311"],
    }
    program = report.programs[0]
    assert program.sharing_notes == [
        "Any course may count toward both writing and major; counted toward both: ENGL 310, "
        "ENGL 311."
    ]
    # (4 + 4 + 2 + 2) / 4 over the four courses, not (4 + 4 + 2 + 2 + 2 + 2) / 6.
    assert program.gpa == 3.0
    assert program.shared_courses == []  # nothing shared with another program


def test_an_overlaps_limit_keeps_the_second_course_out_and_says_why(tmp_path: Path) -> None:
    cat = _catalog(tmp_path, ONE)
    report = audit(cat, _student(["ENGL 101", "ENGL 301", "ENGL 310", "ENGL 311"]))
    assert not report.all_met
    assert _counted(report)["ENGL-BA/major-electives"] == ["ENGL 301", "ENGL 310"]
    electives = next(n for _, n in iter_nodes(report) if n.id == "major-electives")
    assert electives.explanation == (
        "2 of 3 courses counted; needs 1 more course from: ENGL 302, ENGL 303, ENGL 304; "
        "ENGL 311 already counts toward another requirement of ENGL-BA, and at most 1 course "
        "may count toward both writing and major, already used by ENGL 310"
    )
    assert report.programs[0].sharing_notes == [
        "At most 1 course may count toward both writing and major; counted toward both: ENGL 310."
    ]
    # With a third elective of its own the major needs no second shared course.
    assert audit(
        cat, _student(["ENGL 101", "ENGL 301", "ENGL 302", "ENGL 310", "ENGL 311"])
    ).all_met


def test_a_course_counted_twice_in_one_program_uses_one_sharing_slot(tmp_path: Path) -> None:
    # A second major that shares at most two courses with ENGL-BA (listed first, so the
    # audit allocates its courses first).
    second = """\
code: WRIT-BA
name: Writing
kind: major
catalog_year: 2026-2027
department: English
requirement: {id: wi-pair, kind: course_set, courses: [ENGL 310, ENGL 311], min_courses: 2}
sharing:
- {with_program: ENGL-BA, max_courses: 2}
"""
    cat = _catalog(tmp_path, BOTH, **{"WRIT-BA": second})
    both = ("WRIT-BA", "ENGL-BA")
    report = audit(cat, _student(["ENGL 101", "ENGL 301", "ENGL 310", "ENGL 311"], both))
    assert report.all_met  # ENGL 310 and 311 count three times each, in two programs
    assert _counted(report) == {
        "WRIT-BA/wi-pair": ["ENGL 310", "ENGL 311"],
        "ENGL-BA/intro": ["ENGL 101"],
        "ENGL-BA/writing": ["ENGL 310", "ENGL 311"],
        "ENGL-BA/major-electives": ["ENGL 301", "ENGL 310", "ENGL 311"],
    }
    assert report.programs[1].sharing_notes[0] == (
        "At most 2 courses may count toward both ENGL-BA and WRIT-BA; shared: ENGL 310, ENGL 311."
    )
    result = plan(cat, _student(["ENGL 101"], both), list(both), LOAD)
    assert (result.status, result.units_planned) == ("optimal", 3.0)


# --------------------------------------------------------------------------- planner, verifier


def _planned(result: PlanResult) -> dict[str, str]:
    return {c: t.term for t in result.terms for c in t.courses}


def test_a_double_count_saves_units_only_where_allowed(tmp_path: Path) -> None:
    st = _student(["ENGL 101"])
    for overlaps, units, twice in [
        ("", 5.0, 0),  # two writing-intensive courses and three electives
        (BOTH, 3.0, 2),  # ENGL 310 and ENGL 311 count for both
        (ONE, 4.0, 1),  # only one of them may
    ]:
        cat = _catalog(tmp_path / str(twice), overlaps)
        result = plan(cat, st, ["ENGL-BA"], LOAD)
        assert (result.status, result.units_planned, result.notes) == ("optimal", units, [])
        labels = [result.requirement_of[c] for c in sorted(_planned(result))]
        assert sum(len(x) == 2 for x in labels) == twice
        both = {"ENGL-BA/writing", "ENGL-BA/major-electives"}
        assert all(len(x) == 1 or set(x) == both for x in labels)
        assert audit(cat, st, planned=_planned(result)).all_met
        assert verify_plan(cat, st, ["ENGL-BA"], LOAD, result) == []


def test_the_verifier_accepts_a_double_count_only_where_allowed(tmp_path: Path) -> None:
    st = _student(["ENGL 101"])
    terms = [
        PlannedTerm(term="S2027", courses=["ENGL 301", "ENGL 310"], units=2.0),
        PlannedTerm(term="F2027", courses=["ENGL 311"], units=1.0),
    ]
    result = PlanResult(
        status="feasible",
        terms=terms,
        graduation_term="F2027",
        units_planned=3.0,
        extra_units=0.0,
        reasons=[],
        earliest_feasible_term=None,
        requirement_of={},
        solve_ms=0.0,
    )
    plain = _catalog(tmp_path / "plain")
    defects = [(d.kind, d.message) for d in verify_plan(plain, st, ["ENGL-BA"], LOAD, result)]
    assert defects == [
        (
            "requirement",
            "ENGL-BA/major-electives: 1 of 3 courses counted; needs 2 more courses from: "
            "ENGL 302, ENGL 303, ENGL 304",
        )
    ]
    assert verify_plan(_catalog(tmp_path, BOTH), st, ["ENGL-BA"], LOAD, result) == []


# --------------------------------------------------------------------------- exactness

CODES = ["XA 101", "XA 102", "XA 103", "XA 104", "XA 105"]


@st.composite
def _instances(draw: st.DrawFn) -> dict[str, Any]:
    """Three course-set leaves over five courses (one set with a minimum), some pairs of
    them overlapping (with or without a limit), and the courses the student has."""
    leaves = []
    for i in range(3):
        courses = draw(st.lists(st.sampled_from(CODES), min_size=1, max_size=4, unique=True))
        leaf: dict[str, Any] = {
            "id": f"l{i}",
            "kind": "course_set",
            "courses": sorted(courses),
            "min_courses": draw(st.integers(1, len(courses))),
        }
        if i == 2 and leaf["min_courses"] > 1 and draw(st.booleans()):
            leaf["minimums"] = [{"courses": sorted(courses)[:1], "min_courses": 1}]
        leaves.append(leaf)
    pairs = draw(st.lists(st.sampled_from([(0, 1), (0, 2), (1, 2)]), max_size=2, unique=True))
    overlaps = []
    for a, b in pairs:
        most = draw(st.sampled_from([None, 1]))
        overlaps.append({"nodes": [f"l{a}", f"l{b}"], **({"max_courses": most} if most else {})})
    done = draw(st.lists(st.sampled_from(CODES), max_size=5, unique=True))
    return {"leaves": leaves, "overlaps": overlaps, "done": sorted(done)}


def _brute_force(inst: dict[str, Any]) -> bool:
    """Whether some way of counting the courses (each toward a set of leaves that match it,
    pairwise allowed, within the limits) meets every leaf."""
    leaves, overlaps = inst["leaves"], inst["overlaps"]
    rule = {frozenset(o["nodes"]): o.get("max_courses") for o in overlaps}
    ids = [leaf["id"] for leaf in leaves]
    choices = []
    for code in inst["done"]:
        fits = [leaf["id"] for leaf in leaves if code in leaf["courses"]]
        ways = [
            subset
            for n in range(len(fits) + 1)
            for subset in itertools.combinations(fits, n)
            if all(frozenset(p) in rule for p in itertools.combinations(subset, 2))
        ]
        choices.append(ways)
    for pick in itertools.product(*choices):
        shared = {k: 0 for k in rule}
        for subset in pick:
            for p in itertools.combinations(subset, 2):
                shared[frozenset(p)] += 1
        if any(most is not None and shared[k] > most for k, most in rule.items()):
            continue
        counted = {i: [c for c, s in zip(inst["done"], pick, strict=True) if i in s] for i in ids}
        if all(_leaf_met(leaf, counted[leaf["id"]]) for leaf in leaves):
            return True
    return False


def _leaf_met(leaf: dict[str, Any], counted: list[str]) -> bool:
    lows = leaf.get("minimums", [])
    return len(counted) >= leaf["min_courses"] and all(
        sum(c in low["courses"] for c in counted) >= low["min_courses"] for low in lows
    )


@settings(max_examples=120, deadline=None)
@given(inst=_instances())
@pytest.mark.slow
def test_the_audit_counts_twice_exactly_where_allowed(inst: dict[str, Any]) -> None:
    from tests.planner_strategies import catalog, program, student

    courses = [
        {
            "code": c,
            "title": c,
            "units": 1,
            "department": "X",
            "level": 100,
            "offered": {"terms": ["fall"]},
        }
        for c in CODES
    ]
    prog = program("X-BA", {"kind": "all_of", "id": "root", "children": inst["leaves"]})
    prog["overlaps"] = inst["overlaps"]
    cat = catalog(courses, [prog])
    rows = [{"course": c, "term": "F2025", "grade": "A"} for c in inst["done"]]
    report = audit(cat, student(["X-BA"], rows))
    assert report.all_met == _brute_force(inst)
    # Whatever is met, every course counts only where allowed.
    rule = {frozenset(o["nodes"]) for o in inst["overlaps"]}
    where: dict[str, list[str]] = {}
    for _, n in iter_nodes(report):
        for c in n.counted:
            where.setdefault(c.course, []).append(n.id)
    for leaves in where.values():
        assert all(frozenset(p) in rule for p in itertools.combinations(leaves, 2))

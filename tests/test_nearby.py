"""Programs a student is close to (``agents.advice.nearby``): every candidate planned with the
declared programs, ranked by the units it adds to the baseline plan, then the units of the
planned courses that count toward it; ``advise audit --close`` shows them.

The small catalog: a major (four required courses, 72 units in all) whose student has two
of them and two of A-MIN's three courses; B-MIN takes four courses of a set that holds the
major's four, but may share only one with it; D-MIN is a three-course prerequisite chain;
Z-MIN a five-course one; X-MIN is closed to the major, E-CON open only to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.advice.nearby import KIND_ORDER, CloseReport, close_programs, default_constraints
from agents.catalog import Catalog, load_catalog, load_student
from agents.planner import PlanConstraints
from pipeline.cli import main
from tests.planner_helpers import FS, required
from tests.planner_strategies import catalog, course, program, student

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

REPO = Path(__file__).resolve().parents[1]
ECON = str(REPO / "demos" / "students" / "econ-junior.json")
LOADS = PlanConstraints(max_units_per_term=27, horizon_terms=4)
MAJOR = ["10-101", "10-102", "10-103", "10-104"]
CHAIN_D = ["40-101", "40-102", "40-103"]
CHAIN_Z = ["60-101", "60-102", "60-103", "60-104", "60-105"]


def chain(codes: list[str]) -> list[dict[str, Any]]:
    return [course(c, 9, FS, codes[i - 1] if i else None) for i, c in enumerate(codes)]


def small(*, b_sharing: int | None = 1) -> Catalog:
    singles = [*MAJOR, "20-101", "20-102", "20-103", "30-101", "30-102", "30-103", "50-101"]
    b_set = {"kind": "course_set", "id": "b-set", "courses": [*MAJOR, "30-101", "30-102",
             "30-103"], "min_courses": 4}  # fmt: skip
    x_min = program("X-MIN", required("50-101"), kind="minor") | {"excluded_majors": ["MAJ"]}
    e_con = program("E-CON", required("50-101"), kind="concentration")
    return catalog(
        [course(c, 9, FS) for c in singles] + chain(CHAIN_D) + chain(CHAIN_Z),
        [
            program("MAJ", required(*MAJOR), total=72),
            program("A-MIN", required("20-101", "20-102", "20-103"), kind="minor", sharing=1),
            program("B-MIN", b_set, kind="minor", sharing=b_sharing),
            program("D-MIN", required(*CHAIN_D), kind="minor", sharing=1),
            program("Z-MIN", required(*CHAIN_Z), kind="minor", sharing=1),
            x_min,
            e_con | {"eligible_majors": ["MAJ"]},
        ],
    )


def record() -> Any:
    done = [("10-101", "F2025"), ("10-102", "F2025"), ("20-101", "S2026"), ("20-102", "S2026")]
    return student(["MAJ"], [{"course": c, "term": t, "grade": "B"} for c, t in done])


def summary(report: CloseReport) -> list[tuple[str, str, float, float, str | None]]:
    return [
        (p.code, p.status, p.extra_units, p.remaining_units, p.graduation_term)
        for p in [*report.close, *report.delayed]
    ]


def test_the_almost_finished_minor_ranks_first_and_the_costly_and_late_ones_after() -> None:
    report = close_programs(small(), record(), LOADS)
    assert (report.baseline_graduation_term, report.baseline_units) == ("F2027", 36.0)
    assert summary(report) == [
        ("A-MIN", "fits", 0.0, 9.0, "F2027"),  # one course, in the free elective room
        ("B-MIN", "fits", 9.0, 27.0, "F2027"),  # the sharing limit: three courses of its own
        ("E-CON", "fits", 0.0, 9.0, "F2027"),  # concentrations after every minor
        ("D-MIN", "delays", 9.0, 27.0, "S2028"),  # a chain one term longer than the plan
        ("Z-MIN", "infeasible", 0.0, 0.0, None),  # a chain longer than the horizon
    ]
    assert [(s.code, s.reason) for s in report.skipped] == [
        ("X-MIN", "X-MIN is not open to students in MAJ")
    ]
    a_min, b_min = report.close[0], report.close[1]
    assert [(n.course, n.term, n.requirements, n.fills) for n in a_min.courses] == [
        ("20-103", "F2027", ["A-MIN/r2"], ["r2"])
    ]
    assert a_min.units_counted == 18.0
    assert [(n.course, n.term) for n in b_min.courses] == [
        ("30-101", "S2027"), ("30-102", "F2027"), ("30-103", "F2027")
    ]  # fmt: skip
    assert b_min.units_counted == 9.0  # one of the major's courses, as the limit allows
    assert report.delayed[1].reasons == [
        "the prerequisite chain 60-101 -> 60-102 -> 60-103 -> 60-104 -> 60-105 needs 5 more "
        "terms (60-105 no earlier than S2029) but only 4 remain through F2028"
    ]


@pytest.mark.parametrize(
    ("sharing", "expected"),
    [
        (1, ("B-MIN", 9.0, 27.0, ["30-101", "30-102", "30-103"])),
        (None, ("B-MIN", 0.0, 18.0, ["10-103", "10-104"])),  # the major's courses count too
    ],
)
def test_a_sharing_limit_is_what_makes_a_minor_cost_extra_units(
    sharing: int | None, expected: tuple[str, float, float, list[str]]
) -> None:
    report = close_programs(small(b_sharing=sharing), record(), LOADS)
    b_min = next(p for p in report.close if p.code == "B-MIN")
    got = (b_min.code, b_min.extra_units, b_min.remaining_units)
    assert (*got, [n.course for n in b_min.courses]) == expected


def test_a_limit_leaves_later_kinds_unplanned_once_earlier_ones_fill_it() -> None:
    report = close_programs(small(), record(), LOADS, limit=2)
    assert [p.code for p in report.close] == ["A-MIN", "B-MIN"]
    assert [p.code for p in report.delayed] == ["D-MIN", "Z-MIN"]
    assert [(s.code, s.reason) for s in report.skipped] == [
        ("X-MIN", "X-MIN is not open to students in MAJ"),
        ("E-CON", "not planned: the top 2 are programs of a kind listed first (minor)"),
    ]


def test_a_major_that_would_close_a_declared_minor_is_not_a_candidate() -> None:
    cat = small()
    y_min = program("Y-MIN", required("30-101"), kind="minor") | {"excluded_majors": ["MAJ2"]}
    extra = [program("MAJ2", required("50-101"), total=72), y_min]
    cat = Catalog.model_validate(cat.model_dump() | {"programs": [*cat.model_dump()["programs"],
                                 *extra]})  # fmt: skip
    who = record().model_copy(update={"programs": ["MAJ", "Y-MIN"]})
    report = close_programs(cat, who, LOADS, kinds=["major"])
    assert (report.close, report.delayed) == ([], [])
    assert [(s.code, s.reason) for s in report.skipped] == [
        ("MAJ2", "adding MAJ2 makes Y-MIN unavailable: Y-MIN is not open to students in MAJ2")
    ]


def test_the_default_constraints_are_the_standard_load_with_no_target() -> None:
    cat = load_catalog()
    who = load_student(ECON, calendar=cat.calendar)
    c = default_constraints(cat, who)
    assert (c.max_units_per_term, c.standing_max_units, c.target_term) == (54.0, {}, None)
    assert (c.optional_terms, c.optional_kinds, c.include_summer) == ([], [], False)
    assert (c.horizon_terms, c.time_limit_s, c.standard) == (12, 60.0, None)


def test_a_demo_student_is_closest_to_the_data_science_minor() -> None:
    cat = load_catalog()
    who = load_student(ECON, calendar=cat.calendar)
    report = close_programs(cat, who)
    assert report.programs == ["ECON-BA", "PHIL-MIN"]
    assert (report.baseline_graduation_term, report.baseline_units) == ("S2028", 135.0)
    assert summary(report) == [
        ("DS-MIN", "fits", 0.0, 27.0, "S2028"),
        ("BUS-MIN", "fits", 0.0, 36.0, "S2028"),
        ("CS-MIN", "fits", 0.0, 54.0, "S2028"),
        ("MATH-MIN", "infeasible", 0.0, 0.0, None),
    ]
    assert [n.course for n in report.close[0].courses] == ["36-315", "36-350", "36-303"]
    assert [s.code for s in report.skipped] == ["ECON-MIN"]


def test_audit_close_prints_the_ranked_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", ECON, "--close", "1"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Programs Maya L. could add without delaying graduation",
        "Baseline: ECON-BA, PHIL-MIN - graduates S2028 with 135 units planned (optimal)",
        "Each plan: at most 54 units a term, target none, planner safety limit 60 s",
        "",
        "  #  Program    Kind           Extra Remaining  Graduates",
        "  1  DS-MIN     minor              0        27  S2028",
        "       F2027  36-315 Statistical Graphics and Visualization (9 units): Data science "
        "electives",
        "       F2027  36-350 Statistical Computing (9 units): 36-350",
        "       S2028  36-303 Sampling, Survey and Society (9 units): Data science electives",
        "Extra: units beyond the baseline plan; Remaining: units of the planned courses that "
        "count toward the program.",
        "",
        "No plan with the baseline programs:",
        "  MATH-MIN   minor         MATH-MIN cannot be completed together with ECON-BA, "
        "PHIL-MIN by F2032",
        "",
        "Not planned:",
        "  ECON-MIN   minor         ECON-MIN is not open to students in ECON-BA",
    ]


def test_audit_close_json_plans_what_if_programs_into_the_baseline(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["audit", ECON, "--add-program", "DS-MIN", "--close", "--json"]) == 0
    report = CloseReport.model_validate(json.loads(capsys.readouterr().out))
    assert report.programs == ["ECON-BA", "PHIL-MIN", "DS-MIN"]
    # DS-MIN now takes the free elective room the other minors fitted into on their own.
    assert summary(report) == [
        ("BUS-MIN", "fits", 3.0, 36.0, "S2028"),
        ("CS-MIN", "fits", 12.0, 54.0, "S2028"),
        ("MATH-MIN", "infeasible", 0.0, 0.0, None),
    ]
    assert [p.plan_status for p in report.close] == ["feasible", "optimal"]


def test_audit_close_adds_a_section_to_the_worksheet(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", ECON, "--close", "1", "--md"]) == 0
    md = capsys.readouterr().out
    assert "## Programs you are close to" in md
    assert "| 1 | DS-MIN Data Science minor (minor) | 0 units | 27 units | S2028 | 36-315 " in md
    assert "- ECON-MIN (minor): ECON-MIN is not open to students in ECON-BA" in md
    assert main(["audit", ECON, "--close", "1", "--html"]) == 0
    page = capsys.readouterr().out
    assert '<tr class="close-program" data-code="DS-MIN" data-status="fits">' in page
    assert '<li class="close-program" data-code="MATH-MIN" data-status="infeasible">' in page


def test_audit_close_kinds_rejects_a_kind_one_cannot_add(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from pipeline.cli_audit import CLOSE_KINDS

    assert CLOSE_KINDS == KIND_ORDER
    with pytest.raises(SystemExit) as exc:
        main(["audit", ECON, "--close", "--close-kinds", "minor,institution"])
    assert exc.value.code == 2
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .endswith(
            "argument --close-kinds: expected kinds from minor, concentration, major, got "
            "'minor,institution'"
        )
    )

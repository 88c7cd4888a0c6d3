"""Sessions within a term (issue #28 item 5): a made-up catalog with summer session I
(capped at 4 credits), session II and a 10-week session, a 12-credit cap across a summer's
sessions and an 8-credit session rule (tests/session_helpers.py). Offerings per session,
the planner's per-session cap and cap across sessions, the verifier on a hand-broken plan,
the critique citing the session rule, the authoring layout round trip, the migration left
as it was, and the error messages."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

import agents.planner.model as planner_model
from agents import critique
from agents.artifacts import Recommendation
from agents.catalog import (
    Calendar,
    PolicyRule,
    Term,
    offered_in,
    offered_sessions,
    parse_catalog,
    session_caps,
    use_catalog,
)
from agents.catalog.authoring import build_catalog, export_catalog
from agents.catalog.migrate import migrate_raw
from agents.errors import CatalogReferenceError, CatalogSchemaError, LayoutError
from agents.llm.letters import check_letter, template_letter
from agents.planner import PlanConstraints, PlannedTerm
from agents.toolbox import Toolbox
from agents.verifier import verify_plan
from agents.writing.render import to_html, to_markdown
from tests.catalog_base import base_catalog
from tests.session_helpers import request, round_one, session_catalog, session_raw

ALL = ("SUM 101", "SUM 102", "SUM 103", "SUM 104", "SUM 201", "REG 101")


def _plan(schedule: Any) -> list[tuple[str, list[tuple[str, str | None]]]]:
    return [(t.term, [(c.course, c.session) for c in t.courses]) for t in schedule.terms]


def test_a_course_runs_in_the_sessions_its_offering_names() -> None:
    cat = session_catalog(*ALL)
    with use_catalog(cat):
        summer, fall = Term.parse("U2027"), Term.parse("Summer 2027").shift(1)
        runs = {c.code: offered_sessions(c, summer) for c in cat.courses}
        assert runs == {
            "SUM 101": ["I"],
            "SUM 102": ["II"],
            "SUM 103": ["I", "II", "10W"],
            "SUM 104": ["I"],
            "SUM 201": ["II", "10W"],
            "REG 101": [],
        }
        # A session names its term's kind: the course runs in the term, and in no other.
        assert [offered_in(cat, cat.course("SUM 101"), t) for t in (summer, fall)] == [True, False]
        assert cat.calendar.kind_code("summer:I") == "U"
        # Session I's own cap; the others take the 8-credit rule that holds for everyone.
        assert session_caps(cat, summer) == {"I": 4.0, "II": 8.0, "10W": 8.0}


def test_the_planner_keeps_each_session_under_its_cap(tmp_path: Path) -> None:
    # 12 credits fit the summer's cap, but SUM 101 and SUM 104 both run only in session I,
    # capped at 4: one waits for the next summer.
    _, schedule, review = round_one(
        session_catalog("SUM 101", "SUM 102", "SUM 104"), tmp_path, request()
    )
    assert _plan(schedule) == [
        ("S2027", []),
        ("U2027", [("SUM 101", "I"), ("SUM 102", "II")]),
        ("F2027", []),
        ("S2028", []),
        ("U2028", [("SUM 104", "I")]),
    ]
    assert (schedule.graduation_term, review.approval, review.violations) == (
        "U2028",
        "approved",
        [],
    )


def test_without_the_session_model_the_plan_breaks_the_session_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What the session literals of the planner's model prevent (agents.planner.sessions):
    # without them both session-I courses go in one summer, and the verifier objects.
    monkeypatch.setattr(planner_model, "encode_sessions", lambda *args: None)
    cat = session_catalog("SUM 101", "SUM 102", "SUM 104")
    _, schedule, review = round_one(cat, tmp_path, request())
    assert _plan(schedule)[1] == ("U2027", [("SUM 101", "I"), ("SUM 102", "II"), ("SUM 104", "I")])
    assert [r.message for r in review.risks if r.kind == "other"] == [
        "plan verifier: units_max: 8 credits in session I of U2027 exceed the session's cap of 4"
    ]


def test_the_cap_across_sessions_still_holds(tmp_path: Path) -> None:
    # 20 summer credits: 12 fit a summer (SUMMER-MAX), with session I at 4 and II at 8.
    _, schedule, review = round_one(session_catalog(*ALL), tmp_path, request())
    assert _plan(schedule) == [
        ("S2027", [("REG 101", None)]),
        ("U2027", [("SUM 101", "I"), ("SUM 102", "II"), ("SUM 103", "II")]),
        ("F2027", []),
        ("S2028", []),
        ("U2028", [("SUM 104", "I"), ("SUM 201", "II")]),
    ]
    assert [t.units for t in schedule.terms] == [4, 12, 0, 0, 8]
    assert review.violations == []


@dataclass
class _Plan:
    terms: list[PlannedTerm]
    graduation_term: str | None


def test_the_verifier_reports_sessions_a_hand_broken_plan_gets_wrong() -> None:
    cat = session_catalog(*ALL)
    summer = PlannedTerm(
        term="U2027",
        courses=["SUM 101", "SUM 102", "SUM 103", "SUM 104", "SUM 201"],
        units=20,
        sessions={"SUM 101": "I", "SUM 102": "I", "SUM 103": "10W", "SUM 201": "III"},
    )
    fall = PlannedTerm(term="F2027", courses=["REG 101"], units=4, sessions={"REG 101": "I"})
    pc = PlanConstraints(max_units_per_term=20, min_units_per_term=0, include_summer=True)
    with use_catalog(cat):
        defects = verify_plan(
            cat, request().student, ["SUM-BA"], pc, _Plan([summer, fall], "F2027")
        )
    assert [(d.kind, d.term, d.course, d.message) for d in defects] == [
        ("offering", "U2027", "SUM 102", "SUM 102 is not offered in session I of Summer 2027 "
         "(offered in session II)"),
        ("offering", "U2027", "SUM 104", "SUM 104 in U2027 names no session; it runs only in "
         "session I of Summer 2027"),
        ("offering", "U2027", "SUM 201", "SUM 201 in U2027 is planned in session 'III', which "
         "Summer terms do not have (sessions: I, II, 10W)"),
        ("units_max", "U2027", None, "8 credits in session I of U2027 exceed the session's "
         "cap of 4"),
        ("offering", "F2027", "REG 101", "REG 101 in F2027 is planned in session 'I', but Fall "
         "terms have no sessions"),
    ]  # fmt: skip


def test_the_critique_cites_the_session_rule(tmp_path: Path) -> None:
    cat = session_catalog(*ALL)
    intake, schedule, _ = round_one(cat, tmp_path, request())

    # Hand-broken: every summer 2027 course moved into session II (12 credits; the rule
    # allows 8).
    def into_ii(t: Any) -> Any:
        return t.model_copy(
            update={"courses": [c.model_copy(update={"session": "II"}) for c in t.courses]}
        )

    terms = [into_ii(t) if t.term == "U2027" else t for t in schedule.terms]
    broken = schedule.model_copy(update={"terms": terms})
    with use_catalog(cat):
        review = critique.review(intake, broken, Toolbox(catalog=cat, index_dir=tmp_path / "i"))
    [v] = review.violations
    assert (v.rule_id, v.severity, v.term, v.message) == (
        "SESSION-MAX",
        "hard",
        "U2027",
        "Summer 2027, Session II has 12 credits; the session limit is 8",
    )
    assert (v.citation.document, v.citation.section) == ("pol", "sessions")
    assert v.citation.quote == "At most 8 credits in one summer session; 4 on probation."


def test_the_layout_round_trips_sessions_and_session_offerings(tmp_path: Path) -> None:
    original = session_catalog(*ALL)
    export_catalog(original, tmp_path / "cat")
    institution = (tmp_path / "cat" / "institution.yaml").read_text("utf-8")
    assert (
        "    sessions:\n    - code: I\n      name: Session I\n      first_week: 1\n" in institution
    )
    courses = (tmp_path / "cat" / "courses.csv").read_text("utf-8").splitlines()
    assert courses[1].startswith("SUM 101,Course SUM 101,4,Summer Studies,100,,,summer:I,")
    assert courses[5].startswith(
        "SUM 201,Course SUM 201,4,Summer Studies,100,,,summer:10W;summer:II,"
    )
    built, _ = build_catalog(tmp_path / "cat")
    assert built == original
    assert built.calendar.kind_by_code["U"].sessions == original.calendar.kind_by_code["U"].sessions


LAYOUT_ERRORS = [
    (
        "courses.csv",
        "summer:I,",
        "summer:IV,",
        "courses.csv:2 column 'offered_terms': 'summer:IV' names session 'IV' of Summer, which "
        "has sessions I, II, 10W; write one of summer:I, summer:II, summer:10W, or 'summer' for "
        "every session",
    ),
    (
        "courses.csv",
        "summer:I,",
        "fall:I;summer:I,",
        "courses.csv:2 column 'offered_terms': 'fall:I' names session 'I' of Fall, which has no "
        "sessions; write 'fall' alone, or declare sessions under the calendar's F kind in "
        "institution.yaml",
    ),
    (
        "institution.yaml",
        "      last_week: 5\n",
        "      last_week: 12\n",
        "institution.yaml: calendar: term kind U, session I: last_week 12 is past the term's 10 "
        "weeks (typical_dates.weeks); shorten the session or lengthen the term - see 'calendar' "
        "in docs/catalog-guide.md",
    ),
    (
        "institution.yaml",
        "      first_week: 6\n",
        "      first_week: 11\n",
        "institution.yaml: calendar: term kind U, session II: last_week 10 is before first_week "
        "11; weeks count from the term's first week - see 'calendar' in docs/catalog-guide.md",
    ),
]


@pytest.mark.parametrize(("file", "old", "new", "problem"), LAYOUT_ERRORS)
def test_a_bad_session_in_the_layout_names_file_field_value_and_fix(
    tmp_path: Path, file: str, old: str, new: str, problem: str
) -> None:
    directory = tmp_path / "cat"
    export_catalog(session_catalog(*ALL), directory)
    path = directory / file
    text = path.read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), "utf-8")
    with pytest.raises(LayoutError) as info:
        build_catalog(directory)
    assert info.value.problems == [problem]


def test_a_bad_session_in_the_json_names_its_path_and_fix() -> None:
    raw = session_raw(*ALL)
    raw["courses"][0]["offered"]["terms"] = ["summer:IV"]
    raw["calendar"]["terms"][1]["sessions"][1]["code"] = "I"
    with pytest.raises(CatalogSchemaError) as info:
        parse_catalog(raw)
    assert [p.split(" (got ")[0] for p in info.value.problems] == [
        "$.calendar: term kind U: session codes must be unique; repeated: I"
    ]
    raw["calendar"]["terms"][1]["sessions"][1]["code"] = "II"
    with pytest.raises(CatalogReferenceError) as ref:
        parse_catalog(raw)
    assert ref.value.problems == [
        "$.courses[0] (SUM 101).offered.terms: 'summer:IV' names session 'IV' of Summer, which "
        "has sessions I, II, 10W; write one of summer:I, summer:II, summer:10W, or 'summer' for "
        "every session"
    ]


def test_catalogs_without_sessions_and_their_migration_are_unchanged() -> None:
    # A version 2 catalog reads as before, and migrating it or a version 1 file adds no
    # session field: the forms of sessions are optional.
    raw = base_catalog()
    assert all(k.sessions == [] for k in parse_catalog(raw).calendar.terms)
    migrated, _ = migrate_raw(raw)
    assert migrated == raw | {"schema_version": 3}
    v1 = {k: v for k, v in raw.items() if k != "calendar"} | {"schema_version": 1}
    upgraded, _ = migrate_raw(v1)
    assert all("sessions" not in kind for kind in upgraded["calendar"]["terms"])
    assert parse_catalog(upgraded).calendar.kind_by_code["U"].sessions == []


def test_the_guide_example_calendar_and_rule_read() -> None:
    guide = (Path(__file__).resolve().parents[1] / "docs" / "catalog-guide.md").read_text()
    part = guide[guide.index("#### Sessions within a term") :]
    calendar, rule = (b.split("```")[0] for b in part.split("```yaml\n")[1:3])
    cal = Calendar.model_validate(yaml.safe_load(calendar)["calendar"])
    assert [s.code for s in cal.kind_by_code["U"].sessions] == ["I", "II", "10W"]
    [parsed] = [PolicyRule.model_validate(r) for r in yaml.safe_load(textwrap.dedent(rule))]
    assert (parsed.kind, parsed.limit, parsed.applies_when.term_kinds) == (
        "max_units_per_session",
        8,
        ["U"],
    )


def test_an_infeasible_plan_names_the_session_cap_that_binds(tmp_path: Path) -> None:
    # Only summer 2027 allowed: two session-I courses cannot both fit session I's 4 credits.
    req = request(optional_kinds=[], optional_terms=["U2027"])
    _, schedule, _ = round_one(session_catalog("SUM 101", "SUM 104"), tmp_path, req)
    assert (schedule.solver_status, schedule.reasons) == (
        "infeasible",
        [
            "SUM 101 and SUM 104 (8 credits) run only in session I of Summer, capped at 4 "
            "credits a term; the Summer terms they can be taken in by F2032 (U2027) hold 4 "
            "credits"
        ],
    )


def test_the_report_and_the_letter_show_each_course_s_session(tmp_path: Path) -> None:
    cat = session_catalog("SUM 101", "SUM 102", "SUM 104")
    intake, schedule, _ = round_one(cat, tmp_path, request())
    rec = Recommendation(
        request_id="r-sessions",
        student_id="s-1",
        student_name="Sam",
        intent=intake.intent,
        outcome="approved",
        summary="approved",
        programs=["SUM-BA"],
        plan=schedule.terms,
        graduation_term=schedule.graduation_term,
        letter="Dear Sam,\n",
        letter_source="template",
    )
    with use_catalog(cat):
        md, page, letter = to_markdown(rec), to_html(rec), template_letter(rec)
        assert check_letter(letter, rec) == []
    assert "- Summer 2027 (8 credits): SUM 101 (Session I), SUM 102 (Session II)\n" in letter
    assert "| SUM 101 | Course SUM 101 (Session I) | 4 |" in md
    assert "| SUM 102 | Course SUM 102 (Session II) | 4 |" in md
    assert "Course SUM 104 (Session I)" in page


def test_a_forced_course_in_a_term_it_does_not_run_in_takes_any_session(tmp_path: Path) -> None:
    req = request(pin_courses={"REG 101": "U2027"}, force_courses=["REG 101"])
    _, schedule, _ = round_one(session_catalog("SUM 101", "REG 101"), tmp_path, req)
    assert (schedule.solver_status, _plan(schedule)[1]) == (
        "optimal",
        ("U2027", [("REG 101", "II"), ("SUM 101", "I")]),
    )

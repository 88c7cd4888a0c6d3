"""Calendars: parsing, ordering and academic years for each kind of calendar, the binding
of the calendar in use, and the version 1 -> 2 catalog migration."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from agents.catalog import (
    SEMESTER_CALENDAR,
    Calendar,
    Offering,
    Term,
    TermKind,
    default_catalog_path,
    load_catalog,
    parse_catalog,
    term_label,
    use_calendar,
)
from agents.catalog.authoring import export_catalog
from agents.catalog.migrate import migrate_raw
from agents.catalog.upgrade import migrate_catalog
from agents.errors import CatalogError, CatalogSchemaError, TermError
from tests.calendar_helpers import CALENDARS, FOUR_ONE_FOUR, QUARTER, TRIMESTER

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

NAMES = sorted(CALENDARS)


@st.composite
def calendar_terms(draw: st.DrawFn) -> tuple[Calendar, Term]:
    cal = CALENDARS[draw(st.sampled_from(NAMES))]
    kind = draw(st.sampled_from([k.code for k in cal.terms]))
    return cal, cal.term(kind, draw(st.integers(1990, 2100)))


@given(calendar_terms())
def test_code_label_and_index_round_trip(item: tuple[Calendar, Term]) -> None:
    cal, term = item
    assert cal.parse(term.code) == term
    assert cal.parse(term.label()) == term
    assert cal.parse(term.label().lower()) == term
    assert cal.parse(f"{term.year} {term.kind_info.name}") == term
    assert cal.from_index(term.index) == term
    assert term.shift(1).shift(-1) == term


@given(calendar_terms(), st.integers(1, 30))
def test_order_follows_the_calendar_year_and_next_regular_skips_optional_terms(
    item: tuple[Calendar, Term], steps: int
) -> None:
    _cal, term = item
    later = term.shift(steps)
    assert later > term and later.index - term.index == steps
    nxt = term.next_regular()
    assert nxt > term and nxt.regular
    skipped = [term.shift(i) for i in range(1, nxt.index - term.index)]
    assert all(not t.regular for t in skipped)
    assert term.next_regular(include_summer=True) == term.shift(1)


@given(calendar_terms())
def test_an_academic_year_is_one_pass_through_the_kinds(item: tuple[Calendar, Term]) -> None:
    cal, term = item
    start = cal.term(cal.academic_year_starts, cal.academic_year_of(term))
    assert start <= term < start.shift(cal.size)
    assert term.academic_year == f"{start.year}-{(start.year + 1) % 100:02d}"


def test_kind_codes_of_two_characters_and_aliases_are_read() -> None:
    assert TRIMESTER.parse("T12026") == TRIMESTER.term("T1", 2026)
    assert TRIMESTER.parse("fall 2026").code == "T12026"
    assert TRIMESTER.parse("2027 Winter Trimester").code == "T22027"
    assert FOUR_ONE_FOUR.parse("J-term 2027").code == "J2027"
    assert FOUR_ONE_FOUR.parse("j term 2027").code == "J2027"
    assert QUARTER.parse("Winter Quarter 2027").code == "W2027"


def test_fall_2026_comes_before_the_winter_and_spring_of_2027() -> None:
    terms = [QUARTER.parse(t) for t in ("S2027", "F2026", "W2027", "U2027")]
    assert [t.code for t in sorted(terms)] == ["F2026", "W2027", "S2027", "U2027"]
    assert QUARTER.parse("F2026").next_regular().code == "W2027"
    assert QUARTER.parse("S2027").next_regular().code == "F2027"
    assert TRIMESTER.parse("T32027").next_regular().code == "T12027"
    assert FOUR_ONE_FOUR.parse("F2026").next_regular().code == "S2027"
    assert FOUR_ONE_FOUR.parse("F2026").next_regular(include_summer=True).code == "J2027"
    assert QUARTER.regular_per_year == 3 and FOUR_ONE_FOUR.regular_per_year == 2
    assert TRIMESTER.last_regular_of_year == "T3" and QUARTER.last_regular_of_year == "S"


def test_a_code_of_another_calendar_is_refused_with_the_kinds() -> None:
    with pytest.raises(TermError) as exc:
        TRIMESTER.parse("F2026")
    assert str(exc.value).startswith("not a term: 'F2026' in this trimester calendar")
    assert "T1 Fall Trimester" in str(exc.value)


def test_the_calendar_in_use_is_bound_and_restored() -> None:
    assert Term.parse("F2026").calendar.system == "semester"
    with use_calendar(QUARTER):
        assert Term.parse("W2027").label() == "Winter 2027"
        assert term_label("W2027") == "Winter 2027"
        with use_calendar(TRIMESTER):
            assert Term.parse("T22027").regular
        assert Term.parse("U2027").regular is False
    with pytest.raises(TermError):
        Term.parse("W2027")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"academic_year_starts": "X"}, "academic_year_starts 'X' is not a term kind code"),
        (
            {"terms": [{"code": "F", "name": "Fall"}, {"code": "F", "name": "Autumn"}]},
            "term kind codes must be unique; repeated: F",
        ),
        (
            {"terms": [{"code": "F", "name": "Fall", "regular": False}]},
            "at least one term kind must be regular",
        ),
        (
            {"terms": [{"code": "F", "name": "Fall"}, {"code": "A", "name": "fall"}]},
            "name 'fall' is used by term kinds F and A",
        ),
    ],
)
def test_an_inconsistent_calendar_is_refused(change: dict[str, object], message: str) -> None:
    raw = {"terms": [{"code": "F", "name": "Fall"}], "academic_year_starts": "F", **change}
    with pytest.raises(ValidationError, match=message):
        Calendar.model_validate(raw)


def test_term_kind_codes_are_short_capitals() -> None:
    with pytest.raises(ValidationError):
        TermKind(code="fall", name="Fall")


# --------------------------------------------------------------------------- migration


def _v1(tmp_path: Path) -> Path:
    raw = json.loads(default_catalog_path().read_text(encoding="utf-8"))
    raw.pop("calendar")
    raw["schema_version"] = 1
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


def test_a_version_1_catalog_is_refused_with_the_migrate_command(tmp_path: Path) -> None:
    path = _v1(tmp_path)
    with pytest.raises(CatalogSchemaError) as exc:
        load_catalog(path)
    assert f"upgrade the file with `advise catalog migrate {path} -o NEW.json`" in str(exc.value)


def test_migrating_version_1_gives_the_shipped_catalog(tmp_path: Path) -> None:
    out = tmp_path / "v2.json"
    lines = migrate_catalog(_v1(tmp_path), out)
    assert "schema_version 1 -> 2" in lines[0]
    # Version 1 had no calendar, so no term dates either: otherwise it is the shipped one.
    shipped = load_catalog(default_catalog_path())
    assert load_catalog(out) == shipped.model_copy(update={"calendar": SEMESTER_CALENDAR})
    _again, notes = migrate_raw(json.loads(out.read_text(encoding="utf-8")))
    assert notes == []


def test_migrate_needs_an_output_for_a_file_and_names_unknown_versions(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match=r"-o NEW\.json"):
        migrate_catalog(_v1(tmp_path), None)
    bad = tmp_path / "v7.json"
    bad.write_text('{"schema_version": 7}', encoding="utf-8")
    with pytest.raises(CatalogError, match="schema_version 7 is not a catalog format"):
        migrate_catalog(bad, tmp_path / "out.json")


def test_a_version_1_directory_is_upgraded_in_place_keeping_comments(tmp_path: Path) -> None:
    d = tmp_path / "cat"
    d.mkdir()
    src = Path(__file__).resolve().parent.parent / "demos" / "catalog-layout"
    for f in src.rglob("*"):
        if f.is_file():
            (d / f.relative_to(src)).parent.mkdir(parents=True, exist_ok=True)
            (d / f.relative_to(src)).write_bytes(f.read_bytes())
    head = (d / "institution.yaml").read_text(encoding="utf-8")
    (d / "institution.yaml").write_text(
        "# kept by the registrar\n" + head.replace("schema_version: 3", "schema_version: 1"),
        encoding="utf-8",
    )
    with pytest.raises(CatalogError, match=f"advise catalog migrate {d}"):
        load_catalog(d)
    migrate_catalog(d, None)
    text = (d / "institution.yaml").read_text(encoding="utf-8")
    assert text.startswith("# kept by the registrar\n") and "schema_version: 3" in text
    assert load_catalog(d).calendar == load_catalog(src).calendar


# --------------------------------------------------------------------------- specific terms


def test_a_course_offered_in_specific_terms_runs_only_then() -> None:
    offering = Offering(terms=["T1", "T3"], only_in=["T12027", "Spring Trimester 2029"])
    with use_calendar(TRIMESTER):
        assert [offering.offered_in(TRIMESTER.parse(t)) for t in ("T12027", "T32029")] == [
            True,
            True,
        ]
        assert not offering.offered_in(TRIMESTER.parse("T12028"))
        assert not offering.offered_in(TRIMESTER.parse("T22027"))


def test_specific_terms_are_checked_and_survive_the_layout(tmp_path: Path) -> None:
    raw = json.loads(default_catalog_path().read_text(encoding="utf-8"))
    course = raw["courses"][0]
    course["sections"] = []
    course["offered"] = {"terms": ["fall"], "only_in": ["F2027", "S2028"]}
    with pytest.raises(CatalogError, match=r"'S2028' is not one of the kinds of term"):
        parse_catalog(raw)
    course["offered"]["only_in"] = ["F2027", "Fall 2029"]
    catalog = parse_catalog(raw)
    export_catalog(catalog, tmp_path / "cat")
    assert "offered_only" in (tmp_path / "cat" / "courses.csv").read_text(encoding="utf-8")
    built = load_catalog(tmp_path / "cat")
    assert built.courses[0].offered.only_in == ["F2027", "F2029"]

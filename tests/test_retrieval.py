"""Retrieval: the whoosh index is cached by catalog content, searches rank the right section
first, citations quote the catalog exactly, and interests rank electives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agents.artifacts import CitationRef
from agents.catalog import Catalog, load_catalog, parse_catalog
from agents.errors import UnknownReferenceError
from agents.retrieval import Hit, Retriever, default_index_dir, index_fingerprint
from agents.retrieval import index as retrieval
from tests.catalog_base import base_catalog


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="module")
def retriever(catalog: Catalog, tmp_path_factory: pytest.TempPathFactory) -> Retriever:
    return Retriever.for_catalog(catalog, tmp_path_factory.mktemp("index"))


# --------------------------------------------------------------------------- cache


def test_second_for_catalog_reuses_the_index_without_rebuilding(tmp_path: Path) -> None:
    cat = parse_catalog(base_catalog())
    before = retrieval.BUILD_COUNT
    first = Retriever.for_catalog(cat, tmp_path)
    stamp = os.stat(first.path).st_mtime_ns
    second = Retriever.for_catalog(cat, tmp_path)

    assert (first.built, second.built) == (True, False)
    builds = retrieval.BUILD_COUNT
    assert builds == before + 1
    assert second.path == first.path == tmp_path / index_fingerprint(cat)
    assert os.stat(second.path).st_mtime_ns == stamp
    assert [p.name for p in tmp_path.iterdir()] == [first.path.name]  # no temp dirs left


def test_changed_catalog_text_builds_a_new_index(tmp_path: Path) -> None:
    raw = base_catalog()
    old = Retriever.for_catalog(parse_catalog(raw), tmp_path)
    raw["documents"][0]["sections"][0]["text"] = "No course may count toward two programs."
    new = Retriever.for_catalog(parse_catalog(raw), tmp_path)

    assert new.built is True
    assert new.path != old.path
    assert new.search_policies("count toward two programs")[0].text == (
        "No course may count toward two programs."
    )


def test_change_outside_indexed_content_keeps_the_index(tmp_path: Path) -> None:
    raw = base_catalog()
    Retriever.for_catalog(parse_catalog(raw), tmp_path)
    raw["courses"][0]["units"] = 9  # units are not indexed

    assert Retriever.for_catalog(parse_catalog(raw), tmp_path).built is False


def test_race_loser_uses_the_index_already_in_place(tmp_path: Path) -> None:
    cat = parse_catalog(base_catalog())
    target = tmp_path / index_fingerprint(cat)
    retrieval._build(cat, target)
    retrieval._build(cat, target)  # a second builder finds the target taken

    assert [p.name for p in tmp_path.iterdir()] == [target.name]
    assert Retriever.for_catalog(cat, tmp_path).search_policies("minors")[0].section == "minors"


def test_unreadable_cached_index_is_rebuilt(tmp_path: Path) -> None:
    cat = parse_catalog(base_catalog())
    target = tmp_path / index_fingerprint(cat)
    target.mkdir()  # an empty directory under the final name: no index inside

    r = Retriever.for_catalog(cat, tmp_path)

    assert r.built is True
    assert r.search_policies("minors")[0].section == "minors"


def test_default_index_dir_follows_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ADVISE_INDEX_DIR", str(tmp_path / "idx"))
    assert default_index_dir() == tmp_path / "idx"
    monkeypatch.delenv("ADVISE_INDEX_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert default_index_dir() == tmp_path / "cache" / "advising-pipeline" / "index"


# --------------------------------------------------------------------------- search


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("how many units can I take with a low GPA", "course-load"),
        ("How many units can I take if my GPA is below 3.0?", "course-load"),
        ("overload approval", "overload"),
        ("can I take a course pass/fail", "pass-fail"),
        ("retake a course I failed", "repeats"),
        ("can I study abroad", "study-away"),
        ("what happens on probation", "probation"),
        ("transfer credit", "transfer-credit"),
    ],
)
def test_policy_question_finds_the_section_that_answers_it(
    retriever: Retriever, query: str, first: str
) -> None:
    assert retriever.search_policies(query)[0].section == first


def test_low_gpa_question_returns_the_load_sections_first(retriever: Retriever) -> None:
    hits = retriever.search_policies("how many units can I take with a low GPA", limit=2)
    assert [(h.document, h.section) for h in hits] == [
        ("academic-policies", "course-load"),
        ("academic-policies", "overload"),
    ]


def test_search_is_deterministic_and_sorted(retriever: Retriever) -> None:
    a = retriever.search_policies("units per term", limit=10)
    b = retriever.search_policies("units per term", limit=10)
    assert a == b
    assert a == sorted(a, key=lambda h: (-h.score, h.document, h.section))


def test_ties_are_broken_by_document_and_section(tmp_path: Path) -> None:
    raw = base_catalog()
    raw["documents"][0]["sections"] = [
        {"id": "b-sec", "heading": "Same", "text": "Identical text about units."},
        {"id": "a-sec", "heading": "Same", "text": "Identical text about units."},
    ]
    raw["policies"][0]["citation"]["section"] = "a-sec"
    hits = Retriever.for_catalog(parse_catalog(raw), tmp_path).search_policies("units")
    assert [h.section for h in hits] == ["a-sec", "b-sec"]
    assert hits[0].score == hits[1].score


def test_query_of_only_stop_words_finds_nothing(retriever: Retriever) -> None:
    assert retriever.search_policies("is it in the?") == []
    assert retriever.search_policies("units", limit=0) == []


def test_program_search_matches_names_and_aliases(retriever: Retriever) -> None:
    hits = retriever.search_programs("computer science minor")
    assert {h.program for h in hits} == {"CS-MIN"}
    assert hits[0] == Hit(
        document="program-cs-min",
        section=hits[0].section,
        heading=hits[0].heading,
        text=hits[0].text,
        score=hits[0].score,
        program="CS-MIN",
    )


def test_program_search_finds_sharing_sections(retriever: Retriever) -> None:
    hits = retriever.search_programs("minor sharing courses with major", limit=3)
    assert all(h.section == "sharing" for h in hits)


def test_policy_index_holds_no_program_documents(retriever: Retriever) -> None:
    hits = retriever.search_policies("computer science minor requirements", limit=50)
    assert not [h for h in hits if h.document.startswith("program-")]


# --------------------------------------------------------------------------- ranking


def test_interest_ranking_puts_matching_electives_first(
    retriever: Retriever, catalog: Catalog
) -> None:
    candidates = sorted(c.code for c in catalog.courses if "CS-ELECTIVE" in c.attributes)
    scores = retriever.rank_courses(["machine learning", "security"], candidates)
    ranked = sorted(candidates, key=lambda c: (-scores[c], c))

    assert set(scores) == set(candidates)
    assert ranked[:2] == ["15-386", "15-330"]  # Machine Learning, Computer Security
    assert scores["15-386"] == 1.0
    assert all(0.0 <= s <= 1.0 for s in scores.values())
    assert scores["15-312"] == 0.0  # Foundations of Programming Languages


def test_interest_ranking_without_interests_or_known_courses_is_all_zero(
    retriever: Retriever,
) -> None:
    assert retriever.rank_courses([], ["15-386"]) == {"15-386": 0.0}
    assert retriever.rank_courses(["security"], ["99-999"]) == {"99-999": 0.0}


# --------------------------------------------------------------------------- citations


def test_citation_for_rule_quotes_the_exact_section_text(
    retriever: Retriever, catalog: Catalog
) -> None:
    section = catalog.section_text("academic-policies", "overload")
    assert retriever.citation_for_rule("LOAD-OVERLOAD") == CitationRef(
        document="academic-policies",
        section="overload",
        heading=section.heading,
        quote=section.text,
        rule_id="LOAD-OVERLOAD",
    )


def test_every_rule_has_a_citation(retriever: Retriever, catalog: Catalog) -> None:
    for rule in catalog.policies:
        ref = retriever.citation_for_rule(rule.id)
        assert ref.quote == catalog.section_text(ref.document, ref.section).text


def test_citation_for_unknown_rule_names_it(retriever: Retriever) -> None:
    with pytest.raises(UnknownReferenceError) as err:
        retriever.citation_for_rule("NO-SUCH-RULE")
    assert str(err.value).startswith("unknown policy rule 'NO-SUCH-RULE'; the catalog has: ")


def test_citation_for_unknown_section_lists_the_sections(tmp_path: Path) -> None:
    r = Retriever.for_catalog(parse_catalog(base_catalog()), tmp_path)
    with pytest.raises(UnknownReferenceError) as err:
        r.citation_for("academic-policies", "nope")
    assert str(err.value) == (
        "unknown section of document 'academic-policies' 'nope'; the catalog has: minors"
    )

"""The planner's interest scores (``Retriever.interest_scores``): the numbers the planning
stages got from ``rank_courses`` over every course, computed once per interest list and
without the candidate filter, which keeps every course when every course is a candidate
(the course index holds exactly the catalog's courses)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.catalog import Catalog, load_catalog
from agents.retrieval import Retriever

HARROW = Path(__file__).resolve().parents[1] / "demos" / "harrow-bay"
INTERESTS = [
    ["machine learning", "security"],
    ["game development", "systems"],
    ["IT support", "networking"],
    ["statistics", "ml"],
    ["music", "ensemble", "theatre"],
    ["credits"],
    ["quantum basket weaving"],
    ["the", "and"],
]


@pytest.fixture(scope="module", params=["sample", "harrow-bay"])
def retriever(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Retriever:
    catalog = load_catalog(None if request.param == "sample" else HARROW)
    return Retriever.for_catalog(catalog, tmp_path_factory.mktemp("index"))


def planner_scores_as_before(retriever: Retriever, interests: list[str]) -> dict[str, float]:
    """What ``agents.planning.to_plan_constraints`` computed before ``interest_scores``."""
    ranked = retriever.rank_courses(interests, [c.code for c in retriever.catalog.courses])
    return {c: round(s, 3) for c, s in ranked.items() if s > 0}


@pytest.mark.parametrize("interests", INTERESTS, ids=lambda i: "+".join(i))
def test_interest_scores_are_the_rankings_over_every_course(
    retriever: Retriever, interests: list[str]
) -> None:
    scores = retriever.interest_scores(interests)
    before = planner_scores_as_before(retriever, interests)
    assert list(scores.items()) == list(before.items())  # values and catalog order


def test_some_interest_lists_match_and_some_do_not(retriever: Retriever) -> None:
    matched = [bool(retriever.interest_scores(i)) for i in INTERESTS]
    assert any(matched) and not all(matched)


def test_the_course_index_holds_exactly_the_catalogs_courses(retriever: Retriever) -> None:
    codes = {c.code for c in retriever.catalog.courses}
    with retriever._ix["courses"].searcher() as searcher:
        indexed = {fields["code"] for fields in searcher.all_stored_fields()}
    assert indexed == codes
    for interests in INTERESTS:  # so a search only ever finds catalog courses
        assert set(retriever._course_scores(" ".join(interests))) <= codes


def test_interest_scores_are_computed_once_per_interest_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog: Catalog = load_catalog()
    retriever = Retriever.for_catalog(catalog, tmp_path)
    first = retriever.interest_scores(("machine learning", "security"))
    searched: list[str] = []
    monkeypatch.setattr(retriever, "_course_scores", searched.append)
    assert retriever.interest_scores(["machine learning", "security"]) is first
    assert searched == []
    assert first["15-386"] == 1.0  # Machine Learning

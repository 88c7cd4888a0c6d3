"""Courses whose sections always clash (issue #26: computed by a sweep over each day's
meetings, once per catalog and term, instead of comparing every pair of courses): the same
pairs as the definition on both sample catalogs; the planner keeps only its pool's pairs and
leaves a pair both fixed in the term to the student."""

from __future__ import annotations

from itertools import combinations

import pytest

from agents.catalog import Catalog, Term, load_catalog, load_student, use_catalog
from agents.catalog.clashes import clash_partners
from agents.planner import PlanConstraints, always_clashing
from agents.planner.sections import sections_clash
from agents.planner.setup import PlanSetup


def by_definition(catalog: Catalog, term: str) -> list[tuple[str, str]]:
    code = Term.parse(term).code
    offered = {c.code: c.sections_in(code) for c in catalog.courses}
    offered = {k: v for k, v in offered.items() if v}
    return [
        (a, b)
        for a, b in combinations(sorted(offered), 2)
        if all(sections_clash(sa, sb) for sa in offered[a] for sb in offered[b])
    ]


@pytest.mark.parametrize("path", [None, "demos/harrow-bay"])
def test_the_sweep_finds_exactly_the_pairs_of_the_definition(path: str | None) -> None:
    catalog = load_catalog(path) if path else load_catalog()
    with use_catalog(catalog):
        terms = sorted({s.term for c in catalog.courses for s in c.sections})
        assert terms
        for term in terms:
            want = by_definition(catalog, term)
            assert want, term  # the sample catalogs have such pairs in every term
            assert always_clashing(catalog, term) == want
            partners = clash_partners(catalog, term)
            assert sorted((a, b) for a in partners for b in partners[a] if a < b) == want


def test_the_planner_keeps_the_pairs_of_its_pool_and_leaves_fixed_pairs_to_the_student() -> None:
    catalog = load_catalog()
    with use_catalog(catalog):
        term = "F2027"
        a, b = always_clashing(catalog, term)[0]
        s = load_student("demos/students/cs-sophomore.json")
        setup = PlanSetup(
            catalog, s, ["CS-BS"], PlanConstraints(max_units_per_term=54, clash_terms=[term])
        )
        assert setup.exclusive_in([a, b, "no-such-course"]) == {term: [(a, b)]}
        assert setup.exclusive_in([a]) == {}
        pinned = PlanConstraints(
            max_units_per_term=54, clash_terms=[term], fixed={a: term, b: term}
        )
        assert PlanSetup(catalog, s, ["CS-BS"], pinned).exclusive_in([a, b]) == {}

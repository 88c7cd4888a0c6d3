"""``Catalog.courses_matching`` narrows the courses it tests by what a set's selector can
pick (listed codes, subjects) instead of testing every course for every set (issue #26:
catalogs of thousands of courses). Its answers are those of testing every course."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.catalog import Catalog, CourseSetRequirement, load_catalog
from agents.catalog.requirements import AllOfRequirement, NOfRequirement

REPO = Path(__file__).resolve().parents[1]
CATALOGS = [None, REPO / "demos" / "harrow-bay", REPO / "eval" / "catalogs" / "fenwick-college"]


def _sets(node: object) -> Iterator[CourseSetRequirement]:
    if isinstance(node, CourseSetRequirement):
        yield node
    elif isinstance(node, AllOfRequirement | NOfRequirement):
        for child in node.children:
            yield from _sets(child)


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.name if p else "sample")
def test_every_set_matches_what_testing_every_course_matches(path: Path | None) -> None:
    catalog: Catalog = load_catalog(path) if path else load_catalog()
    sets = [s for p in catalog.programs for s in _sets(p.requirement)]
    for s in sets:
        want = frozenset(c.code for c in catalog.courses if s.matches(c))
        assert catalog.courses_matching(s) == want, s.id


def test_a_set_naming_subjects_and_codes_keeps_both() -> None:
    catalog = load_catalog()
    subject = catalog.courses[0].subject_code
    other = next(c for c in catalog.courses if c.subject_code != subject)
    node = CourseSetRequirement(
        kind="course_set", id="mixed", title="Mixed", courses=[other.code], subjects=[subject],
        min_courses=1,
    )  # fmt: skip
    got = catalog.courses_matching(node)
    assert other.code in got
    assert {c.code for c in catalog.courses if c.subject_code == subject} <= got

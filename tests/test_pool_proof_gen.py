"""The enlarged catalogs of the scaling benchmark (``eval.gen_catalog``): valid, seeded,
copies that point into their own copy, and cross-links into the base programs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.catalog import Catalog, CourseCond, iter_prereq, load_catalog
from agents.planner.reqtree import compile_requirements
from eval.gen_catalog import copy_code, copy_prefix, enlarge, enlarge_raw, main

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop


@pytest.fixture(scope="module")
def sample() -> Catalog:
    return load_catalog()


@pytest.mark.parametrize(
    ("code", "k", "copied"),
    [
        ("15-112", 1, "KBF-112"),
        ("15-3xx", 2, "LBF-3xx"),
        ("MATH 301", 1, "KMATH 301"),
        ("CS101", 3, "MCS101"),
    ],
)
def test_copy_code_writes_the_subject_behind_the_copy_prefix(
    code: str, k: int, copied: str
) -> None:
    assert copy_code(code, k) == copied


def test_copy_prefixes_are_distinct() -> None:
    prefixes = [copy_prefix(k) for k in range(1, 300)]
    assert prefixes[:3] == ["K", "L", "M"] and prefixes[14:17] == ["Z", "KK", "LK"]
    assert len(set(prefixes)) == len(prefixes)
    # 'x' is a code pattern's wildcard: a copy named X could not match its own patterns.
    assert not [p for p in prefixes if "X" in p]


def test_a_real_size_catalog_builds() -> None:
    # 15 copies: about 3,200 courses, the real-scale benchmark's catalog.
    assert len(enlarge(load_catalog(), 15).courses) > 3000


def test_a_subject_too_long_to_copy_is_named() -> None:
    with pytest.raises(ValueError, match="subject 'MATHS' cannot be copied 1 times"):
        copy_code("MATHS 301", 1)


def test_the_same_seed_gives_the_same_catalog_and_another_seed_another(sample: Catalog) -> None:
    one = json.dumps(enlarge_raw(sample, 3, seed=5), sort_keys=True)
    assert json.dumps(enlarge_raw(sample, 3, seed=5), sort_keys=True) == one
    assert json.dumps(enlarge_raw(sample, 3, seed=6), sort_keys=True) != one


def test_one_copy_is_the_base_catalog(sample: Catalog) -> None:
    assert enlarge(sample, 1) == sample


def test_copies_point_into_their_own_copy(sample: Catalog) -> None:
    big = enlarge(sample, 3, seed=1)
    assert len(big.programs) == 3 * len(sample.programs)
    base = {c.code for c in sample.courses}
    copied = [c for c in big.courses if c.code not in base]
    assert len(copied) >= 2 * len(sample.courses)
    for course in copied:
        prefix = course.code[0]
        refs = [
            n.course
            for tree in (course.prerequisites, course.corequisites)
            for n in iter_prereq(tree)
            if isinstance(n, CourseCond)
        ]
        assert all(r[0] == prefix for r in [*refs, *course.antirequisites]), course.code
    minor = big.program("CS-MIN-K")
    assert minor.excluded_majors == ["CS-BS-K"]
    _, leaves = compile_requirements(big, minor)
    assert all(c.startswith("K") for leaf in leaves for c in leaf.matching)


def test_cross_links_and_chains_add_options_to_the_base_programs(sample: Catalog) -> None:
    big = enlarge(sample, 3, seed=1)
    _, small = compile_requirements(sample, sample.program("CS-BS"))
    _, large = compile_requirements(big, big.program("CS-BS"))
    added = {c for leaf in large for c in leaf.matching} - {
        c for leaf in small for c in leaf.matching
    }
    assert any(c[1:3] != "YZ" for c in added)  # a copied course, cross-listed
    assert any(c[1:3] == "YZ" for c in added)  # the end of an extra chain
    chain_ends = [c for c in big.courses if c.code[1:3] == "YZ" and c.prerequisites is not None]
    assert chain_ends and all(c.department == "Synthetic Studies" for c in chain_ends)


def test_the_command_writes_a_catalog_that_loads(tmp_path: Path, sample: Catalog) -> None:
    out = tmp_path / "catalog-2x.json"
    assert main(["2", "--seed", "3", "--out", str(out)]) == 0
    assert load_catalog(out) == enlarge(sample, 2, seed=3)

"""``python -m eval.gen_catalog FACTOR [--seed N] [--out FILE]``: enlarged catalogs for the
scaling benchmark and the pool-proof tests, made from a base catalog (the sample by default).

``enlarge(base, factor, seed=...)`` returns a valid ``Catalog`` (schema and cross-reference
checks run, as for any catalog file) holding:

- the base catalog unchanged, so its students and programs plan as before;
- ``factor - 1`` renamed copies of every course and program: copy ``k`` writes subject
  ``15`` as letters behind a copy prefix (``15-112`` -> ``KBF-112`` in copy 1, ``LBF-112``
  in copy 2; ``MATH 301`` -> ``KMATH 301``), so code patterns such as ``15-3xx`` and subject
  restrictions select within their own copy; prerequisites, corequisites, anti-requisites,
  requirement trees, sharing limits and eligible or excluded majors point into their own
  copy; attributes get the copy's suffix (``CS-ELECTIVE`` -> ``CS-ELECTIVE-K``);
- cross-links, so the copies are not just disjoint catalogs: a seeded share
  (``cross_share``) of copied courses keep their original attributes too, so they also
  count toward the base programs' attribute sets (general education, elective groups);
- extra prerequisite chains (``chains`` per copy): short chains of new courses whose last
  course carries one of the base catalog's attributes, so the base programs' elective sets
  gain options behind prerequisites, at several unit sizes.

Everything is drawn from ``random.Random(seed)`` in a fixed order: the same arguments give
the same catalog, byte for byte. Policies, documents and the calendar are the base's.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import string
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import agents.planner.pool as pool_module
from agents.catalog import Catalog, load_catalog, parse_catalog

Json = dict[str, Any]

DIGIT_CODE = re.compile(r"^([0-9]{2})-(.+)$")
LETTER_CODE = re.compile(r"^([A-Z]{2,5})([ -]?)(.+)$")
CROSS_SHARE = 0.3
CHAINS = 2
CHAIN_UNITS = (6, 9, 12)


@contextmanager
def full_pool() -> Iterator[None]:
    """Every usable course a candidate: the reference the pruned pool is judged against
    (the scaling benchmark and the pool's property tests)."""
    old = pool_module.FULL_POOL_MAX
    pool_module.FULL_POOL_MAX = 10**9
    try:
        yield
    finally:
        pool_module.FULL_POOL_MAX = old


def copy_prefix(k: int) -> str:
    """Letters that mark copy ``k`` (1 -> 'K', 2 -> 'L', ..., 13 -> 'W', 14 -> 'Y', 15 -> 'Z',
    16 -> 'KK', 17 -> 'LK'). Never 'X': in a code pattern ('XBF-3xx') it is a wildcard."""
    if k < 1:
        raise ValueError(f"copy index {k!r} must be at least 1")
    letters = string.ascii_uppercase[10:].replace("X", "")
    out = ""
    k -= 1
    while True:
        out += letters[k % len(letters)]
        k //= len(letters)
        if k == 0:
            return out
        k -= 1


def copy_subject(subject: str, k: int) -> str:
    """The subject of copy ``k``: digits written as letters (1 -> B), behind the prefix."""
    letters = "".join(chr(ord("A") + int(ch)) if ch.isdigit() else ch for ch in subject)
    out = copy_prefix(k) + letters
    if not 2 <= len(out) <= 5:
        raise ValueError(f"subject {subject!r} cannot be copied {k} times within 5 letters")
    return out


def copy_code(code: str, k: int) -> str:
    """Course code (or code pattern such as '15-3xx') ``code`` in copy ``k``."""
    if m := DIGIT_CODE.match(code):
        return f"{copy_subject(m.group(1), k)}-{m.group(2)}"
    if m := LETTER_CODE.match(code):
        return f"{copy_subject(m.group(1), k)}{m.group(2)}{m.group(3)}"
    raise ValueError(f"course code {code!r} has no subject to rename")


def _map_tree(node: Any, course: Callable[[str], str], program: Callable[[str], str]) -> Any:
    """A prerequisite tree (as JSON) with its course and program references renamed."""
    if isinstance(node, list):
        return [_map_tree(x, course, program) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _map_tree(v, course, program) for k, v in node.items()}
    if isinstance(out.get("course"), str):
        out["course"] = course(out["course"])
    if isinstance(out.get("program"), str):
        out["program"] = program(out["program"])
    return out


class _Copier:
    """Renames one copy's courses, programs, subjects and attributes."""

    def __init__(self, k: int, programs: set[str]) -> None:
        self.k = k
        self.programs = programs
        self.suffix = f"-{copy_prefix(k)}"

    def course(self, code: str) -> str:
        return copy_code(code, self.k)

    def program(self, code: str) -> str:
        return f"{code}{self.suffix}" if code in self.programs else code

    def attribute(self, name: str) -> str:
        return f"{name}{self.suffix}"

    def subject(self, name: str) -> str:
        return copy_subject(name, self.k)

    def copy_course(self, raw: Json, rng: random.Random, cross_share: float) -> Json:
        out = dict(raw)
        out["code"] = self.course(raw["code"])
        out["title"] = f"{raw['title']} ({copy_prefix(self.k)})"
        if raw.get("subject"):
            out["subject"] = self.subject(raw["subject"])
        attrs = [self.attribute(a) for a in raw.get("attributes", [])]
        if raw.get("attributes") and rng.random() < cross_share:
            attrs += list(raw["attributes"])  # cross-listed: counts toward the base sets too
        out["attributes"] = attrs
        for field in ("prerequisites", "corequisites"):
            if raw.get(field) is not None:
                out[field] = _map_tree(raw[field], self.course, self.program)
        out["antirequisites"] = [self.course(c) for c in raw.get("antirequisites", [])]
        return out

    def copy_requirement(self, node: Json) -> Json:
        out = dict(node)
        if node.get("course"):
            out["course"] = self.course(node["course"])
        for field in ("courses", "exclude"):
            if node.get(field):
                out[field] = [self.course(c) for c in node[field]]
        if node.get("patterns"):
            out["patterns"] = [self.course(p) for p in node["patterns"]]
        if node.get("attributes"):
            out["attributes"] = [self.attribute(a) for a in node["attributes"]]
        if node.get("subjects"):
            out["subjects"] = [self.subject(s) for s in node["subjects"]]
        if node.get("caps"):
            out["caps"] = [self.copy_requirement(c) for c in node["caps"]]
        if node.get("children"):
            out["children"] = [self.copy_requirement(c) for c in node["children"]]
        return out

    def copy_program(self, raw: Json) -> Json:
        out = dict(raw)
        out["code"] = self.program(raw["code"])
        out["name"] = f"{raw['name']} ({copy_prefix(self.k)})"
        out["aliases"] = []  # aliases name the base programs; copies go by code only
        out["requirement"] = self.copy_requirement(raw["requirement"])
        out["sharing"] = [
            {**s, "with_program": self.program(s["with_program"])}
            if s.get("with_program")
            else dict(s)
            for s in raw.get("sharing", [])
        ]
        for field in ("eligible_majors", "excluded_majors"):
            out[field] = [self.program(p) for p in raw.get(field, [])]
        return out


def _chain(
    k: int, n: int, rng: random.Random, attributes: Sequence[str], template: Json
) -> list[Json]:
    """Chain ``n`` of copy ``k``: 2-4 new courses, each requiring the one before; the last
    one carries one of the base catalog's ``attributes`` (a cross-link)."""
    length = rng.randint(2, 4)
    subject = copy_prefix(k) + "YZ"  # Y and Z spell no digit: no copied subject is named so
    out: list[Json] = []
    for step in range(length):
        code = f"{subject}-{(step + 1) * 100 + n:03d}"
        course: Json = {
            "code": code,
            "title": f"Chain {copy_prefix(k)}{n} part {step + 1}",
            "units": rng.choice(CHAIN_UNITS),
            "description": "A synthetic course of the enlarged benchmark catalog.",
            "department": "Synthetic Studies",
            "level": min(400, (step + 1) * 100),
            "attributes": [rng.choice(list(attributes))] if step == length - 1 else [],
            "offered": template["offered"],
            "sections": template.get("sections", []),
        }
        if out:
            course["prerequisites"] = {"course": out[-1]["code"]}
        out.append(course)
    return out


def enlarge_raw(
    base: Catalog,
    factor: int,
    *,
    seed: int = 0,
    cross_share: float = CROSS_SHARE,
    chains: int = CHAINS,
) -> Json:
    """The enlarged catalog as catalog JSON (see the module docstring)."""
    if factor < 1:
        raise ValueError(f"factor {factor!r} must be at least 1")
    raw: Json = base.model_dump(mode="json", exclude_unset=True)
    rng = random.Random(seed)
    courses: list[Json] = list(raw["courses"])
    programs: list[Json] = list(raw["programs"])
    versions: list[Json] = list(raw.get("program_versions", []))
    codes = {p["code"] for p in raw["programs"]}
    attributes = sorted({a for c in raw["courses"] for a in c.get("attributes", [])})
    template = next(c for c in raw["courses"] if not c.get("prerequisites"))
    for k in range(1, factor):
        copier = _Copier(k, codes)
        courses += [copier.copy_course(c, rng, cross_share) for c in raw["courses"]]
        programs += [copier.copy_program(p) for p in raw["programs"]]
        versions += [copier.copy_program(p) for p in raw.get("program_versions", [])]
        if attributes:
            for n in range(chains):
                courses += _chain(k, n, rng, attributes, template)
    raw["courses"] = courses
    raw["programs"] = programs
    raw["program_versions"] = versions
    return raw


def enlarge(
    base: Catalog,
    factor: int,
    *,
    seed: int = 0,
    cross_share: float = CROSS_SHARE,
    chains: int = CHAINS,
) -> Catalog:
    """``factor`` times ``base`` (see the module docstring), checked like a catalog file."""
    raw = enlarge_raw(base, factor, seed=seed, cross_share=cross_share, chains=chains)
    return parse_catalog(raw, source=f"<{factor}x catalog, seed {seed}>")


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m eval.gen_catalog", description=__doc__)
    p.add_argument("factor", type=int, help="copies of the base catalog (1: the base itself)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    p.add_argument("--base", type=Path, help="base catalog (default: the shipped sample)")
    p.add_argument("--out", type=Path, help="write here (default: standard output)")
    args = p.parse_args(argv)
    from pipeline.logs import configure_logging  # the CLI's logging: errors only

    configure_logging("error")
    catalog = enlarge(load_catalog(args.base), args.factor, seed=args.seed)
    text = json.dumps(catalog.model_dump(mode="json", exclude_unset=True), indent=1)
    if args.out is None:
        sys.stdout.write(text + "\n")
    else:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Requirement blocks of programs and specialisations as catalog requirement nodes.

A circles block lists course keys with the UOC to complete. The keys read here:

===================  ============================================  ======================
key                  meaning                                        catalog form
===================  ============================================  ======================
``COMP1511``         the course                                     ``course`` / listed
``A or B``           one of the courses                             ``n_of`` 1 / listed
``COMP3``, ``DART33``  any course whose code starts so              pattern ``COMP3xxx``
``BABS``             any course of the subject                      pattern ``BABSxxxx``
``....1``            any level-1 course                             ``min/max_level`` 1
``....``, any course  any course                                    ``min_level`` 0
===================  ============================================  ======================

A core block whose UOC is the sum of its courses is an ``all_of`` (alternatives as
``n_of`` 1); a core block asking for fewer UOC, and every elective block, is a
``course_set`` with ``min_units``. A block's ``levels`` restrict what its patterns match
(``min_level``/``max_level``). General education is a set of the courses circles flags
``gen_ed``, less those of the program's own faculty (UNSW counts only courses from outside
it). Limit rules, information rules and other kinds are not converted; each is counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from eval.unsw.source import Block
from eval.unsw.tally import Tally

SECTION = "Program and specialisation requirements (one per block)"
ITEMS = "Requirement list entries (one per course key)"

_COURSE = re.compile(r"[A-Z]{4}[0-9]{4}")
_ALTERNATIVES = re.compile(r"[A-Z]{4}[0-9]{4}(?: or [A-Z]{4}[0-9]{4})+")
_PREFIX = re.compile(r"([A-Z]{4})([0-9]{0,3})")
_ANY_LEVEL = re.compile(r"\.\.\.\.([0-9])")


@dataclass(frozen=True)
class CourseFacts:
    """What requirement conversion needs to know of the catalog's courses."""

    units: dict[str, int]  # code -> UOC
    level: dict[str, int]
    faculty: dict[str, str]
    gen_ed: frozenset[str]


@dataclass
class Selector:
    """The course keys of one block, read."""

    courses: list[str]
    alternatives: list[list[str]]
    patterns: list[str]
    any_levels: list[int]
    any_course: bool

    @property
    def listed(self) -> list[str]:
        out = list(self.courses)
        for alt in self.alternatives:
            out += [c for c in alt if c not in out]
        return out


def slug(text: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s or "block"


def read_items(block: Block, owner: str, facts: CourseFacts, tally: Tally) -> Selector:
    """Read a block's keys; keys naming courses outside the list, patterns that match no
    course and keys of no known form are counted and left out."""
    sel = Selector([], [], [], [], False)
    where = f"{owner} {(block.title or block.type)!r}"

    def outside(code: str) -> None:
        tally.add(ITEMS, "not converted", "course outside the list",
                  "A listed course that is not in the undergraduate list (postgraduate, "
                  "discontinued or 0 UOC): left out of the requirement.",
                  f"{where}: {code}")  # fmt: skip

    for item in block.items:
        key = item.key
        if _COURSE.fullmatch(key):
            if key in facts.units:
                sel.courses.append(key)
                tally.add(ITEMS, "exact", "course", "A listed course.", where)
            else:
                outside(key)
        elif _ALTERNATIVES.fullmatch(key):
            codes = key.split(" or ")
            kept = [c for c in codes if c in facts.units]
            for c in codes:
                if c not in facts.units:
                    outside(c)
            if len(kept) > 1:
                sel.alternatives.append(kept)
                tally.add(ITEMS, "exact", "one of several courses",
                          "`A or B`: an `n_of` 1 in a core block, both listed in a set.",
                          where)  # fmt: skip
            elif kept:
                sel.courses.append(kept[0])
        elif (m := _PREFIX.fullmatch(key)) and "X" not in m.group(1):
            pattern = m.group(1) + m.group(2) + "x" * (4 - len(m.group(2)))
            if any(re.fullmatch(pattern.replace("x", "[0-9]"), c) for c in facts.units):
                sel.patterns.append(pattern)
                tally.add(ITEMS, "exact", "courses by code prefix",
                          "`COMP3` (any level-3 COMP course) or `BABS` (any BABS course): a "
                          "code pattern such as `COMP3xxx`.", where)  # fmt: skip
            else:
                tally.add(ITEMS, "not converted", "prefix matching no course",
                          "A code prefix no undergraduate course has (e.g. COMP9, "
                          "postgraduate): left out - the loader refuses a pattern that "
                          "matches nothing.", f"{where}: {key}")  # fmt: skip
        elif m := _ANY_LEVEL.fullmatch(key):
            sel.any_levels.append(int(m.group(1)))
            tally.add(
                ITEMS,
                "exact",
                "any course of a level",
                "`....1` (any level-1 course): `min_level`/`max_level`.",
                where,
            )
        elif key in ("....", "any course"):
            sel.any_course = True
            tally.add(ITEMS, "exact", "any course", "Any course: `min_level: 0`.", where)
        else:
            tally.add(ITEMS, "not converted", "key of no known form",
                      "A specialisation code, an empty key or text (e.g. 'course offered by "
                      "School of...'): left out.", f"{where}: {key!r}")  # fmt: skip
    return sel


def block_node(
    block: Block, block_id: str, owner: str, faculty: str, facts: CourseFacts, tally: Tally
) -> dict[str, Any] | None:
    """The requirement node of one block, or None when it is not converted."""
    label = f"{owner} {(block.title or block.type)!r}"
    if block.has_notes:
        tally.add(
            SECTION,
            "not converted",
            "block note",
            "A block's prose note (e.g. 'with at least 12 UOC at level 3'): not "
            "parsed or copied; where it adds a rule, that rule is missing.",
            label,
        )
    if block.type == "gened":
        return _gen_ed(block, block_id, faculty, facts, tally, label)
    if block.type not in ("core_courses", "prescribed_electives"):
        why = {
            "limit_rule": "A limit over the whole program (e.g. at most 60 UOC of level-1 "
            "courses, at least 96 UOC of the faculty's courses) counting courses that count "
            "elsewhere too: the format's caps and sets live inside one requirement.",
            "info_rule": "Information for students (e.g. industrial training days, "
            "maturity rules stated in prose): no data to convert.",
        }.get(block.type, "A block of another kind: no data to convert.")
        tally.add(SECTION, "not converted", f"{block.type} block", why, label)
        return None
    if not block.credits:
        tally.add(
            SECTION,
            "not converted",
            "0 UOC block",
            "A block of 0 UOC (e.g. non-credit professional development, "
            "accreditation notes): the format's courses and sets need units.",
            label,
        )
        return None
    sel = read_items(block, owner, facts, tally)
    title = block.title or block_id
    if block.type == "core_courses" and not (sel.patterns or sel.any_levels or sel.any_course):
        node = _core(block, block_id, title, sel, facts, tally, label)
        if node is not None:
            return node
    return _course_set(block, block_id, title, sel, facts, tally, label)


def _core(
    block: Block, block_id: str, title: str, sel: Selector, facts: CourseFacts,
    tally: Tally, label: str,
) -> dict[str, Any] | None:  # fmt: skip
    total = sum(facts.units[c] for c in sel.courses) + sum(
        min(facts.units[c] for c in alt) for alt in sel.alternatives
    )
    if total == 0 or (block.credits or 0) < total:
        return None  # a choice among the listed courses: a course set
    children: list[dict[str, Any]] = [
        {"id": f"{block_id}-{c.lower()}", "kind": "course", "course": c} for c in sel.courses
    ]
    for alt in sel.alternatives:
        children.append(
            {
                "id": f"{block_id}-{'-or-'.join(c.lower() for c in alt)}",
                "kind": "n_of",
                "n": 1,
                "children": [
                    {"id": f"{block_id}-{alt[0].lower()}-{c.lower()}", "kind": "course",
                     "course": c}
                    for c in alt
                ],
            }
        )  # fmt: skip
    if total == block.credits:
        tally.add(
            SECTION,
            "exact",
            "core block",
            "Every listed course (one of each `A or B`): `all_of`.",
            label,
        )
    else:
        tally.add(
            SECTION,
            "approximate",
            "core block short of its UOC",
            "The listed courses that are in the catalog give fewer UOC than the block "
            "asks (some were left out): `all_of` of those that remain.",
            label,
        )
    return {"id": block_id, "title": title, "kind": "all_of", "children": children}


def _course_set(
    block: Block, block_id: str, title: str, sel: Selector, facts: CourseFacts,
    tally: Tally, label: str,
) -> dict[str, Any] | None:  # fmt: skip
    node: dict[str, Any] = {"id": block_id, "title": title, "kind": "course_set"}
    levels = sorted(set(block.levels))
    outcome = "exact"
    low: int | None
    high: int | None
    if sel.any_course:
        patterns: list[str] = []
        low, high = (levels[0], levels[-1]) if levels else (0, None)
    elif sel.any_levels and not sel.patterns:
        patterns = []
        lv = sorted(set(sel.any_levels))
        low, high = lv[0], lv[-1]
        if lv != list(range(low, high + 1)):
            outcome = "approximate"
    else:
        patterns = sel.patterns
        low, high = (levels[0], levels[-1]) if (levels and patterns) else (None, None)
        if sel.any_levels:
            outcome = "approximate"
    if levels and levels != list(range(levels[0], levels[-1] + 1)) and patterns:
        outcome = "approximate"
    if not (sel.listed or patterns or low is not None):
        tally.add(
            SECTION,
            "not converted",
            "block with no course left",
            "None of the block's entries is in the catalog.",
            label,
        )
        return None
    if sel.listed:
        node["courses"] = sel.listed
    if patterns:
        node["patterns"] = patterns
    if low is not None:
        node["min_level"] = low
    if high is not None:
        node["max_level"] = high
    if low is not None and not _level_matches(facts, low, high, patterns, sel.listed):
        tally.add(
            SECTION,
            "not converted",
            "block matching no course",
            "Its level restriction leaves no course: left out.",
            label,
        )
        return None
    node["min_units"] = block.credits
    if outcome == "exact":
        tally.add(SECTION, "exact", "elective block",
                  "UOC from listed courses, prefixes and levels: `course_set` with "
                  "`min_units`.", label)  # fmt: skip
    else:
        tally.add(SECTION, "approximate", "elective block with mixed level forms",
                  "Levels that are not one range, or `....N` beside code prefixes: one "
                  "`min_level`..`max_level` range stands for them.", label)  # fmt: skip
    return node


def _level_matches(
    facts: CourseFacts, low: int, high: int | None, patterns: list[str], listed: list[str]
) -> bool:
    if listed:
        return True
    regexes = [re.compile(p.replace("x", "[0-9]")) for p in patterns]
    for code, level in facts.level.items():
        if level < low or (high is not None and level > high):
            continue
        if not regexes or any(r.fullmatch(code) for r in regexes):
            return True
    return False


def _gen_ed(
    block: Block, block_id: str, faculty: str, facts: CourseFacts, tally: Tally, label: str
) -> dict[str, Any] | None:
    if not block.credits or not facts.gen_ed:
        tally.add(
            SECTION,
            "not converted",
            "gened block without courses",
            "No UOC or no general education course in the list.",
            label,
        )
        return None
    own = sorted(c for c in facts.gen_ed if faculty and facts.faculty.get(c) == faculty)
    tally.add(
        SECTION,
        "approximate",
        "general education block",
        "UOC of courses circles flags as general education (attribute `gen-ed`) less "
        "those of the program's own faculty; that a course counting toward the "
        "program's other parts is no general education is not stated.",
        label,
    )
    node: dict[str, Any] = {
        "id": block_id,
        "title": block.title or "General Education",
        "kind": "course_set",
        "attributes": ["gen-ed"],
        "min_units": block.credits,
    }
    if own:
        node["exclude"] = own
    return node

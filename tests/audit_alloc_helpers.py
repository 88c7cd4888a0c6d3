"""The brute-force side of the audit allocation tests (tests/test_audit_alloc*.py): random small
catalog-and-record instances, an enumerator, and checks of a report's allocation.

The enumerator tries every way to give each course to at most one leaf per program, knows the
grade rules (minimum grades, pass/fail, failed attempts, in-progress and planned courses
assumed to meet a minimum, course-set GPA over the counted courses), the requirement forms
(a set selected by attribute and restricted by subject and level, a subject minimum, caps on
what counts) and the sharing limit between the two programs, and nothing of the audit's code.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from hypothesis import strategies as st

from agents.audit import AuditReport, RequirementAudit
from agents.catalog import Catalog, StudentRecord
from tests.forms_helpers import LEVELS, SUBJECTS, Taken, accepts, forms, forms_ok

POINTS = {"A": 4.0, "B": 3.0, "C": 2.0, "D": 1.0}


CODES = [f"10-{100 + i}" for i in range(8)]


# What the record says about a course: a grade, pass/fail (P), in progress (IP), planned (PL),
# or a completed grade with a planned retake ("D+PL").
KINDS = ["-", "A", "B", "C", "D", "F", "P", "IP", "PL", "D+PL", "F+PL", "B+PL"]


MAJOR, MINOR = "ONE-BS", "TWO-MIN"


# --------------------------------------------------------------------------- instances


@st.composite
def leaf_specs(draw: st.DrawFn, codes: list[str], count: int) -> list[dict[str, Any]]:
    """``count`` leaves; each course belongs to at most two course sets of the program."""
    kinds = draw(st.lists(st.sampled_from(["course", "set"]), min_size=count, max_size=count))
    sets = [i for i, k in enumerate(kinds) if k == "set"]
    members: dict[int, list[str]] = {i: [] for i in sets}
    for code in codes:
        if sets:
            for i in draw(st.lists(st.sampled_from(sets), max_size=2, unique=True)):
                members[i].append(code)
    leaves = []
    for i, kind in enumerate(kinds):
        grade = draw(st.sampled_from([None, None, "C"]))
        if kind == "course":
            leaf: dict[str, Any] = {"kind": "course", "course": draw(st.sampled_from(codes))}
        else:
            leaf = {"kind": "course_set", "courses": members[i]}
            if draw(st.booleans()):  # selected by attribute (see ``trees``), new fields
                leaf = {"kind": "course_set", "members": members[i], **draw(forms())}
            if draw(st.booleans()):
                leaf["min_courses"] = draw(st.integers(1, 3))
            else:
                leaf["min_units"] = draw(st.sampled_from([9, 18, 20, 24]))
            gpa = draw(st.sampled_from([None, None, 2.5, 3.0]))
            if gpa is not None:
                leaf["min_gpa"] = gpa
        if grade:
            leaf["min_grade"] = grade
        leaves.append(leaf)
    return leaves


@st.composite
def trees(draw: st.DrawFn, codes: list[str], count: int, prefix: str) -> dict[str, Any]:
    leaves = draw(leaf_specs(codes, count))
    for i, leaf in enumerate(leaves):
        leaf["id"] = f"{prefix}-l{i}"
        if "members" in leaf:  # its members carry an attribute of their own
            leaf["attributes"] = [f"in-{leaf['id']}"]

    def group(kids: list[dict[str, Any]], gid: str) -> dict[str, Any]:
        if len(kids) > 1 and draw(st.booleans()):
            return {
                "kind": "n_of",
                "id": gid,
                "n": draw(st.integers(1, len(kids))),
                "children": kids,
            }
        return {"kind": "all_of", "id": gid, "children": kids}

    if len(leaves) >= 3 and draw(st.booleans()):
        return group([group(leaves[:2], f"{prefix}-g"), *leaves[2:]], f"{prefix}-root")
    return group(leaves, f"{prefix}-root")


@st.composite
def instances(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(2, 8))
    codes = CODES[:n]
    two = draw(st.booleans())
    total = draw(st.integers(2 if two else 1, 5))
    first = draw(st.integers(1, total - 1)) if two else total
    programs = [(MAJOR, draw(trees(codes, first, "a")))]
    limit = None
    if two:
        programs.append((MINOR, draw(trees(codes, total - first, "b"))))
        limit = draw(st.sampled_from([None, 0, 1, 1, 2, 2]))
    return {
        "units": dict(
            zip(
                codes,
                draw(st.lists(st.sampled_from([9, 10, 12]), min_size=n, max_size=n)),
                strict=True,
            )
        ),
        "subjects": dict(
            zip(
                codes,
                draw(st.lists(st.sampled_from(SUBJECTS), min_size=n, max_size=n)),
                strict=True,
            )
        ),
        "levels": dict(
            zip(codes, draw(st.lists(st.sampled_from(LEVELS), min_size=n, max_size=n)), strict=True)
        ),
        "record": dict(
            zip(codes, draw(st.lists(st.sampled_from(KINDS), min_size=n, max_size=n)), strict=True)
        ),
        "programs": programs,
        "limit": limit,
    }


def build(inst: dict[str, Any]) -> tuple[Catalog, StudentRecord, dict[str, str]]:
    marks = [
        (f"in-{leaf['id']}", leaf["members"])
        for _code, tree in inst["programs"]
        for leaf in walk(tree)
        if "members" in leaf
    ]
    courses = [
        {
            "code": c,
            "title": f"Course {c}",
            "units": u,
            "department": "X",
            "subject": inst.get("subjects", {}).get(c, "XX"),
            "level": inst.get("levels", {}).get(c, 100),
            "offered": {"terms": ["fall", "spring"]},
            "attributes": [attr for attr, codes in marks if c in codes],
        }
        for c, u in inst["units"].items()
    ]
    programs = []
    for code, tree in inst["programs"]:
        prog: dict[str, Any] = {
            "code": code,
            "name": code,
            "kind": "major" if code == MAJOR else "minor",
            "catalog_year": "2026-2027",
            "department": "X",
            "requirement": _without_members(tree),
        }
        if code == MINOR and inst["limit"] is not None:
            prog["sharing"] = [{"with_kind": "major", "max_courses": inst["limit"]}]
        programs.append(prog)
    catalog = Catalog.model_validate(
        {
            "schema_version": 2,
            "institution": {"name": "Test"},
            "catalog_year": "2026-2027",
            "courses": courses,
            "programs": programs,
            "policies": [],
            "documents": [],
        }
    )
    rows: list[dict[str, Any]] = []
    planned: dict[str, str] = {}
    for code, kind in inst["record"].items():
        grade, _, plan = kind.partition("+")
        if grade == "IP":
            rows.append({"course": code, "term": "S2027", "status": "in_progress"})
        elif grade == "PL":
            planned[code] = "F2027"
        elif grade != "-":
            rows.append(
                {"course": code, "term": "F2025", "grade": grade, "pass_fail": grade == "P"}
            )
        if plan:
            planned[code] = "F2027"
    student = StudentRecord.model_validate(
        {
            "id": "S-1",
            "name": "Test",
            "programs": [code for code, _ in inst["programs"]],
            "catalog_year": "2026-2027",
            "start_term": "F2025",
            "current_term": "S2027",
            "courses": rows,
        }
    )
    return catalog, student, planned


# --------------------------------------------------------------------------- the enumerator


def counted_as(kind: str, min_grade: str | None, planned: bool) -> tuple[str, str | None] | None:
    """How a course counts toward a leaf: (status, grade), or None when it cannot."""
    grade, _, plan = kind.partition("+")
    passed = grade in POINTS or grade == "P"
    if passed and (min_grade is None or (grade != "P" and POINTS[grade] >= POINTS[min_grade])):
        return "completed", grade
    if grade == "IP":
        return "in_progress", None
    if planned and (grade == "PL" or plan):
        return "planned", None
    return None


def _without_members(node: dict[str, Any]) -> dict[str, Any]:
    """The requirement as the catalog has it: ``members`` is the generator's note of the
    courses carrying a set's attribute."""
    out = {k: v for k, v in node.items() if k != "members"}
    if "children" in node:
        out["children"] = [_without_members(c) for c in node["children"]]
    return out


def leaf_ok(leaf: dict[str, Any], taken: Taken, inst: dict[str, Any] | None = None) -> bool:
    """``taken``: (status, grade, units, code) of the courses counted toward the leaf."""
    if leaf["kind"] == "course":
        return bool(taken)
    if len(taken) < leaf.get("min_courses", 0):
        return False
    if sum(t[2] for t in taken) < leaf.get("min_units", 0) - 1e-9:
        return False
    if inst is not None and not forms_ok(leaf, taken, inst):
        return False
    graded = [(POINTS[g], u) for s, g, u, _ in taken if s == "completed" and g in POINTS]
    if "min_gpa" in leaf and graded:
        gpa = round(sum(p * u for p, u in graded) / sum(u for _, u in graded), 2)
        return gpa >= leaf["min_gpa"] - 1e-9
    return True


def walk(node: dict[str, Any]) -> list[dict[str, Any]]:
    return [node, *(n for c in node.get("children", []) for n in walk(c))]


def met_ids(node: dict[str, Any], leaf_met: dict[str, bool]) -> set[str]:
    out: set[str] = set()

    def visit(n: dict[str, Any]) -> bool:
        if "children" not in n:
            ok = leaf_met[n["id"]]
        else:
            kids = [visit(c) for c in n["children"]]
            ok = sum(kids) >= (n["n"] if n["kind"] == "n_of" else len(kids))
        if ok:
            out.add(n["id"])
        return ok

    visit(node)
    return out


class Enumerator:
    """Every (met nodes, courses used) a program can reach, and the questions over them."""

    def __init__(self, inst: dict[str, Any], planned: bool = True) -> None:
        self.limit = inst["limit"]
        self.reach: list[set[tuple[frozenset[str], int]]] = []
        codes = list(inst["record"])
        for _code, tree in inst["programs"]:
            leaves = [n for n in walk(tree) if "children" not in n]
            choices: list[list[tuple[int, tuple[str, str | None]] | None]] = []
            for code in codes:
                kind = inst["record"][code]
                mine: list[tuple[int, tuple[str, str | None]] | None] = [None]
                for i, leaf in enumerate(leaves):
                    fits = accepts(leaf, inst, code)
                    how = counted_as(kind, leaf.get("min_grade"), planned) if fits else None
                    if how is not None:
                        mine.append((i, how))
                choices.append(mine)
            reach: set[tuple[frozenset[str], int]] = set()
            for combo in product(*choices):
                taken: list[Taken] = [[] for _ in leaves]
                used = 0
                for bit, (code, pick) in enumerate(zip(codes, combo, strict=True)):
                    if pick is not None:
                        taken[pick[0]].append((*pick[1], inst["units"][code], code))
                        used |= 1 << bit
                ok = {
                    leaf["id"]: leaf_ok(leaf, t, inst)
                    for leaf, t in zip(leaves, taken, strict=True)
                }
                reach.add((frozenset(met_ids(tree, ok)), used))
            self.reach.append(reach)

    def feasible(self, required: list[set[str]]) -> bool:
        """Whether one allocation meets every node in ``required`` (one set per program)."""
        masks = [
            {used for met, used in reach if need <= met}
            for reach, need in zip(self.reach, required, strict=True)
        ]
        if not all(masks):
            return False
        if len(masks) == 1 or self.limit is None:
            return True
        return any((a & b).bit_count() <= self.limit for a in masks[0] for b in masks[1])


# --------------------------------------------------------------------------- report helpers


def nodes(root: RequirementAudit) -> list[tuple[RequirementAudit, list[RequirementAudit]]]:
    """(node, ancestors) in tree order."""
    out: list[tuple[RequirementAudit, list[RequirementAudit]]] = []

    def visit(n: RequirementAudit, up: list[RequirementAudit]) -> None:
        out.append((n, up))
        for c in n.children:
            visit(c, [*up, n])

    visit(root, [])
    return out


def met_sets(report: AuditReport) -> list[set[str]]:
    return [{n.id for n, _ in nodes(p.root) if n.status == "met"} for p in report.programs]


def check_allocation(inst: dict[str, Any], report: AuditReport) -> None:
    """The report's allocation follows the rules and its statuses follow from it."""
    counted: list[set[str]] = []
    for (_code, tree), program in zip(inst["programs"], report.programs, strict=True):
        specs = {n["id"]: n for n in walk(tree)}
        courses = [c.course for n, _ in nodes(program.root) for c in n.counted]
        assert len(courses) == len(set(courses)), f"{program.code} counts a course twice"
        counted.append(set(courses))
        for n, _ in reversed(nodes(program.root)):
            spec = specs[n.id]
            if "children" in spec:
                kids = [c.status == "met" for c in n.children]
                need = spec["n"] if spec["kind"] == "n_of" else len(kids)
                assert (n.status == "met") == (sum(kids) >= need), n.id
                continue
            taken: Taken = []
            for c in n.counted:
                assert accepts(spec, inst, c.course), (n.id, c.course)
                how = counted_as(inst["record"][c.course], spec.get("min_grade"), True)
                assert how == (c.status, c.grade), (n.id, c.course)
                taken.append((c.status, c.grade, c.units, c.course))
            caps_kept = leaf_ok({"kind": "course_set", "caps": spec.get("caps", [])}, taken, inst)
            assert caps_kept, f"{n.id} counts a course beyond a cap"
            assert (n.status == "met") == leaf_ok(spec, taken, inst), n.id
    if len(counted) == 2 and inst["limit"] is not None:
        assert len(counted[0] & counted[1]) <= inst["limit"]

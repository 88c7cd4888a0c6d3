"""courses.csv from circles' course list: the undergraduate courses with their units,
levels, offering terms, exclusions and lowered conditions.

Choices, each counted in the tally:

- terms: UNSW's ``T0`` (summer) and ``T1``-``T3`` are the calendar's kinds; UNSW Canberra's
  semesters are placed in the trimester they overlap most (``S1`` -> T1, ``S2`` -> T3, its
  summer ``SC`` -> T0);
- a course with no term in the 2022 data is ``dormant`` with the pattern T1;T2;T3 (the
  format needs a pattern; dormant makes the planner use it only where nothing else serves);
- 0-UOC courses are left out (a course's units must be above 0);
- exclusions and equivalents become antirequisites when the other course is in the list;
- a course whose dropped condition restricted it to some students, whose condition could
  not be read, or that is taught at UNSW Canberra is ``free_elective: no``.
"""

from __future__ import annotations

from dataclasses import dataclass

from eval.unsw.conditions import COURSE_RE, ConditionSyntaxError, Problem, parse_condition
from eval.unsw.lowering import Known, Lowered, break_cycles, count, lower, to_expression
from eval.unsw.source import Source, SourceCourse
from eval.unsw.tally import Tally

COURSES = "Courses"
CONDITIONS = "Course conditions (one per course)"
EXCLUSIONS = "Exclusions and equivalents (one per listed course)"

TERM_MAP = {
    "T0": ("T0", "exact"), "T1": ("T1", "exact"), "T2": ("T2", "exact"), "T3": ("T3", "exact"),
    "Term 1": ("T1", "exact"), "Term 2": ("T2", "exact"), "Term 3": ("T3", "exact"),
    "S1": ("T1", "approximate"), "S2": ("T3", "approximate"), "SC": ("T0", "approximate"),
}  # fmt: skip
KIND_ORDER = ("T0", "T1", "T2", "T3")
NO_TERM_PATTERN = "T1;T2;T3"
OTHER_CAMPUSES = {"UNSW Canberra": "campus-canberra", "Paddington": "campus-paddington"}

UNREAD: dict[Problem, tuple[str, str]] = {
    "text": ("expression with free text",
             "Words circles' own parser left in the expression (e.g. 'in one of the "
             "following streams', 'enrolment in ...')."),
    "operator": ("expression with a missing operator",
                 "Two conditions with no `&&` or `||` between them (e.g. "
                 "'MUSC2703 (12UOC)')."),
    "ambiguous": ("ambiguous `&&`/`||` beside a bracketed group",
                  "`(A && B) || C && D`: which operator binds tighter is not said."),
    "structure": ("expression with unbalanced brackets",
                  "Brackets or operators out of place."),
}  # fmt: skip

COLUMNS = (
    "code", "title", "units", "department", "level", "attributes", "offered_terms",
    "prerequisites", "corequisites", "antirequisites", "status", "free_elective",
)  # fmt: skip


@dataclass(frozen=True)
class CourseRow:
    """One row of courses.csv, as text cells."""

    cells: dict[str, str]

    @property
    def code(self) -> str:
        return self.cells["code"]


def undergraduate(source: Source, tally: Tally) -> list[SourceCourse]:
    """The courses the catalog keeps, in code order; the others are counted (the first
    row even at 0: the task asks how many were left out)."""
    tally.add(
        COURSES,
        "not converted",
        "not undergraduate",
        "Outside the task's scope (study_level is not Undergraduate).",
        "",
        n=0,
    )
    kept = []
    for code, c in sorted(source.courses.items()):
        if c.study_level != "Undergraduate":
            tally.add(
                COURSES,
                "not converted",
                "not undergraduate",
                "Outside the task's scope (study_level is not Undergraduate).",
                code,
            )
        elif c.uoc <= 0:
            tally.add(COURSES, "not converted", "0 UOC",
                      "A course's units must be above 0 in the format; its references are "
                      "dropped too.", code)  # fmt: skip
        else:
            kept.append(c)
    return kept


def course_rows(source: Source, programs: set[str], tally: Tally) -> list[CourseRow]:
    """courses.csv's rows: the undergraduate list with every fact converted."""
    kept = undergraduate(source, tally)
    known = Known(courses={c.code for c in kept}, programs=programs)
    lowered = {c.code: _conditions(source, c.code, known, tally) for c in kept}
    pre = break_cycles({k: v.prerequisites for k, v in lowered.items()}, tally)
    rows = []
    for c in kept:
        low = lowered[c.code]
        terms, status = _terms(c, tally)
        attributes = (["gen-ed"] if c.gen_ed else []) + (
            [OTHER_CAMPUSES[c.campus]] if c.campus in OTHER_CAMPUSES else []
        )
        free = not (low.arranged or low.unread or c.campus == "UNSW Canberra")
        if c.campus == "UNSW Canberra":
            tally.add(COURSES, "approximate", "UNSW Canberra course",
                      "Taught only at UNSW Canberra (ADFA): the format cannot restrict a "
                      "course to a campus; marked `free_elective: no` (never added as "
                      "filler) and tagged `campus-canberra`.", c.code)  # fmt: skip
        tally.add(COURSES, "exact", "course (code, title, UOC, level, school)",
                  "Code, title, units of credit, level and school (faculty where no school "
                  "is given) as listed; no description is copied.", c.code)  # fmt: skip
        rows.append(
            CourseRow(
                {
                    "code": c.code,
                    "title": c.title or c.code,
                    "units": str(c.uoc),
                    "department": c.school or c.faculty or "UNSW",
                    "level": str(c.level),
                    "attributes": ";".join(attributes),
                    "offered_terms": terms,
                    "prerequisites": to_expression(pre[c.code]),
                    "corequisites": to_expression(low.corequisites),
                    "antirequisites": ";".join(_antirequisites(c, known, tally)),
                    "status": status,
                    "free_elective": "" if free else "no",
                }
            )
        )
    return rows


def _conditions(source: Source, code: str, known: Known, tally: Tally) -> Lowered:
    cond = source.conditions.get(code)
    if cond is None or not cond.processed:
        if cond is not None and cond.has_text:
            tally.add(CONDITIONS, "not converted", "handbook text without an expression",
                      "circles left no expression for the handbook's text (often an "
                      "exclusion or a note only; sometimes a condition it could not read); "
                      "the text itself is not parsed here.", code)  # fmt: skip
        else:
            tally.add(CONDITIONS, "exact", "no conditions", "None stated.", code)
        return Lowered(None, None)
    try:
        tree = parse_condition(cond.processed)
    except ConditionSyntaxError as exc:
        label, why = UNREAD[exc.problem]
        tally.add(CONDITIONS, "not converted", label,
                  why + " No prerequisite is kept; the course is `free_elective: no`.",
                  f"{code} ({exc.token!r})" if exc.token else code)  # fmt: skip
        return Lowered(None, None, unread=True)
    low = lower(code, tree, known)
    count(tally, code, low.rules)
    if cond.has_note:
        tally.add(CONDITIONS, "approximate", "expression with a handbook note",
                  "circles keeps a note that qualifies the expression (e.g. the UOC must be "
                  "in Computer Science); the note is not applied.", code)  # fmt: skip
    elif low.exact:
        tally.add(CONDITIONS, "exact", "expression converted exactly",
                  "Every leaf has a catalog form (courses, corequisites, units, programs of "
                  "this catalog).", code)  # fmt: skip
    else:
        tally.add(CONDITIONS, "approximate", "expression converted approximately",
                  "At least one leaf was approximated or dropped (rows of the table "
                  "below).", code)  # fmt: skip
    return low


def _terms(c: SourceCourse, tally: Tally) -> tuple[str, str]:
    """(offered_terms, status) of a course."""
    kinds: set[str] = set()
    for t in c.terms:
        mapped = TERM_MAP.get(t.strip())
        if mapped is None:
            tally.add(COURSES, "not converted", "unknown offering term",
                      "A term name outside T0-T3, Term 1-3, S1, S2, SC: ignored.",
                      f"{c.code} ({t!r})")  # fmt: skip
            continue
        kind, outcome = mapped
        kinds.add(kind)
        if outcome == "approximate":
            tally.add(COURSES, "approximate", "semester offering placed in a trimester",
                      "UNSW Canberra's S1 is placed in T1, S2 in T3 and its summer SC in T0 "
                      "(the trimester each overlaps most); the catalog has one calendar.",
                      f"{c.code} ({t})")  # fmt: skip
    if not kinds:
        tally.add(COURSES, "approximate", "no 2022 offering: dormant",
                  "No term is listed for 2022: `status: dormant` with the pattern T1;T2;T3 "
                  "(the format needs a pattern); the planner uses it only where no other "
                  "course serves, and the critique names it as a risk.", c.code)  # fmt: skip
        return NO_TERM_PATTERN, "dormant"
    return ";".join(k for k in KIND_ORDER if k in kinds), ""


def _antirequisites(c: SourceCourse, known: Known, tally: Tally) -> list[str]:
    out: list[str] = []
    for other in c.exclusions:
        if not COURSE_RE.fullmatch(other):
            tally.add(EXCLUSIONS, "not converted", "exclusion of a program or text",
                      "An exclusion that names a program, a specialisation pattern or left-"
                      "over text: the format's antirequisites are courses only.",
                      f"{c.code} ({other})")  # fmt: skip
        elif other == c.code:
            tally.add(
                EXCLUSIONS,
                "not converted",
                "exclusion of itself",
                "The course listed as excluding itself: dropped.",
                c.code,
            )
        elif other not in known.courses:
            tally.add(EXCLUSIONS, "not converted", "exclusion outside the list",
                      "The excluded course is not in the undergraduate list: dropped.",
                      f"{c.code} ({other})")  # fmt: skip
        else:
            tally.add(EXCLUSIONS, "exact", "exclusion", "An antirequisite.", c.code)
            out.append(other)
    for other in c.equivalents:
        if other in known.courses and other != c.code:
            tally.add(
                EXCLUSIONS,
                "approximate",
                "equivalent course",
                "An antirequisite (no credit for both); that it also satisfies the "
                "other's prerequisites cannot be stated.",
                f"{c.code} ({other})",
            )
            if other not in out:
                out.append(other)
        else:
            tally.add(EXCLUSIONS, "not converted", "equivalent outside the list",
                      "The equivalent course is not in the undergraduate list: dropped.",
                      f"{c.code} ({other})")  # fmt: skip
    return sorted(out)

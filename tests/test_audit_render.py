"""Degree audit: the plain-text rendering of a report, checked exactly for the sharing case on
the mini catalog (see tests/audit_helpers.py), with course sources, notes and warnings."""

from __future__ import annotations

from agents.audit import audit, render_audit
from agents.catalog import Catalog
from tests.audit_helpers import MIXED, SHARING, catalog, student

__all__ = ["catalog"]  # the module fixture, imported so pytest finds it here


RENDERED_SHARING = """\
Degree audit for S-100 (catalog 2026-2027, as of S2027)
Standing: first year | GPA: 3.50 | Units: 40 earned, 0 in progress, 0 planned
Result: requirements remain

CS-BS Computer Science, B.S. (major) [partly met]
  [partly met] B.S. in Computer Science: 3 of 7 parts met; still open: Core courses, Systems or \
theory, CS electives, Humanities
    [unmet] Core courses: 0 of 3 parts met; still open: Fundamentals, Imperative computation, \
Functional programming
      [unmet] Fundamentals: 15-112 not taken yet
          - needs 1 course, 12 units; options: 15-112
      [unmet] Imperative computation: 15-122 not taken yet (minimum grade C)
          - needs 1 course, 12 units; options: 15-122
      [unmet] Functional programming: 15-150 not taken yet
          - needs 1 course, 12 units; options: 15-150
    [unmet] Systems or theory: needs 1 more of: 15-213, 15-251
      [unmet] 15-213: 15-213 not taken yet
          - needs 1 course, 12 units; options: 15-213
      [unmet] 15-251: 15-251 not taken yet
          - needs 1 course, 12 units; options: 15-251
    [unmet] CS electives: 0 of 2 courses counted (minimum grade C); needs 2 more courses from: \
15-312, 15-317, 15-351
        - needs 2 courses, 24 units; options: 15-312, 15-317, 15-351
    [met] Concepts of mathematics: 21-127 completed with B in F2025
        + 21-127 Concepts of Mathematics | B | F2025 | 10 units | completed
    [met] Linear algebra: 1 of 2 options met; 1 needed
      [met] 21-241: 21-241 completed with B in S2026
          + 21-241 Matrices and Linear Transformations | B | S2026 | 10 units | completed
      [unmet] Linear algebra (option): not needed: Linear algebra needs 1 and has 1 met
    [met] Math elective: 1 of 1 course counted
        + 21-259 Calculus in Three Dimensions | A | S2026 | 10 units | completed
    [unmet] Humanities: 0 of 18 units counted; needs 18 more units from: 79-104, 80-100, 85-102
        - needs 18 units; options: 79-104, 80-100, 85-102
  [partly met] Total units: 120 units required; 40 counted (40 earned, 0 in progress, 0 \
planned); needs 80 more
      - needs 80 units
  Shared: 21-127 (F2025) counts toward Concepts of mathematics here and Concepts of mathematics \
in MATH-MIN
  Sharing: At most 1 course may count toward both CS-BS and MATH-MIN (rule SHARE-MINOR); \
shared: 21-127.

MATH-MIN Mathematics Minor (minor) [partly met]
  [partly met] Mathematics minor: 1 of 2 parts met; still open: Upper-level mathematics
    [met] Concepts of mathematics: 21-127 completed with B in F2025
        + 21-127 Concepts of Mathematics | B | F2025 | 10 units | completed
    [partly met] Upper-level mathematics: 1 of 2 courses counted; needs 1 more course, and no \
catalog course is left to count; 21-241, 21-259 already count toward CS-BS, and at most 1 \
course may be shared with CS-BS (rule SHARE-MINOR), already used by 21-127
        + 21-242 Matrix Theory | A | F2026 | 10 units | completed
        - needs 1 course, 10 units
  [met] Program GPA: program GPA 3.50 meets the minimum 2.00
  Shared: 21-127 (F2025) counts toward Concepts of mathematics here and Concepts of mathematics \
in CS-BS
  Sharing: At most 1 course may count toward both MATH-MIN and CS-BS (rule SHARE-MINOR); \
shared: 21-127.
  Sharing: Kept out of MATH-MIN by the limit with CS-BS: 21-241, 21-259 (already counted toward \
CS-BS).
"""


def test_render_of_the_sharing_case_is_exact(catalog: Catalog) -> None:
    text = render_audit(audit(catalog, student(SHARING, ("CS-BS", "MATH-MIN"))))
    assert text == RENDERED_SHARING
    assert "\x1b" not in text


def test_render_shows_sources_notes_and_warnings(catalog: Catalog) -> None:
    report = audit(catalog, student(MIXED), planned={"15-122": "F2027"})
    text = render_audit(report)
    assert (
        "          + 15-112 Fundamentals of Programming | TR | F2025 | 12 units | completed, "
        "transfer credit\n" in text
    )
    assert (
        "          + 15-122 Principles of Imperative Computation | - | F2027 | 12 units | planned "
        "(retake; also C- in S2026)\n" in text
    )
    assert text.endswith(
        "\nWarnings:\n  - planned course 15-122 (F2027) was already passed with C- in S2026; a "
        "retake earns no new units\n"
    )

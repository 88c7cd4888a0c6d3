"""The student's record as the planner reads it: credit per course and units earned."""

from __future__ import annotations

from dataclasses import dataclass

from agents.catalog import Catalog, StudentRecord

IN_PROGRESS_POINTS = 99.0  # an in-progress course is assumed passed with any grade needed


@dataclass
class History:
    """What the record already gives: credit per course and units earned."""

    passed: set[str]  # credit earned, or in progress (assumed passed)
    points: dict[str, float]  # best graded (not pass/fail) points; in progress: any grade
    have: set[str]  # courses whose planned retake earns no new units (the audit's view)
    units_earned: float

    def ok(self, course: str, min_grade: str | None, catalog: Catalog) -> bool:
        """Whether the record satisfies ``course`` at ``min_grade`` (in progress: assumed)."""
        if min_grade is None:
            return course in self.passed
        pts = self.points.get(course)
        return pts is not None and pts >= catalog.grade_by_symbol[min_grade].points


def read_history(catalog: Catalog, student: StudentRecord) -> History:
    """Credit from completed passing attempts and in-progress attempts (assumed passed).

    A pass/fail attempt earns credit but never meets a minimum grade (as in the audit).
    Units earned come from ``StudentRecord.units_earned`` so planner and audit agree.
    """
    passed: set[str] = set()
    points: dict[str, float] = {}
    for a in student.courses:
        if a.status == "in_progress":
            pts = IN_PROGRESS_POINTS
        elif catalog.grade_meets(a.grade, None):
            passed.add(a.course)
            if a.pass_fail or a.grade == "P" or a.grade is None:
                continue
            pts = catalog.grade_by_symbol[a.grade].points
        else:
            continue
        passed.add(a.course)
        points[a.course] = max(points.get(a.course, -1.0), pts)
    return History(
        passed=passed,
        points=points,
        have=student.earned_courses(catalog, include_in_progress=True),
        units_earned=student.units_earned(catalog, include_in_progress=True),
    )

"""Calendars of the kinds real schools run, for the calendar and credit tests."""

from __future__ import annotations

from agents.catalog import SEMESTER_CALENDAR, Calendar, TermKind

QUARTER = Calendar(
    system="quarter",
    terms=[
        TermKind(code="W", name="Winter", aliases=["winter quarter"], months=[1, 2, 3]),
        TermKind(code="S", name="Spring", aliases=["spring quarter"], months=[4, 5, 6]),
        TermKind(code="U", name="Summer", regular=False, months=[7, 8]),
        TermKind(code="F", name="Fall", aliases=["autumn"], months=[9, 10, 11, 12]),
    ],
    academic_year_starts="F",
)

TRIMESTER = Calendar(
    system="trimester",
    terms=[
        TermKind(code="T2", name="Winter Trimester", aliases=["winter", "t2"], months=[1, 2, 3]),
        TermKind(code="T3", name="Spring Trimester", aliases=["spring", "t3"], months=[4, 5, 6]),
        TermKind(code="U", name="Summer", regular=False, months=[7, 8]),
        TermKind(code="T1", name="Fall Trimester", aliases=["fall", "t1"], months=[9, 10, 11]),
    ],
    academic_year_starts="T1",
)

FOUR_ONE_FOUR = Calendar(
    system="4-1-4",
    terms=[
        TermKind(code="J", name="January Interim", aliases=["J-term", "interim"], regular=False),
        TermKind(code="S", name="Spring", months=[2, 3, 4, 5]),
        TermKind(code="U", name="Summer", regular=False, months=[6, 7, 8]),
        TermKind(code="F", name="Fall", months=[9, 10, 11, 12]),
    ],
    academic_year_starts="F",
)

CALENDARS = {
    "semester": SEMESTER_CALENDAR,
    "quarter": QUARTER,
    "trimester": TRIMESTER,
    "4-1-4": FOUR_ONE_FOUR,
}

"""Test scores and placements as prerequisites (issue #28, item 6): the student record holds
the tests taken (``ExamTaken``: AP, IB, placement exams), and a prerequisite tree can ask for
one (``ScoreCond``): "AP Calculus BC score of 4 or placement into MATH 2B" is
``score(AP-CALC-BC, 4) or placement(MATH-PLACEMENT, MATH 2B)``."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field


class ScoreCond(BaseModel):
    """A test score or placement result the student's record holds (``StudentRecord.tests``):
    "AP Calculus BC score of 4" is ``score(AP-CALC-BC, 4)``, "placement into MATH 2B" is
    ``placement(MATH-PLACEMENT, MATH 2B)``. A fact of the record: it holds or not, whatever
    the term."""

    test: str = Field(
        min_length=1, description="Test id as the record writes it, e.g. 'AP-CALC-BC'."
    )
    min_score: float | None = Field(default=None, description="Lowest score that satisfies it.")
    result: str | None = Field(
        default=None, description="The result asked for (a placement), e.g. 'MATH 2B'."
    )

    def met_by(self, tests: Sequence[ExamTaken]) -> bool:
        """Whether one of ``tests`` (the record's) satisfies the condition."""
        return any(
            t.test == self.test
            and (self.min_score is None or (t.score is not None and t.score >= self.min_score))
            and (self.result is None or t.result == self.result)
            for t in tests
        )


class ExamTaken(BaseModel):
    """A test the student took, as the record holds it (AP, IB, a placement exam)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    test: str = Field(min_length=1, description="Test id, e.g. 'AP-CALC-BC', 'MATH-PLACEMENT'.")
    score: float | None = Field(default=None, description="The score, when it has one.")
    result: str | None = Field(
        default=None, description="The result, when it is a placement, e.g. 'MATH 2B'."
    )
    date: str | None = Field(default=None, description="When it was taken (YYYY-MM-DD).")

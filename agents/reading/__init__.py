"""What the intake stage reads from a request: the goals (graduation target, load caps and
wishes, optional terms: ``goals``), the programs the plan is for and their catalog years
(``programs``), the concentrations a major requires (``concentrations``) and the student's
own overrides - pinned and forced courses (``overrides``)."""

from agents.reading.concentrations import assume_concentrations
from agents.reading.goals import Collector, read_goals, term_or_ask
from agents.reading.overrides import read_overrides
from agents.reading.programs import program_years, read_programs, settle_intent

__all__ = [
    "Collector",
    "assume_concentrations",
    "program_years",
    "read_goals",
    "read_overrides",
    "read_programs",
    "settle_intent",
    "term_or_ask",
]

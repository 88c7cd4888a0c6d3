"""One kind of term of a catalog's calendar (``agents.catalog.terms.Calendar.terms``)."""

from __future__ import annotations

from pydantic import Field

from agents.catalog.base import CatalogModel
from agents.catalog.sessions import TermSession
from agents.catalog.term_dates import TypicalDates

KIND_CODE_PATTERN = r"^[A-Z][A-Z0-9]{0,2}$"


class TermKind(CatalogModel):
    """One kind of term in the calendar (fall, winter quarter, T2, January interim)."""

    code: str = Field(pattern=KIND_CODE_PATTERN, description="Code, e.g. 'F', 'W', 'T1', 'J'.")
    name: str = Field(min_length=1, description="Readable name, e.g. 'Fall', 'Winter Quarter'.")
    aliases: list[str] = Field(
        default_factory=list,
        description="Other names people write, e.g. 'autumn', 'J-term'; matched ignoring case.",
    )
    regular: bool = Field(
        default=True,
        description="Regular terms carry the load rules and full-time status and are planned "
        "by default; optional terms (summer, interim) only when a request allows them.",
    )
    months: list[int] = Field(
        default_factory=list,
        description="Calendar months (1-12) the term runs in, to read 'May 2027' in requests.",
    )
    main: bool | None = Field(
        default=None,
        description="Whether this is a main term: 'next term' / 'next semester' mean the next "
        "main term. Unset: a regular kind is main unless its standard load or typical length "
        "is under half the main ones' (a January interim); see agents.catalog.main_terms.",
    )
    typical_dates: TypicalDates | None = Field(
        default=None,
        description="When a term of this kind usually runs, for terms the calendar's dates "
        "do not list (years no published calendar covers yet).",
    )
    sessions: list[TermSession] = Field(
        default_factory=list,
        description="Sessions within a term of this kind (summer I, II, a 10-week one); "
        "offerings name one as 'kind:code' ('summer:I'). See agents.catalog.sessions.",
    )

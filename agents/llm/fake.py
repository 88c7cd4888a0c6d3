"""A scriptable backend that records what it was sent: the model's stand-in in tests and
demos, shipped with the package like the backends it stands in for.

``RecordingBackend`` appends every request text it is asked to read to ``texts`` and every
draft it is asked to write a letter for to ``drafts``. Scripted replies are returned with
the ``source`` and ``note`` given; without a script it answers exactly as
``OfflineBackend`` does. A script is one value, the reply to every call, or a list, the
replies to the first calls in order, after which the offline path answers. Like the
offline backend it makes no model calls, so it writes nothing to the ledger.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from agents.catalog import Catalog
from agents.llm.boundary import IntakeExtraction, LLMLedger, LLMResult, Source
from agents.llm.offline import OfflineBackend

if TYPE_CHECKING:
    from agents.artifacts import Recommendation

__all__ = ["RecordingBackend"]


class RecordingBackend:
    """``LLMBackend`` with scripted replies (else the offline ones) that records its inputs."""

    def __init__(
        self,
        *,
        intake: IntakeExtraction | Sequence[IntakeExtraction] | None = None,
        letter: str | Sequence[str] | None = None,
        source: Source = "gemini",
        note: str = "",
        name: str = "fake",
        model: str = "fake-1",
    ) -> None:
        self.name = name
        self.model = model
        self.source: Source = source
        self.note = note
        self.texts: list[str] = []
        self.drafts: list[Recommendation] = []
        self._intakes: Iterator[IntakeExtraction] = (
            itertools.repeat(intake) if isinstance(intake, IntakeExtraction) else iter(intake or ())
        )
        self._letters: Iterator[str] = (
            itertools.repeat(letter) if isinstance(letter, str) else iter(letter or ())
        )
        self._offline = OfflineBackend()

    def extract_intake(
        self, text: str, *, catalog: Catalog, ledger: LLMLedger
    ) -> LLMResult[IntakeExtraction]:
        self.texts.append(text)
        scripted = next(self._intakes, None)
        if scripted is None:
            return self._offline.extract_intake(text, catalog=catalog, ledger=ledger)
        # A copy, as a real backend builds a new extraction per call: callers may edit it.
        value = scripted.model_copy(deep=True)
        return LLMResult(value=value, source=self.source, note=self.note)

    def write_letter(self, draft: Recommendation, *, ledger: LLMLedger) -> LLMResult[str]:
        self.drafts.append(draft.model_copy(deep=True))
        scripted = next(self._letters, None)
        if scripted is None:
            return self._offline.write_letter(draft, ledger=ledger)
        return LLMResult(value=scripted, source=self.source, note=self.note)

"""The base of every catalog model: unknown fields are rejected, instances are immutable.

Frozen instances let ``Catalog`` cache its indexes safely; ``extra="forbid"`` makes a
misspelt field in a catalog file an error instead of a silently ignored key.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any, Self

from pydantic import BaseModel, ConfigDict


class CatalogModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy that starts without the values cached from this instance
        (``cached_property`` indexes, ``Catalog.derived`` memos): a copy with other fields
        must not answer from the original's indexes."""
        copied = super().model_copy(update=update, deep=deep)
        for name in cached_names(type(self)):
            copied.__dict__.pop(name, None)
        return copied


def cached_names(cls: type) -> list[str]:
    """Names of the ``cached_property`` attributes of ``cls`` and its bases."""
    return [
        name
        for klass in cls.__mro__
        for name, value in vars(klass).items()
        if isinstance(value, cached_property)
    ]

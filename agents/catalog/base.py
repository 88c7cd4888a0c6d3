"""The base of every catalog model: unknown fields are rejected, instances are immutable.

Frozen instances let ``Catalog`` cache its indexes safely; ``extra="forbid"`` makes a
misspelt field in a catalog file an error instead of a silently ignored key.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class CatalogModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

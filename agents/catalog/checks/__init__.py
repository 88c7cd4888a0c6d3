"""Catalog checks that warn about what cannot work (``advise catalog build`` and
``validate``).

A catalog that loads (JSON Schema, models, cross-references: ``agents.catalog.crossref``)
can still ask for what no student can do. These checks say so as warnings - the catalog is
used as it is - each naming the JSON path and item, the value, what cannot work and the
fix (``CatalogWarning``):

- ``program_units``: a requirement node needs more courses or units than the courses it
  can draw from provide, or a program's ``total_units`` exceeds what its courses, the
  institution's requirements and the free electives give (``checks.units``);
- ``standing_total``: a class standing threshold above the degree's total units;
- ``never_offered``: a requirement none of whose courses runs within the default planning
  horizon (retired, offered only in past terms);
- ``prerequisite_chain``: a course whose chain of prerequisites, each in a term it runs,
  takes more regular terms than the default horizon (``checks.timing``).

``catalog_warnings`` runs them all; ``located`` names, for a catalog directory, the file
and line each warning comes from.
"""

from __future__ import annotations

from pathlib import Path

import structlog

from agents.catalog.checks.base import CatalogWarning, CheckName, Reach, first_term
from agents.catalog.checks.timing import chain_warnings, never_offered_warnings
from agents.catalog.checks.units import program_unit_warnings, standing_warnings
from agents.catalog.model import Catalog

log = structlog.get_logger(__name__)

__all__ = ["CatalogWarning", "CheckName", "catalog_warnings", "first_term", "located"]


def catalog_warnings(catalog: Catalog, horizon_terms: int) -> list[CatalogWarning]:
    """Every warning of every check, check by check in catalog order. ``horizon_terms``
    is the planner's default horizon in regular terms (``agents.toolbox.Toolbox``)."""
    reach = Reach(catalog, horizon_terms)
    found = [
        *program_unit_warnings(catalog, reach),
        *standing_warnings(catalog),
        *never_offered_warnings(catalog, reach),
        *chain_warnings(catalog, reach),
    ]
    log.debug("catalog.checked", warnings=len(found), horizon_terms=horizon_terms)
    return found


def located(directory: str | Path, warnings: list[CatalogWarning]) -> list[str]:
    """For a catalog directory: the file and line of each warning's field
    ('programs/CS-BS.yaml:14 field 'min_courses''), its JSON path where none is known."""
    from agents.catalog.authoring.layout import read_layout  # only for a directory
    from agents.catalog.authoring.sourcemap import parse_path

    _, smap, _ = read_layout(Path(directory))
    return [smap.locate(parse_path(w.path[1:])) or w.where() for w in warnings]

"""Catalog authoring: a directory of files a registrar keeps, built into catalog JSON.

``build_catalog`` reads the directory (``institution.yaml``, ``courses.csv``,
``sections.csv``, ``programs/<CODE>.yaml``, ``policies.yaml``, ``documents/<id>.md``),
validates the catalog with the loader and reports every problem with its file and line;
``export_catalog`` writes a catalog as such a directory. The layout is described in
``docs/catalog-guide.md``.
"""

from __future__ import annotations

from agents.catalog.authoring.build import (
    build_catalog,
    build_to_file,
    catalog_json,
    write_json_atomic,
)
from agents.catalog.authoring.courses_csv import COURSE_COLUMNS, SECTION_COLUMNS
from agents.catalog.authoring.export import export_catalog, layout_files
from agents.catalog.authoring.layout import INSTITUTION_FIELDS, read_layout
from agents.errors import LayoutError

__all__ = [
    "COURSE_COLUMNS",
    "INSTITUTION_FIELDS",
    "SECTION_COLUMNS",
    "LayoutError",
    "build_catalog",
    "build_to_file",
    "catalog_json",
    "export_catalog",
    "layout_files",
    "read_layout",
    "write_json_atomic",
]

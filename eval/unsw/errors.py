"""Errors of the UNSW converter.

Hierarchy::

    ConversionError            anything that stops a conversion
    +-- SourceError            a source file is missing, not JSON, or not circles-shaped:
                               names the file, the JSON path, the offending value and the fix

A condition the converter cannot read is not an error: it is counted in the conversion
report (``eval.unsw.tally``) and the course keeps no prerequisite.
"""

from __future__ import annotations


class ConversionError(Exception):
    """A conversion that cannot go on."""


class SourceError(ConversionError):
    """A source file that cannot be read as circles data."""

    def __init__(self, file: str, path: str, value: object, fix: str) -> None:
        self.file = file
        self.path = path
        self.value = value
        self.fix = fix
        shown = repr(value)
        if len(shown) > 80:
            shown = shown[:77] + "..."
        super().__init__(f"{file}: {path}: {shown} - {fix}")

"""Reading and writing the layout's CSV files, cell by cell, with the place of every cell.

A row's place is the line its record starts on (a quoted cell may span lines); a cell's
place adds the column name: ``courses.csv:14 column 'units'``. Cell readers turn text into
values or record a problem that quotes the cell and says how to write it.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agents.catalog.limits import not_utf8, size_problem


@dataclass(frozen=True)
class Cell:
    """One cell's text and where it is."""

    file: str
    line: int
    column: str
    text: str

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line} column {self.column!r}"


@dataclass(frozen=True)
class Row:
    """One record of a CSV file: its first line and its cells by column name."""

    file: str
    line: int
    cells: dict[str, str]
    broken: bool = False
    """The record has more cells than the header (already reported); only its leading cells,
    which names the row, is worth reading - so other files do not report it again."""

    def cell(self, column: str) -> Cell:
        return Cell(self.file, self.line, column, self.cells.get(column, ""))

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def read_layout_text(path: Path, name: str, problems: list[str]) -> str | None:
    """A catalog directory's text file, or None with the problem recorded: too big to be
    a catalog file, or not UTF-8 (the line and the byte are named)."""
    too_big = size_problem(path, "catalog_bytes", "is this the right file?")
    if too_big is not None:
        problems.append(f"{name}: {too_big}")
        return None
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line, what = not_utf8(data, exc)
        problems.append(
            f"{name}:{line}: {what} - save the file as UTF-8 (in a spreadsheet: CSV UTF-8)"
        )
        return None


def read_rows(
    path: Path,
    name: str,
    columns: Sequence[str],
    required: Sequence[str],
    problems: list[str],
) -> list[Row]:
    """The non-blank rows of a CSV file whose header names some of ``columns`` (in any
    order) and all of ``required``; header problems are recorded and give no rows."""
    text = read_layout_text(path, name, problems)
    if text is None:
        return []
    with io.StringIO(text, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None:
            problems.append(
                f"{name}:1: the file is empty - the first row names the columns: "
                f"{', '.join(columns)}"
            )
            return []
        names = [h.strip() for h in header]
        bad = len(problems)
        for i, h in enumerate(names):
            if h not in columns:
                problems.append(
                    f"{name}:1: unknown column {h!r} - the columns are: {', '.join(columns)}"
                )
            elif h in names[:i]:
                problems.append(f"{name}:1: column {h!r} appears twice - keep one")
        for c in required:
            if c not in names:
                problems.append(f"{name}:1: missing column {c!r} - add it to the header row")
        if len(problems) > bad:
            return []
        rows: list[Row] = []
        start = reader.line_num + 1
        try:
            for record in reader:
                line, start = start, reader.line_num + 1
                if any(cell.strip() for cell in record):
                    rows.append(_row(name, line, names, record, required, problems))
        except csv.Error as exc:  # a cell over csv.field_size_limit(), a NUL byte
            problems.append(f"{name}:{start}: not readable as CSV: {exc} - check its quotes")
        return rows


def _row(
    name: str,
    line: int,
    names: list[str],
    record: list[str],
    required: Sequence[str],
    problems: list[str],
) -> Row:
    """One record as a row; one with more cells than the header, or too few to reach a
    required column, is reported and broken."""
    if len(record) > len(names):
        problems.append(
            f"{name}:{line}: {len(record)} cells but the header has {len(names)} columns - "
            "put quotes around cells that contain commas"
        )
        return Row(name, line, dict(zip(names, record, strict=False)), broken=True)
    missing = [c for c in names[len(record) :] if c in required]
    if missing:
        problems.append(
            f"{name}:{line}: {len(record)} cells but the header has {len(names)} columns - "
            f"the row has no {', '.join(map(repr, missing))}; give every row a cell for "
            "each column (an empty cell is nothing between two commas)"
        )
        return Row(name, line, dict(zip(names, record, strict=False)), broken=True)
    # Trailing optional cells may be left out (some tools do): they read as empty.
    padded = [*record, *[""] * (len(names) - len(record))]
    return Row(name, line, dict(zip(names, padded, strict=True)))


def csv_text(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A CSV file's text: the header row, then ``rows`` (quoted where needed)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)
    return buf.getvalue()


def read_number(cell: Cell, what: str, problems: list[str]) -> float | int | None:
    """A number (an integer stays an integer); None and a problem when it is not one."""
    text = cell.text.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if math.isfinite(value):
        return value
    problems.append(
        f"{cell.where}: {cell.text!r} is not a number - write {what} as a number such as 9 or 0.5"
    )
    return None


def read_integer(cell: Cell, what: str, example: str, problems: list[str]) -> int | None:
    try:
        return int(cell.text.strip())
    except ValueError:
        problems.append(
            f"{cell.where}: {cell.text!r} is not a whole number - write {what} as a whole "
            f"number such as {example}"
        )
        return None


def read_choice(cell: Cell, choices: Sequence[str], what: str, problems: list[str]) -> str | None:
    text = cell.text.strip().lower()
    if text in choices:
        return text
    problems.append(
        f"{cell.where}: {cell.text!r} is not {what} - write one of {', '.join(choices)}"
    )
    return None


def read_list(cell: Cell) -> list[str]:
    """A ``;``-separated list; blanks around items and empty items are dropped."""
    return [item.strip() for item in cell.text.split(";") if item.strip()]


def format_number(value: float) -> str:
    """9.0 -> '9', 0.5 -> '0.5': how numbers are written back to a cell."""
    return str(int(value)) if value == int(value) else repr(value)

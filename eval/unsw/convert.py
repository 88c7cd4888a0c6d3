"""``python -m eval.unsw.convert --source DIR --out DIR [--degrees 3778,3707]``: convert a
local copy of circles' processed data to a catalog directory.

Source: devsoc-unsw/circles, commit a30c09d3bb3ee20d8eb1f2939ad3907248287242 (2022-06-22),
``backend/data/final_data/{courses,conditions,programs,specialisations}Processed.json``
(``eval.unsw.SOURCE_COMMIT``). The output is the authoring layout - institution.yaml,
policies.yaml, courses.csv, programs/*.yaml, documents/*.md - and CONVERSION.md. The same
source gives the same bytes. Generated files of an earlier run (programs/*.yaml and
documents/*.md not written this time) are removed; other files of ``--out`` (students/)
are kept. Exit 0 on success, 2 on a bad source with the file, JSON path and fix.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog
import yaml

from eval.unsw import DEGREES, SOURCE_COMMIT, SOURCE_DATE
from eval.unsw.courses import COLUMNS, CourseRow, course_rows
from eval.unsw.errors import ConversionError
from eval.unsw.institution import (
    GENERAL_DOCUMENTS,
    POLICIES,
    academic_calendar,
    academic_policies,
    institution_data,
    institution_header,
    source_document,
)
from eval.unsw.programs import ProgramOut, build_programs, selected_codes
from eval.unsw.report import render, summary
from eval.unsw.requirements import CourseFacts
from eval.unsw.source import Source, read_source
from eval.unsw.tally import Tally

log = structlog.get_logger(__name__)


@dataclass
class Conversion:
    """Everything one run writes, as text by relative path, and its tally."""

    files: dict[str, str]
    tally: Tally
    counts: dict[str, int]


def convert(source: Source, degrees: Sequence[str] = DEGREES,
            commit: str = SOURCE_COMMIT, date: str = SOURCE_DATE) -> Conversion:  # fmt: skip
    """The catalog files of ``source`` with the given degrees and their specialisations."""
    for d in degrees:
        if d not in source.programs:
            raise ConversionError(
                f"degree {d!r} is not in {source.directory / 'programsProcessed.json'}; "
                "pass program codes it has, e.g. --degrees 3778,3707"
            )
    tally = Tally()
    codes = selected_codes(source, list(degrees))
    rows = course_rows(source, set(codes), tally)
    kept = [source.courses[r.code] for r in rows]
    facts = CourseFacts(
        units={c.code: c.uoc for c in kept},
        level={c.code: c.level for c in kept},
        faculty={c.code: c.faculty for c in kept},
        gen_ed=frozenset(c.code for c in kept if c.gen_ed),
    )
    programs = build_programs(source, list(degrees), facts, tally)
    doc_ids = [*GENERAL_DOCUMENTS, *(p.data["document"] for p in programs)]
    counts = {
        "courses": len(rows),
        "programs": len(programs),
        "degrees": len(degrees),
        "specs": len(programs) - len(degrees),
        "rules": len(POLICIES),
        "documents": len(doc_ids),
    }
    files = {
        "institution.yaml": institution_header(commit)
        + _yaml(institution_data([p.code for p in programs], doc_ids)),
        "policies.yaml": _yaml(POLICIES),
        "courses.csv": _csv(rows),
        "documents/academic-policies.md": academic_policies(),
        "documents/academic-calendar.md": academic_calendar(),
        "documents/source.md": source_document(commit, date, counts),
    }
    files.update(_program_files(programs))
    files["CONVERSION.md"] = render(tally, commit, date, counts)
    return Conversion(files, tally, counts)


def _program_files(programs: list[ProgramOut]) -> dict[str, str]:
    out = {}
    for p in programs:
        out[f"programs/{p.code}.yaml"] = _yaml(p.data)
        out[f"documents/{p.data['document']}.md"] = p.document
    return out


def _yaml(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def _csv(rows: list[CourseRow]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    for r in rows:
        writer.writerow([r.cells[c] for c in COLUMNS])
    return buf.getvalue()


def write(conversion: Conversion, out: Path) -> None:
    """Write the files under ``out``, removing generated files of an earlier run."""
    for sub, ext in (("programs", ".yaml"), ("documents", ".md")):
        d = out / sub
        if d.is_dir():
            for f in d.iterdir():
                if f.suffix == ext and f"{sub}/{f.name}" not in conversion.files:
                    f.unlink()
    for rel, text in sorted(conversion.files.items()):
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m eval.unsw.convert",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--source",
        required=True,
        type=Path,
        help="directory of the four circles *Processed.json files",
    )
    parser.add_argument("--out", required=True, type=Path, help="catalog directory to write")
    parser.add_argument(
        "--degrees",
        default=",".join(DEGREES),
        help=f"program codes to convert (default {','.join(DEGREES)})",
    )
    parser.add_argument(
        "--commit",
        default=SOURCE_COMMIT,
        help="the circles commit the source was exported from (recorded)",
    )
    parser.add_argument("--date", default=SOURCE_DATE, help="that commit's date (recorded)")
    args = parser.parse_args(argv)  # fmt: skip
    degrees = [d.strip() for d in args.degrees.split(",") if d.strip()]
    try:
        conversion = convert(read_source(args.source), degrees, args.commit, args.date)
    except ConversionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    write(conversion, args.out)
    log.info("unsw.converted", out=str(args.out), **conversion.counts)
    print(f"{args.out}: " + summary(conversion.tally, conversion.counts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

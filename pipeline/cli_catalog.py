"""The ``advise catalog`` commands, which need no pipeline state: ``validate``, ``show``,
``build``, ``export`` and ``migrate`` here; ``programs``, ``course`` and ``search`` in
``pipeline.cli_browse``. Every one that reads a catalog takes it as ``PATH`` or as
``--catalog PATH`` (``add_catalog_source``)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.cli_browse import add_browse, add_catalog_source, catalog_source
from pipeline.cli_common import EXIT_OK, Formatter

if TYPE_CHECKING:
    from agents.catalog import Catalog


def add_catalog(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "catalog",
        help="validate, summarize, browse, build or export a catalog",
        formatter_class=Formatter,
        description="Validate a catalog or print its counts; list its programs, show a course,\n"
        "search its courses and documents; build a catalog from a directory of CSV, YAML\n"
        "and Markdown files, or export a catalog to one. Each command reads the catalog\n"
        "given as PATH or as --catalog PATH (a JSON file or a catalog directory).\n\n"
        "examples:\n"
        "  advise catalog validate\n  advise catalog validate demos/harrow-bay\n"
        "  advise catalog show --json\n  advise catalog programs\n"
        '  advise catalog course 15-112\n  advise catalog search "machine learning"\n'
        "  advise catalog build demos/catalog-layout -o catalog.json\n"
        "  advise catalog export agents/data/catalog.json my-catalog/\n"
        "  advise catalog migrate old-catalog.json -o catalog.json",
    )
    csub = p.add_subparsers(
        dest="catalog_cmd",
        required=True,
        metavar="{validate,show,programs,course,search,build,export,migrate}",
    )
    v = csub.add_parser(
        "validate",
        help="check a catalog against the schema and its cross-references",
        formatter_class=Formatter,
        description="Check a catalog (a JSON file, or a catalog directory): JSON Schema, types,\n"
        "then cross-references. Without PATH the bundled sample catalog is checked. Then\n"
        "warn about what cannot work (exit code still 0): a requirement or total its courses\n"
        "cannot provide, a class standing above the degree total, a requirement whose\n"
        "courses never run, a prerequisite chain longer than the planning horizon\n"
        "(docs/catalog-guide.md, 'Checks').\n\n"
        "examples:\n  advise catalog validate demos/harrow-bay\n"
        "  advise catalog validate --catalog demos/catalog-layout --json",
    )
    add_catalog_source(v)
    _add_json(v)
    v.set_defaults(handler=_cmd_catalog_validate)
    s = csub.add_parser(
        "show",
        help="print counts of courses, programs, rules and documents",
        formatter_class=Formatter,
        description="Print the catalog's counts.\n\nexamples:\n  advise catalog show --json\n"
        "  advise catalog show demos/harrow-bay",
    )
    add_catalog_source(s)
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(handler=_cmd_catalog_show)
    add_browse(csub)
    _add_authoring(csub)


def _add_authoring(csub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    b = csub.add_parser(
        "build",
        help="build catalog JSON from a catalog directory",
        formatter_class=Formatter,
        description="Read a catalog directory (institution.yaml, courses.csv, sections.csv,\n"
        "programs/*.yaml, policies.yaml, documents/*.md), check the catalog like\n"
        "'catalog validate' and write its JSON. Every problem names its file and line;\n"
        "warnings (what cannot work, see 'catalog validate') do not stop the build.\n"
        "See docs/catalog-guide.md.\n\n"
        "examples:\n  advise catalog build demos/catalog-layout -o catalog.json\n"
        "  advise catalog build --catalog demos/harrow-bay -o harrow-bay.json",
    )
    add_catalog_source(b, required=True, what="catalog directory")
    b.add_argument("-o", "--output", required=True, help="catalog JSON file to write")
    _add_json(b)
    b.set_defaults(handler=_cmd_catalog_build)
    e = csub.add_parser(
        "export",
        help="write a catalog JSON file as a catalog directory",
        formatter_class=Formatter,
        description="Write a catalog as a directory of CSV, YAML and Markdown files that\n"
        "'catalog build' turns back into the same catalog (to migrate a catalog).\n\n"
        "examples:\n  advise catalog export agents/data/catalog.json my-catalog/\n"
        "  advise catalog export --catalog agents/data/catalog.json my-catalog/",
    )
    add_catalog_source(e, required=True)
    e.add_argument("directory", help="directory to write (new or empty unless --force)")
    e.add_argument(
        "--force",
        action="store_true",
        help="overwrite a non-empty directory, removing program and document files "
        "that are not in the catalog",
    )
    e.add_argument("--json", action="store_true", help="print the files written as JSON")
    e.set_defaults(handler=_cmd_catalog_export)
    m = csub.add_parser(
        "migrate",
        help="upgrade a catalog file or directory to the current format (version 3)",
        formatter_class=Formatter,
        description="Upgrade a version 1 or 2 catalog to version 3: for version 1, write out the\n"
        "semester calendar (S spring, U summer, F fall) it assumed; set schema_version to 3.\n"
        "Term codes and everything else keep their values. A JSON file is written to -o\n"
        "(checked like 'catalog validate' first); a catalog directory is upgraded in place\n"
        "(only institution.yaml changes, its comments kept).\n\n"
        "examples:\n  advise catalog migrate old-catalog.json -o catalog.json  # a version-1 file\n"
        "  advise catalog migrate demos/catalog-layout",
    )
    add_catalog_source(m, required=True)
    m.add_argument("-o", "--output", help="JSON file to write (required for a JSON file)")
    m.add_argument("--json", action="store_true", help="print what was done as JSON")
    m.set_defaults(handler=_cmd_catalog_migrate)


def _cmd_catalog_build(args: argparse.Namespace) -> int:
    from agents.catalog.authoring import build_to_file

    directory = catalog_source(args)
    assert directory is not None  # required: catalog_source exits without one
    cat = build_to_file(directory, args.output)
    said = f"{args.output}: built from {directory} ({_counted(cat)})"
    _report(args, cat, directory, said, {"output": args.output, "source": directory})
    return EXIT_OK


def _cmd_catalog_export(args: argparse.Namespace) -> int:
    from agents.catalog import load_catalog
    from agents.catalog.authoring import export_catalog

    source = catalog_source(args)
    written = export_catalog(load_catalog(source), args.directory, force=args.force)
    if args.json:
        files = [str(p) for p in written]
        print(json.dumps({"directory": args.directory, "source": source, "files": files}))
    else:
        print(f"{args.directory}: wrote {len(written)} files from {source}")
    return EXIT_OK


def _cmd_catalog_migrate(args: argparse.Namespace) -> int:
    from agents.catalog.upgrade import migrate_catalog

    source = catalog_source(args)
    assert source is not None  # required: catalog_source exits without one
    lines = list(migrate_catalog(source, args.output))
    if args.json:
        print(json.dumps({"source": source, "output": args.output, "done": lines}))
    else:
        for line in lines:
            print(line)
    return EXIT_OK


def _cmd_catalog_validate(args: argparse.Namespace) -> int:
    from agents.catalog import default_catalog_path, load_catalog

    path = catalog_source(args) or str(default_catalog_path())
    cat = load_catalog(path)
    _report(args, cat, path, f"{path}: ok ({_counted(cat)})", {"catalog": path})
    return EXIT_OK


def _add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: the counts and the warnings (file/field, value, fix)",
    )


def _counted(cat: Catalog) -> str:
    return (
        f"{len(cat.courses)} courses, {len(cat.programs)} programs, "
        f"{len(cat.policies)} policy rules, {len(cat.documents)} documents"
    )


def _report(
    args: argparse.Namespace, cat: Catalog, source: str, said: str, head: dict[str, str]
) -> None:
    """The command's line (or JSON object) and the catalog checks' warnings
    (``agents.catalog.checks``): a catalog that loads but cannot work as written. Warnings
    do not fail the command; in text they follow on stderr, like errors."""
    from agents.catalog.checks import catalog_warnings, located
    from agents.toolbox import Toolbox

    warnings = catalog_warnings(cat, Toolbox(catalog=cat).horizon_terms)
    where = [w.where() for w in warnings]
    if warnings and Path(source).is_dir():
        where = located(source, warnings)
    if args.json:
        counts = {"courses": len(cat.courses), "programs": len(cat.programs),
                  "policy_rules": len(cat.policies), "documents": len(cat.documents)}  # fmt: skip
        found = [w.as_json(at) for w, at in zip(warnings, where, strict=True)]
        print(json.dumps({**head, "ok": True, **counts, "warnings": found}, sort_keys=True))
        return
    print(said)
    if warnings:
        noun = "warning" if len(warnings) == 1 else "warnings"
        lines = [f"  - {at}: {w.message} - {w.fix}" for w, at in zip(warnings, where, strict=True)]
        print(f"warning: {source}: {len(warnings)} {noun}", *lines, sep="\n", file=sys.stderr)


def catalog_counts(cat: object) -> dict[str, int]:
    from agents.catalog import Catalog

    assert isinstance(cat, Catalog)
    return {
        "courses": len(cat.courses),
        "majors": sum(p.kind == "major" for p in cat.programs),
        "minors": sum(p.kind == "minor" for p in cat.programs),
        "concentrations": sum(p.kind == "concentration" for p in cat.programs),
        "policy_rules": len(cat.policies),
        "documents": len(cat.documents),
        "sections": sum(len(c.sections) for c in cat.courses),
    }


def _cmd_catalog_show(args: argparse.Namespace) -> int:
    from agents.catalog import load_catalog

    cat = load_catalog(catalog_source(args))
    counts = catalog_counts(cat)
    cal = cat.calendar
    terms = [
        {"code": k.code, "name": k.name, "regular": k.regular, "aliases": k.aliases}
        for k in cal.terms
    ]
    if args.json:
        print(
            json.dumps(
                {
                    **counts,
                    "calendar": {
                        "system": cal.system,
                        "academic_year_starts": cal.academic_year_starts,
                        "terms": terms,
                    },
                    "unit_name": cat.institution.unit_name,
                },
                sort_keys=True,
            )
        )
    else:
        print(f"{cat.institution.name} catalog {cat.catalog_year}")
        kinds = ", ".join(f"{k.code} {k.name}" + ("" if k.regular else " (optional)")
                          for k in cal.terms)  # fmt: skip
        print(f"  {'calendar':<15} {cal.system}: {kinds}; years start {cal.academic_year_starts}")
        print(f"  {'credits':<15} {cat.institution.unit_name}")
        for key, value in counts.items():
            print(f"  {key:<15} {value}")
    return EXIT_OK

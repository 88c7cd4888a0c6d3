"""The ``advise catalog`` commands that browse one catalog: ``programs``, ``course`` and
``search``; and how every catalog subcommand is told which catalog to read (``PATH`` or
``--catalog PATH``, ``add_catalog_source``). ``pipeline.cli_catalog`` registers them."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.cli_common import EXIT_OK, Formatter, console, positive

if TYPE_CHECKING:
    from agents.catalog import Catalog

_SOURCE_HELP = "catalog JSON file or catalog directory"


def add_catalog_source(
    p: argparse.ArgumentParser, *, required: bool = False, what: str = _SOURCE_HELP
) -> None:
    """The catalog a subcommand reads: the positional ``PATH`` or ``--catalog PATH`` (one of
    them; both naming different files is a usage error). Without either the workspace's
    catalog is read (``ADVISE_CATALOG`` or ``catalog`` in advise.toml, ``pipeline.config``),
    else the bundled sample, unless ``required``."""
    from pipeline.config import add_config_flag

    default = "" if required else " (default: the workspace's catalog, else the bundled sample)"
    p.add_argument("path", nargs="?", metavar="PATH", help=f"{what}{default}")
    p.add_argument("--catalog", dest="catalog_option", metavar="PATH", help="the same as PATH")
    add_config_flag(p)
    p.set_defaults(catalog_required=required, usage_error=p.error)


def catalog_source(args: argparse.Namespace) -> str | None:
    """The catalog path given as ``PATH`` or ``--catalog`` (None: the bundled sample)."""
    given = [v for v in (args.path, args.catalog_option) if v is not None]
    if len(given) == 2 and Path(given[0]).resolve() != Path(given[1]).resolve():
        args.usage_error(
            f"the catalog is given twice, as PATH {given[0]!r} and as --catalog {given[1]!r}; "
            "give one of them"
        )
    if not given and args.catalog_required:
        args.usage_error("no catalog given: pass PATH or --catalog PATH")
    if not given:
        from pipeline.config import configured_catalog

        return configured_catalog(args.config)
    return given[0]


def _load(args: argparse.Namespace) -> Catalog:
    from agents.catalog import load_catalog

    return load_catalog(catalog_source(args))


# --------------------------------------------------------------------------- parsers


def add_browse(csub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = csub.add_parser(
        "programs",
        help="list the catalog's programs",
        formatter_class=Formatter,
        description="List every program: code, name, kind, aliases, catalog year and total\n"
        "units. A code, alias or name shown here names the program wherever one is asked "
        "for.\n\nexamples:\n  advise catalog programs\n"
        "  advise catalog programs --json --catalog demos/harrow-bay",
    )
    add_catalog_source(p)
    p.add_argument("--json", action="store_true", help="print one JSON list")
    p.set_defaults(handler=_cmd_programs)
    c = csub.add_parser(
        "course",
        help="show one course: prerequisites, offerings, sections, programs using it",
        formatter_class=Formatter,
        description="Show a course: title, units, level, department, description, prerequisites\n"
        "and corequisites, anti-requisites, when it is offered, its sections per term, and\n"
        "the program requirements it counts toward (named, or matched by a course set).\n"
        "CODE is matched ignoring case; an unknown code is answered with close codes.\n\n"
        "examples:\n  advise catalog course 15-112\n  advise catalog course 21-127 --json",
    )
    c.add_argument("code", metavar="CODE", help="course code, e.g. 15-112")
    add_catalog_source(c)
    c.add_argument("--json", action="store_true", help="print one JSON object")
    c.set_defaults(handler=_cmd_course)
    s = csub.add_parser(
        "search",
        help="search courses and documents by text",
        formatter_class=Formatter,
        description="Search the catalog's search index (whoosh, BM25F): courses by code, title,\n"
        "description and attributes; policy and program documents by heading and text.\n"
        "Prints the best --limit courses (score relative to the best course: 1 = best) and\n"
        "the best --limit document sections (BM25F score). The index is cached under\n"
        "$ADVISE_INDEX_DIR (default ~/.cache/advising-pipeline/index).\n\n"
        'examples:\n  advise catalog search "machine learning"\n'
        '  advise catalog search "repeat a course" --limit 3 --json',
    )
    s.add_argument("text", metavar="TEXT", help="words to search for")
    add_catalog_source(s)
    s.add_argument(
        "--limit", type=positive, default=10, help="hits of each kind to print (default: 10)"
    )
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(handler=_cmd_search)


# --------------------------------------------------------------------------- programs


def _cmd_programs(args: argparse.Namespace) -> int:
    from rich.table import Table

    from agents.catalog import credits_text, use_catalog

    cat = _load(args)
    rows = [
        {
            "code": p.code,
            "name": p.name,
            "kind": p.kind,
            "aliases": p.aliases,
            "catalog_year": p.catalog_year,
            "total_units": p.total_units,
        }
        for p in cat.programs
    ]
    if args.json:
        print(json.dumps(rows, sort_keys=True))
        return EXIT_OK
    table = Table(title=f"{cat.institution.name} programs, catalog {cat.catalog_year}")
    for name in ("code", "name", "kind", "aliases", "catalog year"):
        table.add_column(name)
    table.add_column(f"total {cat.institution.unit_name}", justify="right")
    with use_catalog(cat):
        for p in cat.programs:
            total = credits_text(p.total_units) if p.total_units is not None else "-"
            aliases = ", ".join(p.aliases) or "-"
            table.add_row(p.code, p.name, p.kind, aliases, p.catalog_year, total)
    console().print(table, markup=False, highlight=False)
    return EXIT_OK


# --------------------------------------------------------------------------- course


def course_info(cat: Catalog, code: str) -> dict[str, Any]:
    """Everything ``catalog course`` shows about course ``code``, as JSON values."""
    from agents.catalog import Term, credits_text, format_prereq, use_catalog
    from agents.catalog.lookup import program_uses

    course = cat.course(code)
    cal = cat.calendar
    kinds = {cal.kind_code(w) or w for w in course.offered.terms}
    with use_catalog(cat):
        units = credits_text(course.units)
        sections = sorted(course.sections, key=lambda s: (Term.parse(s.term).index, s.id))
    return {
        "code": course.code,
        "title": course.title,
        "units": course.units,
        "units_text": units,
        "level": course.level,
        "department": course.department,
        "subject": course.subject_code,
        "attributes": course.attributes,
        "description": course.description,
        "prerequisites": format_prereq(course.prerequisites) if course.prerequisites else None,
        "corequisites": format_prereq(course.corequisites) if course.corequisites else None,
        "antirequisites": course.antirequisites,
        "offered": {
            "terms": sorted(kinds, key=lambda k: cal.position.get(k, len(cal.terms))),
            "years": course.offered.years,
            "only_in": course.offered.only_in,
        },
        "sections": [s.model_dump(mode="json") for s in sections],
        "repeatable": course.repeatable,
        "restricted_to": course.restricted_to,
        "grading": course.grading,
        "used_by": [
            {"program": u.program, "requirement": u.requirement, "title": u.title, "how": u.how}
            for u in program_uses(cat, course.code)
        ],
    }


def course_lines(cat: Catalog, info: dict[str, Any]) -> list[str]:
    """``course_info`` as the lines ``catalog course`` prints."""
    from agents.catalog import term_label, use_catalog

    def row(label: str, value: object) -> str:
        return f"  {label:<15} {value}"

    off = info["offered"]
    with use_catalog(cat):
        kinds = ", ".join(
            k.name if (k := cat.calendar.kind_by_code.get(code)) else code for code in off["terms"]
        )
        when = {"every": "every year", "odd": "odd years", "even": "even years"}[off["years"]]
        if off["only_in"]:
            when = "only in " + ", ".join(term_label(t) for t in off["only_in"])
        sections = [_section_line(s, term_label(s["term"])) for s in info["sections"]]
    lines = [
        f"{info['code']} {info['title']}",
        row("units", info["units_text"]),
        row("level", info["level"]),
        row("department", f"{info['department']} (subject {info['subject']})"),
        row("attributes", ", ".join(info["attributes"]) or "none"),
        row("grading", info["grading"].replace("_", " ")),
        row("repeatable", "yes" if info["repeatable"] else "no"),
        row("open to", ", ".join(info["restricted_to"]) or "every class standing"),
        row("prerequisites", info["prerequisites"] or "none"),
        row("corequisites", info["corequisites"] or "none"),
        row("antirequisites", ", ".join(info["antirequisites"]) or "none"),
        row("offered", f"{kinds}; {when}"),
        row("description", info["description"] or "none"),
        row("sections", "" if sections else "none scheduled").rstrip(),
        *(f"    {line}" for line in sections),
        row("used by", "" if info["used_by"] else "no program requirement").rstrip(),
    ]
    width = max((len(u["program"]) for u in info["used_by"]), default=0)
    for use in info["used_by"]:
        title = f" - {use['title']}" if use["title"] else ""
        how = " (course set)" if use["how"] == "course set" else ""
        lines.append(f"    {use['program']:<{width}}  {use['requirement']}{title}{how}")
    return lines


def _section_line(section: dict[str, Any], term: str) -> str:
    meetings = "; ".join(
        f"{m['days']} {m['start']}-{m['end']}" + (f" {m['location']}" if m["location"] else "")
        for m in section["meetings"]
    )
    extra = [section["instructor"] or ""]
    if section["capacity"] is not None:
        extra.append(f"{section['capacity']} seats")
    tail = ", ".join(e for e in extra if e)
    return f"{term} {section['id']}: {meetings or 'no meetings'}" + (f" ({tail})" if tail else "")


def _cmd_course(args: argparse.Namespace) -> int:
    from agents.catalog.lookup import resolve_course

    cat = _load(args)
    info = course_info(cat, resolve_course(cat, args.code))
    if args.json:
        print(json.dumps(info, sort_keys=True))
    else:
        print("\n".join(course_lines(cat, info)))
    return EXIT_OK


# --------------------------------------------------------------------------- search


def search_results(cat: Catalog, text: str, limit: int) -> dict[str, Any]:
    """The best ``limit`` courses and document sections for ``text``, as JSON values."""
    from agents.retrieval import Retriever

    retriever = Retriever.for_catalog(cat)
    scores = retriever.rank_courses([text], [c.code for c in cat.courses])
    best = sorted((-s, code) for code, s in scores.items() if s > 0)[:limit]
    courses = [{"code": code, "title": cat.course(code).title, "score": -neg} for neg, code in best]
    hits = retriever.search_policies(text, limit) + retriever.search_programs(text, limit)
    hits.sort(key=lambda h: (-h.score, h.document, h.section, h.program or ""))
    documents = [
        {
            "document": h.document,
            "section": h.section,
            "heading": h.heading,
            "program": h.program,
            "score": h.score,
        }
        for h in hits[:limit]
    ]
    return {"query": text, "courses": courses, "documents": documents}


def _cmd_search(args: argparse.Namespace) -> int:
    from rich.table import Table

    cat = _load(args)
    found = search_results(cat, args.text, args.limit)
    if args.json:
        print(json.dumps(found, sort_keys=True))
        return EXIT_OK
    out = console()
    if found["courses"]:
        courses = Table(title=f"courses for {args.text!r} (score: 1 = best course)")
        for name in ("code", "title", "score"):
            courses.add_column(name, justify="right" if name == "score" else "left")
        for c in found["courses"]:
            courses.add_row(c["code"], c["title"], f"{c['score']:.4f}")
        out.print(courses, markup=False, highlight=False)
    else:
        out.print(f"no course matches {args.text!r}", markup=False, highlight=False)
    if found["documents"]:
        docs = Table(title=f"document sections for {args.text!r} (BM25F score)")
        for name in ("document", "section", "heading", "program", "score"):
            docs.add_column(name, justify="right" if name == "score" else "left")
        for d in found["documents"]:
            docs.add_row(d["document"] or "-", d["section"] or "-", d["heading"],
                         d["program"] or "-", f"{d['score']:.3f}")  # fmt: skip
        out.print(docs, markup=False, highlight=False)
    else:
        out.print(f"no document section matches {args.text!r}", markup=False, highlight=False)
    return EXIT_OK

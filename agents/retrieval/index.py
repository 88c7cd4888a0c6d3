"""Retrieval over the catalog's text with whoosh (BM25F): policies, programs and courses.

Three indexes are built from the catalog: ``policies`` (sections of policy and general
documents), ``programs`` (program document sections, with the program's name and aliases)
and ``courses`` (code, title, description, attributes). They live on disk under a
directory named by a fingerprint of the catalog content they are built from, so a changed
catalog gets a fresh index and an unchanged one is opened, not rebuilt (what goes into them,
and their fingerprint: ``agents.retrieval.documents``).

Two processes may build the same index at once: each builds into its own temporary
directory and renames it into place; the loser of the race discards its copy and opens the
winner's. A rename is atomic, so a directory under its final name is always complete.

Citations never come from the index: ``citation_for`` quotes the section text from the
catalog itself, so a quotation is exactly what the catalog says.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import platformdirs
import structlog
from pydantic import BaseModel, ConfigDict, Field
from whoosh import index as whoosh_index
from whoosh import query as wq
from whoosh import scoring
from whoosh.analysis import StemmingAnalyzer
from whoosh.fields import ID, KEYWORD, TEXT, Schema
from whoosh.index import Index

from agents.artifacts import CitationRef
from agents.catalog import Catalog
from agents.catalog.cache import APP_NAME
from agents.errors import UnknownReferenceError
from agents.retrieval.documents import course_docs, index_fingerprint, policy_docs, program_docs

log = structlog.get_logger(__name__)

INDEX_NAMES = ("policies", "programs", "courses")
COURSE_CACHE_SIZE = 256  # distinct interest lists whose course scores a retriever keeps

# How often an index was built in this process; tests use it to prove reuse.
BUILD_COUNT = 0

# Students write "credits" and "classes"; the catalog says "units" and "courses".
_SYNONYMS: dict[str, str] = {
    "credit": "credit unit",
    "credits": "credits units",
    "class": "class course",
    "classes": "classes courses",
    "semester": "semester term",
    "semesters": "semesters terms",
    "retake": "retake repeat",
    "retaking": "retaking repeating",
    "abroad": "abroad away",
    "ml": "machine learning",
    "ai": "artificial intelligence",
    "stats": "statistics",
}


class Hit(BaseModel):
    """One search result: a document section and its BM25F score."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    document: str = Field(description="Document id ('' for a program without a document).")
    section: str = Field(description="Section id within the document.")
    heading: str = Field(description="Section heading.")
    text: str = Field(description="Section text as stored in the catalog.")
    score: float = Field(description="BM25F score; higher is more relevant.")
    program: str | None = Field(default=None, description="Program code, for program hits.")


def _analyzer() -> Any:
    return StemmingAnalyzer()


def _schemas() -> dict[str, Schema]:
    ana = _analyzer()
    return {
        "policies": Schema(
            document=ID(stored=True),
            section=ID(stored=True),
            heading=TEXT(stored=True, analyzer=ana, field_boost=2.0),
            text=TEXT(stored=True, analyzer=ana),
        ),
        "programs": Schema(
            document=ID(stored=True),
            section=ID(stored=True),
            program=ID(stored=True),
            names=TEXT(analyzer=ana, field_boost=3.0),
            heading=TEXT(stored=True, analyzer=ana, field_boost=2.0),
            text=TEXT(stored=True, analyzer=ana),
        ),
        "courses": Schema(
            code=ID(stored=True),
            title=TEXT(analyzer=ana, field_boost=3.0),
            description=TEXT(analyzer=ana),
            attributes=KEYWORD(commas=True, lowercase=True, scorable=True, field_boost=2.0),
            attribute_words=TEXT(analyzer=ana, field_boost=2.0),
        ),
    }


_FIELDS: dict[str, tuple[str, ...]] = {
    "policies": ("heading", "text"),
    "programs": ("names", "heading", "text"),
    "courses": ("title", "description", "attribute_words"),
}


# --------------------------------------------------------------------------- cache dir


def default_index_dir() -> Path:
    """``$ADVISE_INDEX_DIR``, else ``index`` in the platform's user cache directory for the
    project, beside the checked catalogs (``agents.catalog.cache``: ``platformdirs``, which
    reads ``XDG_CACHE_HOME`` on Linux)."""
    env = os.environ.get("ADVISE_INDEX_DIR")
    if env:
        return Path(env)
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)) / "index"


def _build(catalog: Catalog, target: Path) -> None:
    global BUILD_COUNT
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".build-{target.name[:12]}-", dir=target.parent))
    try:
        sources = {
            "policies": policy_docs(catalog),
            "programs": program_docs(catalog),
            "courses": course_docs(catalog),
        }
        for name, schema in _schemas().items():
            ix = whoosh_index.create_in(str(tmp), schema, indexname=name)
            writer = ix.writer()
            for fields in sources[name]:
                writer.add_document(**fields)
            writer.commit()
        try:
            os.rename(tmp, target)
        except OSError:
            # Another process renamed its complete copy into place first: use that one.
            if not target.is_dir():
                raise
            shutil.rmtree(tmp, ignore_errors=True)
            log.debug("retrieval.build_lost_race", target=str(target))
            return
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    BUILD_COUNT += 1
    log.info("retrieval.index_built", path=str(target))


def _open(path: Path) -> dict[str, Index]:
    return {n: whoosh_index.open_dir(str(path), indexname=n) for n in INDEX_NAMES}


# --------------------------------------------------------------------------- retriever


def _tokens(text: str) -> list[str]:
    words = [_SYNONYMS.get(w.lower(), w) for w in text.split()]
    out: list[str] = []
    for tok in _analyzer()(" ".join(words)):
        if tok.text not in out:
            out.append(tok.text)
    return out


class Retriever:
    """Searches the catalog's policies, programs and courses; quotes sections exactly."""

    def __init__(self, catalog: Catalog, path: Path, indexes: dict[str, Index], built: bool):
        self.catalog = catalog
        self.path = path
        self.built = built
        self._ix = indexes
        self._course_cache: dict[str, dict[str, float]] = {}
        self._interest_cache: dict[str, dict[str, float]] = {}

    @classmethod
    def for_catalog(cls, catalog: Catalog, index_dir: Path | None = None) -> Retriever:
        """Open the cached index for this catalog's content, building it if missing."""
        base = Path(index_dir) if index_dir is not None else default_index_dir()
        target = base / index_fingerprint(catalog)
        built = False
        if not target.is_dir():
            _build(catalog, target)
            built = True
        try:
            indexes = _open(target)
        except Exception as exc:  # any unreadable cache is rebuilt, never fatal
            aside = target.with_name(f".broken-{target.name[:12]}-{os.getpid()}")
            log.warning("retrieval.index_unreadable", path=str(target), error=str(exc))
            os.rename(target, aside)
            shutil.rmtree(aside, ignore_errors=True)
            _build(catalog, target)
            built = True
            indexes = _open(target)
        return cls(catalog, target, indexes, built)

    # ------------------------------------------------------------------ search

    def _query(self, name: str, text: str) -> wq.Query | None:
        toks = _tokens(text)
        if not toks:
            return None
        return wq.Or([wq.Term(f, t) for f in _FIELDS[name] for t in toks])

    def _search(self, name: str, text: str, limit: int) -> list[Hit]:
        q = self._query(name, text)
        if q is None or limit <= 0:
            return []
        with self._ix[name].searcher(weighting=scoring.BM25F()) as searcher:
            hits = [
                Hit(
                    document=h["document"],
                    section=h["section"],
                    heading=h["heading"],
                    text=h["text"],
                    score=round(h.score, 6),
                    program=h.get("program") or None,
                )
                for h in searcher.search(q, limit=None)
            ]
        hits.sort(key=lambda h: (-h.score, h.document, h.section, h.program or ""))
        return hits[:limit]

    def search_policies(self, query: str, limit: int = 3) -> list[Hit]:
        """Policy and general document sections for ``query``, best first."""
        return self._search("policies", query, limit)

    def search_programs(self, query: str, limit: int = 3) -> list[Hit]:
        """Program description sections (matched also by program names), best first."""
        return self._search("programs", query, limit)

    def rank_courses(self, interests: list[str], candidates: list[str]) -> dict[str, float]:
        """Each candidate's match to the interests, scaled so the best candidate is 1.0
        (none: 0.0), in the candidates' order.

        The catalog-wide BM25F scores of one interest list are computed once per retriever
        and kept (a batch asks for few distinct lists); candidates only select from them -
        BM25F scores do not depend on which documents a search is restricted to. Scores are
        scaled by the best *candidate*, so a course outside ``candidates`` must not count:
        the planner asks for every course at once, ``interest_scores``."""
        scores = dict.fromkeys(candidates, 0.0)
        raw = self._course_scores(" ".join(interests))
        raw = {code: s for code, s in raw.items() if code in scores}
        top = max(raw.values(), default=0.0)
        if top > 0:
            for code, s in raw.items():
                scores[code] = round(s / top, 4)
        return scores

    def interest_scores(self, interests: Sequence[str]) -> dict[str, float]:
        """The planner's interest scores: every catalog course that matches ``interests``,
        scaled so the best is 1.0 and rounded to 3 places (courses that do not match are
        absent), in catalog order; computed once per interest list and kept.

        The same numbers as ``rank_courses(interests, <every course code>)`` rounded to 3
        places without the zeros, without its candidate filter: that filter keeps the
        courses a search found that are candidates, and every course the index holds is a
        catalog course - the index is built from ``catalog.courses`` and opened by the
        fingerprint of their content (``index_fingerprint``) - so with every course a
        candidate it keeps them all."""
        text = " ".join(interests)
        cached = self._interest_cache.get(text)
        if cached is not None:
            return cached
        raw = self._course_scores(text)
        top = max(raw.values(), default=0.0)
        out: dict[str, float] = {}
        if top > 0:
            for course in self.catalog.courses:
                s = raw.get(course.code)
                # Rounded as rank_courses does (4 places), then to the planner's 3.
                if s is not None and (score := round(round(s / top, 4), 3)) > 0:
                    out[course.code] = score
        if len(self._interest_cache) >= COURSE_CACHE_SIZE:
            self._interest_cache.pop(next(iter(self._interest_cache)))
        self._interest_cache[text] = out
        return out

    def _course_scores(self, text: str) -> dict[str, float]:
        """Every course's BM25F score for ``text`` (courses that do not match are absent)."""
        cached = self._course_cache.get(text)
        if cached is not None:
            return cached
        q = self._query("courses", text)
        raw: dict[str, float] = {}
        if q is not None:
            with self._ix["courses"].searcher(weighting=scoring.BM25F()) as searcher:
                raw = {h["code"]: h.score for h in searcher.search(q, limit=None)}
        if len(self._course_cache) >= COURSE_CACHE_SIZE:
            self._course_cache.pop(next(iter(self._course_cache)))
        self._course_cache[text] = raw
        return raw

    # ------------------------------------------------------------------ citations

    def citation_for(self, document: str, section: str, rule_id: str | None = None) -> CitationRef:
        """The exact text of ``document``'s ``section``, from the catalog."""
        doc = self.catalog.document_by_id.get(document)
        if doc is None:
            raise UnknownReferenceError("document", document, sorted(self.catalog.document_by_id))
        sec = next((s for s in doc.sections if s.id == section), None)
        if sec is None:
            raise UnknownReferenceError(
                f"section of document {document!r}", section, [s.id for s in doc.sections]
            )
        return CitationRef(
            document=doc.id, section=sec.id, heading=sec.heading, quote=sec.text, rule_id=rule_id
        )

    def citation_for_rule(self, rule_id: str) -> CitationRef:
        """The section that states policy rule ``rule_id``, quoted exactly."""
        rule = self.catalog.rule_by_id.get(rule_id)
        if rule is None:
            raise UnknownReferenceError("policy rule", rule_id, sorted(self.catalog.rule_by_id))
        return self.citation_for(rule.citation.document, rule.citation.section, rule_id=rule.id)

"""Jinja2 templates for everything a person reads: the recommendation as Markdown and HTML,
the letter, the batch index and the audit worksheet.

The templates ship with the package (``agents/templates``). An office overrides any of them
with a directory of its own (``--templates DIR``): a file there with a template's name
replaces the shipped one, so the letter's wording or the page's branding changes without
code. The directory is bound for a block with ``use_templates`` (the pipeline binds it
around a run's stages and outputs, as it binds the catalog); ``render`` uses the bound one.

Templates get view data prepared in Python (sentences, labels, counts); the templates
decide wording and layout. HTML templates autoescape; Markdown and text do not (the views
escape Markdown where it matters).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

from agents.errors import TemplateProblemError

TEMPLATE_NAMES = (
    "report.md.j2",
    "report.html.j2",
    "letter.txt.j2",
    "index.html.j2",
    "worksheet.html.j2",
    "worksheet.md.j2",
    "style.css.j2",
)

_active: ContextVar[Path | None] = ContextVar("templates", default=None)


@contextmanager
def use_templates(directory: Path | None) -> Iterator[None]:
    """Render with ``directory``'s templates (None: the shipped ones) inside the block."""
    token = _active.set(directory)
    try:
        yield
    finally:
        _active.reset(token)


def active_templates() -> Path | None:
    return _active.get()


def _autoescape(name: str | None) -> bool:
    return name is not None and name.endswith((".html.j2", ".css.j2"))


def _snapshot(directory: Path | None) -> tuple[tuple[str, int], ...]:
    """The override files and their modification times: a template added or edited while
    a process runs gets a fresh environment instead of the cached shipped one."""
    if directory is None or not directory.is_dir():
        return ()
    return tuple(sorted((p.name, p.stat().st_mtime_ns) for p in directory.iterdir()))


def _environment(directory: Path | None) -> jinja2.Environment:
    return _cached_environment(directory, _snapshot(directory))


class _CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept between processes, so a process does not compile the same
    templates again (~35 ms each time). Jinja's default directory: one per user in the
    temporary directory, created private and checked by Jinja before use; an entry is
    used only when its template's source is unchanged. A cache that cannot be read or
    written is no cache, never an error."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # a damaged entry: compile the template again
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with suppress(OSError):
            super().dump_bytecode(bucket)


@lru_cache(maxsize=1)
def _compiled_templates() -> jinja2.BytecodeCache | None:
    try:
        return _CompiledTemplates()
    except (OSError, RuntimeError):  # no private temporary directory to be had
        return None


@lru_cache(maxsize=8)
def _cached_environment(
    directory: Path | None, _files: tuple[tuple[str, int], ...]
) -> jinja2.Environment:
    loaders: list[jinja2.BaseLoader] = []
    if directory is not None:
        loaders.append(jinja2.FileSystemLoader(str(directory)))
    loaders.append(jinja2.PackageLoader("agents", "templates"))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=_autoescape,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        bytecode_cache=_compiled_templates(),
    )
    env.filters["md"] = lambda text: str(text).replace("<", "&lt;")
    env.filters["cell"] = lambda text: (
        str(text).replace("<", "&lt;").replace("|", "\\|").replace("\n", " ")
    )
    return env


def render(name: str, **context: Any) -> str:
    """Template ``name`` rendered with ``context``; a broken override template is a
    ``TemplateProblemError`` naming the file and line."""
    directory = _active.get()
    try:
        return _environment(directory).get_template(name).render(**context)
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateProblemError(exc.filename or name, exc.lineno, exc.message or "") from None
    except jinja2.UndefinedError as exc:
        raise TemplateProblemError(name, None, f"{exc.message}; see the shipped template "
                                   "for the names it may use") from None  # fmt: skip


def check_templates(directory: Path) -> list[str]:
    """The template files in ``directory`` (an office's overrides), each compiled; raises
    ``TemplateProblemError`` for a missing directory, a file that is not a known template
    name, or a syntax error."""
    if not directory.is_dir():
        raise TemplateProblemError(str(directory), None, "not a directory of templates")
    env = _environment(directory)
    found = []
    for path in sorted(directory.iterdir()):
        if path.name not in TEMPLATE_NAMES:
            raise TemplateProblemError(
                str(path), None, f"not a template name; expected one of {', '.join(TEMPLATE_NAMES)}"
            )
        try:
            env.parse(path.read_text(encoding="utf-8"), path.name, str(path))
        except jinja2.TemplateSyntaxError as exc:
            raise TemplateProblemError(str(path), exc.lineno, exc.message or "") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise TemplateProblemError(str(path), None, f"cannot read: {exc}") from None
        found.append(path.name)
    return found


def shipped_template(name: str) -> str:
    """The text of a shipped template (to copy and edit)."""
    source, _, _ = jinja2.PackageLoader("agents", "templates").get_source(
        jinja2.Environment(), name
    )
    return source

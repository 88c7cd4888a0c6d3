"""A process's fixed costs: what ``import pipeline`` arranges before anything else loads.

- structlog is imported with Rich (and better-exceptions) hidden: structlog imports them
  only to offer pretty tracebacks, which our console renderer does not use
  (``pipeline.logs`` renders exceptions as plain text), and Rich costs ~60 ms and several
  MB in every process. Rich still loads where the CLI draws tables and progress bars.
  structlog's asyncio import (only its async loggers use it, which we do not) is deferred
  too: asyncio brings ssl and OpenSSL, ~10 MB in every process.
- OR-Tools' CP-SAT module (``ortools.sat.python.cp_model``) imports pandas at the top for
  its ``*_series`` helpers, which the planner never calls: ~0.2 s and ~35 MB in every
  process that solves. Whenever the module is first imported (by anyone, eagerly or
  lazily), pandas is deferred: the module sees a stand-in that loads the real pandas on
  first use, so the pandas helpers keep working. If the module ever needs more of pandas
  while it imports, it is imported again with the real pandas.
- The cyclic garbage collector is paused while a command imports and loads (a start-up
  creates hundreds of thousands of long-lived objects, and each full collection walks all
  of them) and resumed, with those objects frozen, before requests run
  (``pause_gc`` / ``resume_gc``).
- One request (``advise run``, ``advise resume ID``) imports each stage agent when its
  stage first runs (``lazy_stages``): intake starts without the planner, OR-Tools and
  numpy (~0.3 s), which the next stage loads. A missing agent module still fails before
  anything runs (``pipeline.machine.stage_set_name``). A batch's workers run every stage
  of many requests and load all agents up front (``pipeline.machine.load_stages``).

What each measure saves is measured by ``python -m eval.bench_startup --each`` (fresh
``advise run`` processes with every measure, and with each left out in turn through
``ADVISE_STARTUP_WITHOUT``, alternating rounds). On 2026-11-29 (2 cores, load 1.5-2.4 from
other jobs, so the figures are rough): hiding Rich and asyncio from structlog, the first
stage 169 ms sooner (and ``python -X importtime -c "import pipeline"`` 92 ms instead of
248 ms, median of 5 each); CP-SAT without pandas, 105-259 ms less CPU per run; the stage
agents imported when first used, the first stage 620-709 ms sooner. The collector's pause
measured +142 ms and -143 ms of CPU in two runs: not told apart from the noise of a loaded
machine; it stays until an idle machine's ``--each`` says whether it saves 50 ms.
"""

from __future__ import annotations

import gc
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agents.artifacts import Recommendation
    from agents.case import Case
    from agents.toolbox import Toolbox
    from pipeline.machine import StageSet

WITHOUT_ENV = "ADVISE_STARTUP_WITHOUT"
"""Comma-separated measures to leave out (``structlog``, ``pandas``, ``gc``, ``lazy``), so
``python -m eval.bench_startup --without NAME`` can measure what each one saves."""
MEASURES = ("structlog", "pandas", "gc", "lazy")


def left_out(measure: str) -> bool:
    """Whether ``measure`` is left out in this process (``WITHOUT_ENV``)."""
    return measure in os.environ.get(WITHOUT_ENV, "").split(",")


CP_MODEL = "ortools.sat.python.cp_model"
_CP_MODEL_NEEDS = frozenset({"Index", "Series"})  # pandas names its annotations read
_HIDDEN_FROM_STRUCTLOG = ("rich", "better_exceptions")


def import_structlog_plain() -> None:
    """Import structlog without letting it import Rich or better-exceptions, and with
    asyncio deferred (a no-op if structlog is already loaded). A structlog that needs any
    of them while it imports is imported again the ordinary way."""
    if "structlog" in sys.modules:
        return
    if left_out("structlog"):
        import structlog

        return
    try:
        with _hidden(_HIDDEN_FROM_STRUCTLOG), deferred("asyncio"):
            import structlog
    except Exception:
        import structlog  # noqa: F401


@contextmanager
def _hidden(names: Sequence[str]) -> Iterator[None]:
    """Within the block, importing one of ``names`` (not loaded yet) raises ImportError."""
    hidden = [name for name in names if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        for name in hidden:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]


class _Placeholder:
    """What a deferred module's allowed names are while the importer runs (annotations)."""


class DeferredModule(ModuleType):
    """Stands for module ``name`` while another module imports: only the names in
    ``allowed`` can be read then (as placeholders; anything else raises AttributeError,
    which fails that import so it can be redone with the real module). Afterwards every
    attribute comes from the real module, imported on first use - so code that kept this
    stand-in works exactly as with the real module, it only loads it later."""

    def __init__(self, name: str, allowed: frozenset[str] = frozenset()) -> None:
        super().__init__(name)
        self.__dict__["_allowed"] = allowed
        self.__dict__["_importing"] = True

    def __getattr__(self, attr: str) -> Any:
        if self.__dict__["_importing"]:
            if attr in self.__dict__["_allowed"]:
                return _Placeholder
            raise AttributeError(f"{self.__name__}.{attr} is deferred while its importer loads")
        return getattr(importlib.import_module(self.__name__), attr)


@contextmanager
def deferred(name: str, allowed: frozenset[str] = frozenset()) -> Iterator[bool]:
    """Within the block, ``import name`` gives a ``DeferredModule`` (unless the module is
    already loaded); yields whether it does. The stand-in leaves ``sys.modules`` after."""
    if name in sys.modules:
        yield False
        return
    stand_in = DeferredModule(name, allowed)
    sys.modules[name] = stand_in
    try:
        yield True
    finally:
        stand_in.__dict__["_importing"] = False
        if sys.modules.get(name) is stand_in:
            del sys.modules[name]


class DeferringLoader(importlib.abc.Loader):
    """Wraps a module's loader: while the module executes, ``dependency`` is deferred
    (``deferred``); if that fails the import, the module executes again with the real
    dependency."""

    def __init__(
        self, loader: importlib.abc.Loader, dependency: str, allowed: frozenset[str]
    ) -> None:
        self._loader = loader
        self._dependency = dependency
        self._allowed = allowed

    def __getattr__(self, name: str) -> Any:  # get_source, get_filename, ... (tracebacks)
        return getattr(self._loader, name)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        try:
            with deferred(self._dependency, self._allowed):
                self._loader.exec_module(module)
            return
        except Exception:  # e.g. a newer OR-Tools that needs pandas at import
            pass
        self._loader.exec_module(module)


class _DeferPandasFinder(importlib.abc.MetaPathFinder):
    """Finds ``cp_model`` with the other finders and wraps its loader; once."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != CP_MODEL:
            return None
        uninstall_pandas_deferral()
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        spec.loader = DeferringLoader(spec.loader, "pandas", _CP_MODEL_NEEDS)
        return spec


def install_pandas_deferral() -> None:
    """Defer pandas when CP-SAT's module is first imported (a no-op once it is loaded)."""
    if CP_MODEL in sys.modules or any(isinstance(f, _DeferPandasFinder) for f in sys.meta_path):
        return
    if left_out("pandas"):
        return
    sys.meta_path.insert(0, _DeferPandasFinder())


def uninstall_pandas_deferral() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _DeferPandasFinder)]


_gc_paused = False


def pause_gc() -> None:
    """Pause the cyclic collector for a command's start-up (imports, catalog, agents)."""
    global _gc_paused
    if gc.isenabled() and not left_out("gc"):
        gc.disable()
        _gc_paused = True


def resume_gc() -> None:
    """Freeze what start-up created (it lives as long as the process; later collections
    skip it) and resume the collector; a no-op unless ``pause_gc`` paused it."""
    global _gc_paused
    if _gc_paused:
        _gc_paused = False
        gc.freeze()
        gc.enable()


class LazyAgent:
    """A stage agent whose module is imported when its stage first runs."""

    def __init__(self, module: str) -> None:
        self.module = module

    def run(self, case: Case, tools: Toolbox) -> Any:
        return importlib.import_module(self.module).run(case, tools)


class LazyRenderer:
    """The renderer of a finished run (``agents.writing.render``), imported when first used."""

    def __init__(self, module: str) -> None:
        self.module = module

    def to_json(self, rec: Recommendation) -> str:
        return str(importlib.import_module(self.module).to_json(rec))

    def to_markdown(self, rec: Recommendation) -> str:
        return str(importlib.import_module(self.module).to_markdown(rec))

    def to_html(self, rec: Recommendation) -> str:
        return str(importlib.import_module(self.module).to_html(rec))


def lazy_stages(spec: str = "real") -> StageSet:
    """``pipeline.machine.load_stages(spec)``, but the real agents (and the renderer) are
    imported when first used; their modules are checked to exist now."""
    from pipeline.machine import STAGE_TABLE, StageSet, load_stages, stage_set_name

    if spec != "real" or left_out("lazy"):
        return load_stages(spec)
    name = stage_set_name(spec)  # raises MachineDefinitionError naming a missing agent
    agents = {row.state: LazyAgent(row.module) for row in STAGE_TABLE}
    return StageSet(name=name, agents=agents, render=LazyRenderer("agents.writing.render"))

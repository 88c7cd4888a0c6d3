"""A process's fixed costs (``pipeline.startup``): what loads when, not how long it takes.

The command line and the batch parent leave the solver, pandas, Rich, asyncio, whoosh and
the stage agents unloaded; OR-Tools' CP-SAT module loads without pandas and its pandas
helpers still work; structlog loads without Rich; the collector pause is scoped. Checks
that need a fresh interpreter run one in a subprocess (no network, no timing).
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from pipeline import machine, startup
from pipeline.cli import main
from pipeline.errors import MachineDefinitionError
from pipeline.startup import MEASURES, WITHOUT_ENV

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("ortools", "pandas", "numpy", "whoosh", "google.genai", "rich", "asyncio", "yaml")


def _python(code: str, *args: str) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter; it prints one JSON object last."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_importing_the_command_line_loads_none_of_the_heavy_modules() -> None:
    loaded = _python(
        """
        import json, sys
        import pipeline.cli
        print(json.dumps({"loaded": [m for m in sys.argv[1:] if m in sys.modules]}))
        """,
        *HEAVY,
    )
    assert loaded == {"loaded": []}


def test_the_batch_parent_leaves_the_agents_and_the_solver_to_its_workers(
    tmp_path: Path,
) -> None:
    request = (REPO / "demos" / "requests.jsonl").read_text("utf-8").splitlines()[2]
    (tmp_path / "in.jsonl").write_text(request + "\n", "utf-8")
    result = _python(
        """
        import json, sys
        from pipeline.cli import main

        if __name__ == "__main__":
            code = main(sys.argv[1:])
            watched = ("ortools", "pandas", "numpy", "whoosh", "agents.requirements",
                       "agents.scheduling", "agents.critique", "agents.writing.render")
            print(json.dumps({"code": code, "loaded": [m for m in watched if m in sys.modules]}))
        """,
        "batch", str(tmp_path / "in.jsonl"), "--workers", "2", "--quiet", "--json",
        "--state-dir", str(tmp_path / "state"), "--out-dir", str(tmp_path / "out"),
        "--log-dir", str(tmp_path / "logs"),
    )  # fmt: skip
    assert result == {"code": 0, "loaded": []}
    assert (tmp_path / "out" / f"{json.loads(request)['request_id']}.json").is_file()


def test_cp_sat_loads_without_pandas_and_its_pandas_helpers_still_work() -> None:
    result = _python(
        """
        import json, sys
        import pipeline
        from ortools.sat.python import cp_model

        before = "pandas" in sys.modules
        model = cp_model.CpModel()
        x = model.new_int_var(0, 10, "x")
        model.add(x >= 3)
        model.minimize(x)
        solver = cp_model.CpSolver()
        status = solver.solve(model)
        solved = [status == cp_model.OPTIMAL, solver.value(x), "pandas" in sys.modules]
        import pandas as pd
        series = model.new_bool_var_series("b", pd.Index(["p", "q"]))
        print(json.dumps({"pandas_at_import": before, "solved": solved,
                          "series": [type(series).__name__, list(series.index)]}))
        """
    )
    assert result == {
        "pandas_at_import": False,
        "solved": [True, 3, False],
        "series": ["Series", ["p", "q"]],
    }


def test_structlog_loads_without_rich_and_rich_still_loads_later() -> None:
    result = _python(
        """
        import json, sys
        import pipeline, structlog
        hidden = [m for m in ("rich", "asyncio", "better_exceptions") if m in sys.modules]
        import rich.table, asyncio
        print(json.dumps({"hidden_loaded": hidden, "rich": rich.table.Table.__name__,
                          "loop": asyncio.new_event_loop().__class__.__name__}))
        """
    )
    assert result == {"hidden_loaded": [], "rich": "Table", "loop": "_UnixSelectorEventLoop"}


def _module(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(text), "utf-8")


def test_a_deferred_module_allows_only_its_named_attributes_while_importing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    _module(tmp_path, "heavy_dep_a", "VALUE = 42\nclass Thing: ...\n")
    with startup.deferred("heavy_dep_a", frozenset({"Thing"})) as is_deferred:
        import heavy_dep_a

        assert is_deferred
        assert heavy_dep_a.Thing.__name__ == "_Placeholder"
        with pytest.raises(AttributeError, match="deferred while its importer loads"):
            _ = heavy_dep_a.VALUE
    assert "heavy_dep_a" not in sys.modules
    assert heavy_dep_a.VALUE == 42  # the real module, loaded on first use
    assert "heavy_dep_a" in sys.modules
    monkeypatch.delitem(sys.modules, "heavy_dep_a")


def test_a_module_that_needs_more_of_a_deferred_dependency_loads_it_for_real(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    _module(tmp_path, "heavy_dep_b", "class Index: ...\nclass Frame: ...\n")
    _module(tmp_path, "user_b", "import heavy_dep_b as d\nKINDS = (d.Index, d.Frame)\n")
    _module(tmp_path, "user_c", "import heavy_dep_b as d\nANN = d.Index\ndef f(): return d.Frame\n")
    for name, needs_all in (("user_b", True), ("user_c", False)):
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.loader is not None
        spec.loader = startup.DeferringLoader(spec.loader, "heavy_dep_b", frozenset({"Index"}))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        assert ("heavy_dep_b" in sys.modules) is needs_all
        assert module.d.Frame.__name__ == "Frame"  # real, loaded on use if deferred
        assert "heavy_dep_b" in sys.modules
        monkeypatch.delitem(sys.modules, "heavy_dep_b")


def test_stage_set_name_checks_the_real_agents_without_importing_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert machine.stage_set_name("tests.fake_stages:FAKE") == "fake"
    result = _python(
        """
        import json, sys
        from pipeline.machine import stage_set_name
        print(json.dumps({"name": stage_set_name("real"),
                          "imported": "agents.requirements" in sys.modules}))
        """
    )
    assert result == {"name": "real", "imported": False}
    missing = machine.StageRow(machine.State.critique, "agents.no_such_agent", "critiques", None)
    monkeypatch.setattr(machine, "STAGE_TABLE", (*machine.STAGE_TABLE, missing))
    with pytest.raises(MachineDefinitionError) as raised:
        machine.stage_set_name("real")
    assert "critique" in str(raised.value)
    assert "'agents.no_such_agent' is missing" in str(raised.value)


def test_the_collector_pause_is_scoped_and_freezes_what_start_up_made() -> None:
    assert gc.isenabled()
    frozen = gc.get_freeze_count()  # other tests' in-process workers freeze too
    startup.resume_gc()  # not paused: nothing happens
    assert gc.isenabled() and gc.get_freeze_count() <= frozen  # nothing more was frozen
    startup.pause_gc()
    try:
        assert not gc.isenabled()
        startup.pause_gc()  # already paused: still one pause
        leftover = [[i] for i in range(1000)]  # what a start-up makes and keeps
        startup.resume_gc()
        assert gc.isenabled()
        assert gc.get_freeze_count() > frozen and leftover
        startup.resume_gc()
        assert gc.isenabled()
    finally:
        gc.enable()


def test_a_command_line_called_with_arguments_keeps_its_callers_collector(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frozen = gc.get_freeze_count()
    assert main(["status", "--state-dir", str(tmp_path), "--json"]) == 0
    capsys.readouterr()
    assert gc.isenabled() and gc.get_freeze_count() <= frozen  # nothing more was frozen


def test_compiled_templates_are_reused_and_a_damaged_or_unwritable_cache_is_no_error(
    tmp_path: Path,
) -> None:
    import jinja2

    from agents.reports import templating

    def environment(directory: Path) -> jinja2.Environment:
        cache = templating._CompiledTemplates(str(directory))
        loader = jinja2.DictLoader({"t.txt.j2": "{{ who }} has {{ n }} courses"})
        return jinja2.Environment(loader=loader, bytecode_cache=cache)

    cache_dir = tmp_path / "compiled"
    cache_dir.mkdir()
    assert environment(cache_dir).get_template("t.txt.j2").render(who="Ana", n=3) == (
        "Ana has 3 courses"
    )
    [entry] = list(cache_dir.iterdir())
    reused = environment(cache_dir)
    reused.compile = None  # type: ignore[assignment,method-assign]  # compiling would fail
    assert reused.get_template("t.txt.j2").render(who="Bo", n=1) == "Bo has 1 courses"
    entry.write_bytes(b"damaged")
    assert environment(cache_dir).get_template("t.txt.j2").render(who="Cy", n=2) == (
        "Cy has 2 courses"
    )
    missing = environment(tmp_path / "no-such-directory")
    assert missing.get_template("t.txt.j2").render(who="Di", n=4) == "Di has 4 courses"


def test_one_request_imports_each_stage_agent_when_its_stage_first_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    result = _python(
        """
        import json, sys
        from pipeline.context import State
        from pipeline.startup import lazy_stages
        stages = lazy_stages("real")
        watched = ("agents.intake", "agents.requirements", "agents.writing.render", "ortools")
        before = [m for m in watched if m in sys.modules]
        agent = stages.agents[State.intake]
        print(json.dumps({"name": stages.name, "before": before, "module": agent.module,
                          "render": stages.render.module}))
        """
    )
    assert result == {"name": "real", "before": [], "module": "agents.intake",
                      "render": "agents.writing.render"}  # fmt: skip
    assert startup.lazy_stages("tests.fake_stages:FAKE").name == "fake"
    missing = machine.StageRow(machine.State.critique, "agents.no_such_agent", "critiques", None)
    monkeypatch.setattr(machine, "STAGE_TABLE", (*machine.STAGE_TABLE, missing))
    with pytest.raises(MachineDefinitionError) as raised:
        startup.lazy_stages("real")
    assert "'agents.no_such_agent' is missing" in str(raised.value)


def test_rendering_a_run_leaves_the_pdf_and_calendar_libraries_to_the_exports() -> None:
    result = _python(
        """
        import json, sys
        import agents.writing.render
        watched = ("fpdf", "fontTools", "icalendar")
        before = [m for m in watched if m in sys.modules]
        from agents.writing import plan_ics, plan_pdf
        after = [m for m in watched if m in sys.modules]
        print(json.dumps({"before": before, "after": after,
                          "named": [plan_pdf.__module__, plan_ics.__module__]}))
        """
    )
    assert result["before"] == []
    assert set(result["after"]) == {"fpdf", "fontTools", "icalendar"}  # type: ignore[arg-type]
    assert result["named"] == ["agents.writing.export_pdf", "agents.writing.export_ics"]


def test_a_lazy_agent_and_renderer_call_their_module_when_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = ModuleType("lazy_agent_probe")
    module.run = lambda case, tools: ("ran", case, tools)  # type: ignore[attr-defined]
    for name in ("to_json", "to_markdown", "to_html"):
        setattr(module, name, lambda rec, name=name: f"{name}:{rec}")
    monkeypatch.setitem(sys.modules, "lazy_agent_probe", module)
    assert startup.LazyAgent("lazy_agent_probe").run("case", "tools") == ("ran", "case", "tools")  # type: ignore[arg-type]
    renderer = startup.LazyRenderer("lazy_agent_probe")
    assert renderer.to_json("r") == "to_json:r"  # type: ignore[arg-type]
    assert renderer.to_markdown("r") == "to_markdown:r"  # type: ignore[arg-type]
    assert renderer.to_html("r") == "to_html:r"  # type: ignore[arg-type]


def test_each_start_up_measure_can_be_left_out_to_measure_what_it_saves() -> None:
    code = """
        import json, sys
        import pipeline, structlog
        from pipeline.startup import lazy_stages, pause_gc
        import gc
        from ortools.sat.python import cp_model
        pause_gc()
        lazy = type(lazy_stages().agents[next(iter(lazy_stages().agents))]).__name__
        print(json.dumps({"rich": "rich" in sys.modules, "pandas": "pandas" in sys.modules,
                          "gc_enabled": gc.isenabled(), "agent": lazy}))
        """
    assert _python(code) == {
        "rich": False, "pandas": False, "gc_enabled": False, "agent": "LazyAgent"
    }  # fmt: skip
    env = {**os.environ, WITHOUT_ENV: ",".join(MEASURES)}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=REPO, env=env,
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {
        "rich": True, "pandas": True, "gc_enabled": True, "agent": "module"
    }  # fmt: skip

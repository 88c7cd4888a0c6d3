"""The package's shape: no import cycles, dependencies pointing down, small modules.

Imports are read with ``ast`` from every module of ``agents/`` and ``pipeline/``, wherever
they stand (module level, inside functions, under ``TYPE_CHECKING``): a deferred import
hides a cycle from Python, not from the design.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("agents", "pipeline")

# The domain core: sub-packages of agents/ that stage modules use and that never use them.
CORE = (
    "files", "catalog", "audit", "planner", "verifier", "policy", "retrieval", "llm", "artifacts",
    "reports",
)  # fmt: skip
# What the stages use and that never uses a stage: the request read at intake, the planning
# stages' shared work, the critique's review, what is worked out beside the plan, and what is
# written for people.
HELPERS = ("reading", "planning", "checking", "advice", "writing")
# The front door: the six stages in their order, and their contract.
STAGES = ("intake", "requirements", "scheduling", "critique", "refinement", "synthesis")
CONTRACT = ("case", "toolbox", "negotiation", "errors")
MAX_ROOT_MODULES = 12
# Lower layers never import higher ones (a package may import its own layer's peers only
# when listed together). ``errors`` is the bottom: everything may raise its errors.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("agents.errors",),
    ("agents.files",),
    ("agents.catalog",),
    ("agents.audit",),
    ("agents.planner", "agents.verifier"),
    ("agents.artifacts",),
    ("agents.reports",),
    ("agents.policy", "agents.retrieval", "agents.llm"),
    # What is written for people reads artifacts and the core only.
    ("agents.writing",),
    # The stage contract: what every stage is handed, the case it works on, the loop's rules.
    ("agents.toolbox",),
    ("agents.case",),
    ("agents.negotiation",),
    # The stages' helpers, below the six stage modules (which may use any layer).
    ("agents.reading", "agents.checking"),
    ("agents.planning",),
    ("agents.advice",),
)
MAX_LINES = 400


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[module_name(path)] = path
    return found


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """Project modules ``name`` imports (a ``from pkg import sub`` names the submodule)."""
    tree = ast.parse(path.read_text("utf-8"))
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imports_of(name, path, known) for name, path in found.items()}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path ``a -> b -> ... -> a``, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def layer_of(module: str) -> int | None:
    for i, layer in enumerate(LAYERS):
        if any(_within(module, p) for p in layer):
            return i
    return None


def layer_violations(edges: dict[str, set[str]]) -> list[str]:
    out = []
    for src, targets in sorted(edges.items()):
        for dst in sorted(targets):
            if src.startswith("agents") and dst.startswith("pipeline"):
                out.append(f"{src} imports {dst}: agents/ never imports pipeline/")
                continue
            src_layer = layer_of(src)
            if src_layer is None:
                continue  # stage modules and pipeline/ may use any layer below them
            dst_layer = layer_of(dst)
            if dst_layer is None:
                out.append(f"{src} imports {dst}: the domain core never imports a stage module")
            elif dst_layer > src_layer:
                out.append(f"{src} imports {dst}: a lower layer imports a higher one")
    return out


def test_find_cycle_reports_the_path() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_layer_check_flags_core_importing_a_stage_and_agents_importing_pipeline() -> None:
    edges = {
        "agents.planner.api": {"agents.scheduling", "agents.catalog.model"},
        "agents.catalog.model": {"agents.audit.core"},
        "agents.scheduling": {"pipeline.machine"},
    }
    assert layer_violations(edges) == [
        "agents.catalog.model imports agents.audit.core: a lower layer imports a higher one",
        "agents.planner.api imports agents.scheduling: the domain core never imports a stage "
        "module",
        "agents.scheduling imports pipeline.machine: agents/ never imports pipeline/",
    ]


def test_no_import_cycle_in_agents_or_pipeline() -> None:
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_dependencies_point_down() -> None:
    assert layer_violations(graph()) == []


def test_the_agents_root_holds_the_stages_and_their_contract_only() -> None:
    root = sorted(p.stem for p in (ROOT / "agents").glob("*.py") if p.stem != "__init__")
    assert root == sorted(STAGES + CONTRACT), "a helper module belongs in a sub-package"
    assert len(root) <= MAX_ROOT_MODULES
    packages = {p.parent.name for p in (ROOT / "agents").glob("*/__init__.py")}
    assert packages == set(CORE + HELPERS), "a new sub-package belongs in CORE or HELPERS"


def test_every_package_declares_its_public_names() -> None:
    for package in CORE + HELPERS:
        init = ROOT / "agents" / package / "__init__.py"
        tree = ast.parse(init.read_text("utf-8"))
        names = [
            t.id
            for node in tree.body
            if isinstance(node, ast.Assign)
            for t in node.targets
            if isinstance(t, ast.Name)
        ]
        assert "__all__" in names, f"agents/{package}/__init__.py has no __all__"


@pytest.mark.parametrize("name", sorted(modules()))
def test_module_is_small_enough_to_read(name: str) -> None:
    lines = modules()[name].read_text("utf-8").count("\n")
    assert lines <= MAX_LINES, f"{name} has {lines} lines (at most {MAX_LINES})"


TEST_MODULES = sorted((ROOT / "tests").rglob("*.py"))


@pytest.mark.parametrize(
    "path", TEST_MODULES, ids=lambda p: p.relative_to(ROOT / "tests").as_posix()
)
def test_test_module_is_small_enough_to_read(path: Path) -> None:
    lines = path.read_text("utf-8").count("\n")
    name = path.relative_to(ROOT).as_posix()
    assert lines <= MAX_LINES, f"{name} has {lines} lines (at most {MAX_LINES})"

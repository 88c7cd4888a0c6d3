"""Issue #30 item 6: every shell command of README.md and docs/*.md works as written.

How it reads the pages: see tests/doc_commands.py (a trailing ``# exit N`` is the status a
command must end with; comment lines in the first column under a command are its output).

How it runs them: each page in a workspace of its own - a temporary directory holding a
copy of demos/ and of the agents/ data the pages name (agents/data, agents/templates), an
empty state/ and out/, and ``.venv`` pointing at the environment running the tests - with
that environment's ``advise`` and ``python`` first on PATH, this checkout on PYTHONPATH,
HOME in the workspace, and no Gemini key: offline. A page's commands run in order in its
workspace (a page's later commands build on its earlier ones), each with ``bash -c``.

The workspace is laid out once per session (``template``) and copied for each page. The
checked-catalog cache and the retrieval index directory are shared by the pages of a
session: both are keyed by the content they were built from (and the cache by the code
that reads catalogs), so what a page finds there is what it would have built itself - and
each catalog is checked, and its index built, once per session instead of once per page
(tests/test_catalog_cache.py checks that a cached catalog equals a freshly checked one).

What does not run here is listed in SKIP below with the reason; the setup prefix of the
README's quick start (``python3 -m venv .venv && .venv/bin/pip install ... &&``) is
dropped, as the workspace's ``.venv`` is already the installed project, and the rest runs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.doc_commands import Command, page_commands, shown_lines, split_comment

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# command pattern -> why it cannot run in a test (keep this short)
SKIP = {
    r"-m pytest$": "runs the whole test suite itself (.ci/run runs exactly this command)",
    r"-m eval( |$)|-m eval\.(bench|counts)": "evaluation or benchmark: minutes each "
    "(tests/test_eval.py and tests/test_benchmarks.py run them small)",
    r"GEMINI|--backend gemini": "needs a Gemini API key and the network",
    r"pip install|--engine ray": "needs the network or a Ray cluster",
    r"advise serve": "a server that runs until stopped (tests/console/ serves the app)",
    r"advise users add (?!.*--password-stdin)": "prompts for a password on the terminal",
    r"--pdf-engine chromium": "needs Chromium (tests/test_export.py prints a PDF where it is)",
}
SETUP = re.compile(r"^python3 -m venv \.venv && \.venv/bin/pip install [^&]+&& ")


def _skip_reason(command: str) -> str | None:
    return next((why for pattern, why in SKIP.items() if re.search(pattern, command)), None)


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pages' workspace, laid out once: each page runs in a copy of it."""
    root = tmp_path_factory.mktemp("doc-workspace") / "ws"
    shutil.copytree(ROOT / "demos", root / "demos", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("data", "templates"):
        shutil.copytree(ROOT / "agents" / name, root / "agents" / name)
    for name in ("state", "out", ".tmp"):
        (root / name).mkdir()
    (root / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    return root


@pytest.fixture(scope="session")
def caches(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The catalog cache and the retrieval index directory every page's commands share."""
    return tmp_path_factory.mktemp("doc-caches")


def _workspace(root: Path, caches: Path) -> dict[str, str]:
    """The environment the commands of the workspace at ``root`` run with."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI_", "ADVISE_"))}
    bin_dir = str(Path(sys.prefix) / "bin")
    env |= {
        "PATH": os.pathsep.join([bin_dir, env.get("PATH", "")]),
        "PYTHONPATH": str(ROOT),
        "HOME": str(root),
        "ADVISE_INDEX_DIR": str(caches / "index"),
        "ADVISE_CATALOG_CACHE_DIR": str(caches / "catalog-cache"),
        "TMPDIR": str(root / ".tmp"),
        "COLUMNS": "100",
    }
    return env


def _run(command: Command, root: Path, env: dict[str, str]) -> None:
    text = SETUP.sub("", command.text)
    done = subprocess.run(["bash", "-c", text], cwd=root, env=env, capture_output=True,
                          text=True, timeout=900, check=False)  # fmt: skip
    said = (
        f"{command.where()}\n--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}"
    )
    assert done.returncode == command.status, (
        f"exit {done.returncode}, not {command.status}: {said}"
    )
    printed = " ".join((done.stdout + "\n" + done.stderr).split())
    for line in shown_lines(command):
        assert line in printed, f"shown output {line!r} not printed: {said}"


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_shell_command_of_the_page_works_as_written(
    page: Path, template: Path, caches: Path, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    shutil.copytree(template, root, symlinks=True)
    env = _workspace(root, caches)
    for command in page_commands(page, ROOT):
        if _skip_reason(SETUP.sub("", command.text)) is None:
            _run(command, root, env)


def test_the_pages_have_commands_and_few_are_skipped() -> None:
    commands = [c for page in PAGES for c in page_commands(page, ROOT)]
    skipped = [c for c in commands if _skip_reason(SETUP.sub("", c.text))]
    assert len(commands) > 50
    assert len(skipped) < len(commands) // 3, [c.where() for c in skipped]
    assert any(c.text.startswith("python3 -m venv .venv && ") for c in commands)


def test_the_reader_finds_statuses_output_and_comments(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "text\n\n```sh\nadvise run r.json        # exit 4: waits for approval\n"
        "# r: awaiting approval\n#   took 12.5 ms\n"
        'advise show r --reason "a # b"   # the log\n'
        "                                   # goes on here\n"
        "advise batch a \\\n    --workers 2\n```\n\n"
        "```console\n$ advise status\nstate  count\n...\n```\n\n```python\nprint(1)\n```\n",
        encoding="utf-8",
    )
    found = page_commands(page, tmp_path)
    assert [(c.line, c.text, c.status) for c in found] == [
        (4, "advise run r.json", 4),
        (7, 'advise show r --reason "a # b"', 0),
        (9, "advise batch a --workers 2", 0),
        (14, "advise status", 0),
    ]
    assert shown_lines(found[0]) == ["r: awaiting approval"]
    assert shown_lines(found[3]) == ["state count"]
    assert split_comment("echo '#x' # y") == ("echo '#x'", "y")

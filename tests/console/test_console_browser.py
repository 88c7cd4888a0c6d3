"""The console in a real browser: Playwright drives the Debian Chromium (``executable_path``;
no browser is downloaded) against ``advise serve`` on loopback. An advisor signs in,
approves the sample overload request, resumes it and reads the approved report.

Skipped when Playwright or /usr/bin/chromium is missing (outside CI: ``.ci/run`` installs
Debian's ``chromium``; the ``test`` extra installs ``playwright``).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
PASSWORD = "correct horse battery"
WAIT_MS = 120_000  # a bound on a stuck run, not a measure of speed


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The sample overload request awaiting approval, an advisor, and the console on it."""
    if not CHROMIUM.is_file():
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    from pipeline.cli import main
    from pipeline.console.users import UserStore

    monkeypatch.chdir(tmp_path)
    line = (REPO / "demos" / "requests.jsonl").read_text(encoding="utf-8").splitlines()[1]
    assert json.loads(line)["request_id"] == "overload-high-gpa"
    (tmp_path / "req.json").write_text(line, encoding="utf-8")
    assert main(["run", "req.json"]) == 4  # awaiting approval
    UserStore(tmp_path / "state").add("rivera", "advisor", PASSWORD)
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    server = subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli", "serve", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        for text in server.stderr:  # the server says where it listens once it is up
            if "advise console on" in text:
                break
        else:
            pytest.fail(f"advise serve exited with {server.wait()}")
        # Read the rest, so a chatty server never blocks on a full pipe.
        threading.Thread(target=server.stderr.read, daemon=True).start()
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)
        if server.stderr is not None:
            server.stderr.close()


def test_an_advisor_approves_resumes_and_reads_the_approved_report(served: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(f"{served}/requests/overload-high-gpa")
        expect(page).to_have_url(f"{served}/login?next=/requests/overload-high-gpa")
        page.fill("input[name=name]", "rivera")
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        expect(page.locator("h1")).to_contain_text("Needs approval")
        page.fill("input[name=reason]", "strong record, light lab load")
        page.click("button[name=verdict][value=approve]")
        expect(page.locator(".flash").first).to_contain_text("LOAD-OVERLOAD approved by rivera")
        # The page refreshes itself while the run is on; it ends finished.
        expect(page.locator("h1 .state")).to_have_text("Finished", timeout=WAIT_MS)
        expect(page.locator("section", has_text="Decisions")).to_contain_text("approved by rivera")
        report = page.frame_locator("iframe.report")
        expect(report.locator("body")).to_contain_text("strong record, light lab load")
        browser.close()

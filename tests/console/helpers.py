"""Shared pieces of the console tests (tests/console/): a workspace of fake-stage
checkpoints, accounts of every role, and a signed-in test client."""

from __future__ import annotations

import contextlib
import re
import shutil
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from agents.artifacts import ApprovalItem, CitationRef
from pipeline.console import ConsoleConfig, create_app
from pipeline.console.users import UserStore
from pipeline.context import State
from pipeline.errors import RunInterrupted
from tests.fake_stages import Harness, make_request

PASSWORD = "correct horse battery"
ROLES = ("viewer", "advisor", "admin")
FAKE_SPEC = "tests.fake_stages:FAKE"
EVIL_NAME = "<script>alert(1)</script> Eve"


class _StopNow:
    def is_set(self) -> bool:
        return True


def build_workspace(root: Path) -> Harness:
    """Checkpoints of every kind: two done (with outputs), one stopped before intake ran,
    one awaiting approval of LOAD-OVERLOAD, and one whose student's name is markup."""
    h = Harness(root)
    h.run(make_request("done-1", "fake:reject=1"))
    evil = make_request("evil-name")
    evil = evil.model_copy(update={"student": evil.student.model_copy(update={"name": EVIL_NAME})})
    h.run(evil)
    with contextlib.suppress(RunInterrupted):
        h.run(make_request("stopped-1"), stop=_StopNow())
    h.run(make_request("waits-1"))
    ctx = h.store.load("waits-1")
    assert ctx is not None
    item = ApprovalItem(
        rule_id="LOAD-OVERLOAD",
        terms=["S2027"],
        approver="advisor",
        round=1,
        message="Spring 2027 has 61 units, above the standard 54",
        citation=CitationRef(
            document="policies", section="load", heading="Load", quote="Overloads need approval."
        ),
    )
    ctx.state, ctx.outcome, ctx.approvals = State.awaiting_approval, None, [item]
    ctx.recommendation = None
    h.store.save(ctx)
    for suffix in (".json", ".md", ".html"):  # a request awaiting approval has no report
        (h.out / f"waits-1{suffix}").unlink()
    users = UserStore(h.store.root)
    for role in ROLES:
        users.add(role, role, PASSWORD)
    return h


def copy_template(template: Path, target: Path) -> Path:
    """A copy of the shared workspace (tests/console/conftest.py) at ``target``, which may
    be an existing directory such as ``tmp_path``; returns ``target``."""
    shutil.copytree(template, target, dirs_exist_ok=True)
    return target


def make_app(root: Path, **kw: Any) -> Any:
    config = ConsoleConfig(
        state_dir=root / "state",
        out_dir=root / "out",
        log_dir=root / "logs",
        stages=FAKE_SPEC,
        **kw,
    )
    return create_app(config)


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, "no CSRF field on the page"
    return found.group(1)


def sign_in(app: Any, role: str) -> tuple[TestClient, str]:
    """A client signed in as the account named after ``role``, and its CSRF token."""
    client = TestClient(app)
    token = csrf_of(client.get("/login").text)
    r = client.post(
        "/login", data={"name": role, "password": PASSWORD, "csrf": token}, follow_redirects=False
    )
    assert r.status_code == 303, r.text
    return client, csrf_of(client.get("/").text)

"""The console tests' workspace: built once per session (``template``: fake-stage runs of
every kind of checkpoint and three argon2-hashed accounts, tests/console/helpers.py), and
copied for each test that uses it (``root``, ``app``) - every console request writes (the
access log, the dashboard's index), so no test works in the template itself.

Copies keep the template's catalog path (the checkpoints name it), so the template's files
are never to be changed: its teardown fails the session if a test did.

Every copy holds the same three password hashes, and the tests sign in a few hundred times:
an argon2 verification (about 0.3 s, the same answer for the same hash and password) is done
once per pair for these tests and its answer reused (``_argon2_once``); the sign-in route,
``UserStore.verify``, the sessions and the access log run as they do for a user.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from tests.console.helpers import build_workspace, copy_template, make_app
from tests.shared_helpers import changed_files, tree_digests

# Set by a test's fake stages or by tests that slow them down; not for the template's runs.
_TEST_ENV = ("FAKE_STAGE_LOG", "FAKE_STAGE_WORK")


@pytest.fixture(scope="package", autouse=True)
def _argon2_once() -> Iterator[None]:
    """``PasswordHasher.verify`` answered once per (hash, password) for the console tests."""
    real = PasswordHasher.verify
    answers: dict[tuple[str | bytes, str | bytes], bool | VerificationError | InvalidHashError] = {}

    def verify(self: PasswordHasher, hash: str | bytes, password: str | bytes) -> bool:
        key = (hash, password)
        if key not in answers:
            try:
                answers[key] = real(self, hash, password)
            except (VerificationError, InvalidHashError) as exc:
                answers[key] = exc
        answer = answers[key]
        if isinstance(answer, BaseException):
            raise type(answer)(*answer.args)
        return answer

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(PasswordHasher, "verify", verify)
        yield


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The shared workspace, built once; read only (copy it with ``copy_template``)."""
    root = tmp_path_factory.mktemp("console-template")
    with pytest.MonkeyPatch.context() as mp:
        for name in _TEST_ENV:
            mp.delenv(name, raising=False)
        build_workspace(root)
    before = tree_digests(root)
    yield root
    changed = changed_files(before, root)
    assert not changed, f"a test changed the shared console workspace {root}: {changed[:5]}"


@pytest.fixture
def root(template: Path, tmp_path: Path) -> Path:
    """A fresh copy of the shared workspace, for this test only."""
    return copy_template(template, tmp_path / "ws")


@pytest.fixture
def app(root: Path) -> Any:
    """The console on this test's copy of the workspace, with the fake stages."""
    return make_app(root)

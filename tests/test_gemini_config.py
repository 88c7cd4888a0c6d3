"""Gemini backend configuration: a missing key names the variable and the offline
alternative, the base URL and model come from the environment or the CLI flag, and bad
settings are config errors that say how to fix them."""

from __future__ import annotations

import pytest

from agents.catalog import Catalog, load_catalog
from agents.errors import LLMConfigError
from agents.llm import (
    LLMLedger,
    make_backend,
)
from agents.llm.gemini import GeminiBackend
from tests.fake_gemini import FakeGemini, json_reply
from tests.gemini_helpers import (
    GOOD,
    KEY,
    TEXT,
)

NO_KEY = "No key found - set GEMINI_API_KEY or pass --backend offline"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def test_missing_key_names_the_variable_and_the_offline_alternative(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    with pytest.raises(LLMConfigError) as info:
        make_backend("gemini")
    assert str(info.value) == NO_KEY
    with pytest.raises(LLMConfigError) as info:
        GeminiBackend.from_env(environ={"GEMINI_API_KEY": "  "})
    assert str(info.value) == NO_KEY


@pytest.mark.parametrize("var", ["GEMINI_BASE_URL", "GOOGLE_GEMINI_BASE_URL"])
@pytest.mark.slow
def test_from_env_honors_the_base_url_and_model(
    fake: FakeGemini, catalog: Catalog, var: str
) -> None:
    fake.enqueue(json_reply(GOOD))
    env = {"GEMINI_API_KEY": KEY, var: fake.base_url, "GEMINI_MODEL": "gemini-from-env"}
    with GeminiBackend.from_env(environ=env) as b:
        assert b.model == "gemini-from-env"
        b.extract_intake(TEXT, catalog=catalog, ledger=LLMLedger())
    with GeminiBackend.from_env("gemini-cli-flag", environ=env) as b:
        assert b.model == "gemini-cli-flag"
    assert [r.path for r in fake.requests] == ["/v1beta/models/gemini-from-env:generateContent"]


def test_make_backend_builds_gemini_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, fake: FakeGemini
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    monkeypatch.setenv("GEMINI_BASE_URL", fake.base_url)
    b = make_backend("gemini", model="gemini-2.5-flash-lite")
    assert isinstance(b, GeminiBackend)
    assert (b.name, b.model, b.base_url) == ("gemini", "gemini-2.5-flash-lite", fake.base_url)
    b.close()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"model": "gemini 2.5"},
            "model name 'gemini 2.5' is not a Gemini model id; pass e.g. --model gemini-2.5-flash",
        ),
        (
            {"base_url": "localhost:8080"},
            "base URL 'localhost:8080' must start with http:// or https://; fix "
            "GEMINI_BASE_URL or unset it to use the public endpoint",
        ),
    ],
)
def test_bad_settings_are_config_errors_that_say_how_to_fix_them(
    kwargs: dict[str, str], message: str
) -> None:
    with pytest.raises(LLMConfigError) as info:
        GeminiBackend(KEY, **kwargs)  # type: ignore[arg-type]
    assert str(info.value) == message

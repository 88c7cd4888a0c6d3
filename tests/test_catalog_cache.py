"""The cache of checked catalogs (``agents.catalog.cache``): a hit skips every check and
gives the same catalog, a change to the catalog or to the code reading it misses, and a
damaged, foreign or unwritable entry is never trusted and never an error."""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.catalog import cache, clashes, loader, use_catalog
from agents.catalog.loader import catalog_fingerprint, default_catalog_path, load_catalog
from agents.catalog.model import Catalog
from agents.errors import CatalogError, CatalogReferenceError

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

REPO = Path(__file__).resolve().parents[1]
LAYOUT = REPO / "demos" / "catalog-layout"


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private cache directory, and no catalog remembered in this process."""
    root = tmp_path / "cache" / "catalogs"
    monkeypatch.setenv(cache.DIR_ENV, str(root))
    monkeypatch.delenv(cache.ENABLE_ENV, raising=False)
    _forget()
    yield root
    _forget()


def _forget() -> None:
    loader._load_cached.cache_clear()
    loader._build_cached.cache_clear()
    loader._file_fingerprint.cache_clear()


class Builds:
    """A ``build`` callable for ``cached_catalog`` that counts its calls."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.calls = 0

    def __call__(self) -> Catalog:
        self.calls += 1
        return self.catalog


def _entries(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.pickle")) if directory.is_dir() else []


def test_second_load_is_a_hit_that_skips_the_checks_and_gives_the_same_catalog(
    cache_dir: Path,
) -> None:
    fresh = load_catalog()
    builds = Builds(fresh)
    first = cache.cached_catalog("fp-1", builds, source="x")
    second = cache.cached_catalog("fp-1", builds, source="x")
    assert builds.calls == 1
    assert second is not first
    assert second == fresh
    assert second.model_dump_json() == fresh.model_dump_json()
    assert second.model_fields_set == fresh.model_fields_set
    assert len(_entries(cache_dir)) == 2  # the sample (loaded above) and "fp-1"


def test_loading_through_the_cache_equals_loading_without_it(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for path in (None, REPO / "demos" / "harrow-bay"):
        built = load_catalog(path)
        _forget()
        hit = load_catalog(path)
        monkeypatch.setenv(cache.ENABLE_ENV, "off")
        _forget()
        plain = load_catalog(path)
        monkeypatch.delenv(cache.ENABLE_ENV)
        assert hit is not built
        assert hit == built == plain
        assert hit.model_dump_json() == plain.model_dump_json()
    assert len(_entries(cache_dir)) == 2


def test_an_entry_holds_no_per_process_indexes(cache_dir: Path) -> None:
    catalog = load_catalog().model_copy()
    assert catalog.course_by_code  # an index, filled on first use
    catalog.derived["memo"] = {id(catalog): "keyed on an id"}
    cache.cached_catalog("fp", Builds(catalog), source="x")
    loaded = cache.read_entry(cache_dir / f"{cache.cache_key('fp')}.pickle")
    assert loaded is not None
    assert "course_by_code" not in loaded.__dict__
    assert loaded.course_by_code.keys() == catalog.course_by_code.keys()
    # Only the durable table the entry carries on purpose: every term's clashing pairs.
    assert set(loaded.derived) == {clashes.PACKED}
    assert loaded.derived[clashes.PACKED] == clashes.packed(load_catalog())


def test_a_catalog_from_the_cache_brings_its_clash_table_and_is_not_swept_again(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog = load_catalog().model_copy()
    want = clashes.every_clash(load_catalog())
    assert any(want.values())  # the sample catalog has clashing sections
    cache.cached_catalog("fp", Builds(catalog), source="x")
    loaded = cache.read_entry(cache_dir / f"{cache.cache_key('fp')}.pickle")
    assert loaded is not None

    def sweep(*_: object) -> list[tuple[str, str]]:
        raise AssertionError("swept the sections again")

    monkeypatch.setattr(clashes, "_always_clashing", sweep)
    with use_catalog(loaded):
        for term, pairs in want.items():
            assert clashes.always_clashing(loaded, term) == pairs
            assert sum(map(len, clashes.clash_partners(loaded, term).values())) == 2 * len(pairs)


def test_an_entry_of_the_old_format_is_rebuilt(cache_dir: Path) -> None:
    path = cache_dir / f"{cache.cache_key('fp')}.pickle"
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = pickle.dumps(load_catalog())  # a bare catalog: the first format's payload
    header = b"advise-catalog-cache 1 " + hashlib.sha256(payload).hexdigest().encode() + b"\n"
    path.write_bytes(header + payload)
    path.chmod(0o600)
    assert cache.read_entry(path) is None


def test_a_changed_catalog_file_misses_and_is_checked_again(
    cache_dir: Path, tmp_path: Path
) -> None:
    path = tmp_path / "catalog.json"
    shutil.copyfile(default_catalog_path(), path)
    before = load_catalog(path)
    text = path.read_text("utf-8")
    first = before.courses[0]
    path.write_text(text.replace(f'"{first.title}"', '"A Retitled Course"', 1), "utf-8")
    _forget()
    after = load_catalog(path)
    assert after.courses[0].title == "A Retitled Course"
    assert catalog_fingerprint(path) != catalog_fingerprint(default_catalog_path())
    assert len(_entries(cache_dir)) == 2


def test_a_catalog_that_fails_its_checks_is_never_cached(cache_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "catalog.json"
    text = default_catalog_path().read_text("utf-8")
    path.write_text(text.replace('"document": "', '"document": "missing-', 1), "utf-8")
    with pytest.raises(CatalogReferenceError):
        load_catalog(path)
    assert _entries(cache_dir) == []


def test_other_code_reading_catalogs_misses(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    builds = Builds(load_catalog())
    cache.cached_catalog("fp", builds, source="x")
    monkeypatch.setattr(cache, "code_version", lambda: "another version of agents.catalog")
    cache.cached_catalog("fp", builds, source="x")
    assert builds.calls == 2


def test_code_version_changes_with_the_source_of_agents_catalog(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    package = tmp_path / "agents" / "catalog"
    shutil.copytree(Path(cache.__file__).parent, package, ignore=shutil.ignore_patterns("__py*"))
    monkeypatch.setattr(cache, "_PACKAGE", package)
    cache.code_version.cache_clear()
    try:
        before = cache.code_version()
        with (package / "model.py").open("a", encoding="utf-8") as f:
            f.write("\n# a change\n")
        cache.code_version.cache_clear()
        assert cache.code_version() != before
    finally:
        cache.code_version.cache_clear()


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda data: b"garbage\n" + data, "not a catalog cache entry"),
        (lambda data: data[:-100], "checksum mismatch"),
        (lambda data: b"", "not a catalog cache entry"),
    ],
    ids=["wrong header", "truncated", "empty"],
)
def test_a_damaged_entry_is_ignored_and_rebuilt(
    cache_dir: Path, damage: object, reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    builds = Builds(load_catalog())
    cache.cached_catalog("fp", builds, source="x")
    entry = cache_dir / f"{cache.cache_key('fp')}.pickle"
    entry.write_bytes(damage(entry.read_bytes()))  # type: ignore[operator]
    seen: list[str] = []
    monkeypatch.setattr(cache, "_ignored", lambda path, why: seen.append(why))
    assert cache.cached_catalog("fp", builds, source="x") == builds.catalog
    assert builds.calls == 2
    assert len(seen) == 1 and seen[0].startswith(reason)
    assert cache.read_entry(entry) == builds.catalog  # rewritten whole


def test_an_entry_that_is_not_a_catalog_is_ignored(cache_dir: Path) -> None:
    payload = pickle.dumps({"not": "a catalog"})
    entry = cache_dir / "x.pickle"
    cache_dir.mkdir(parents=True)
    entry.write_bytes(cache.FORMAT + b" " + cache.hashlib.sha256(payload).hexdigest().encode()
                      + b"\n" + payload)  # fmt: skip
    entry.chmod(0o600)
    assert cache.read_entry(entry) is None


def test_an_entry_others_may_write_or_own_is_not_trusted(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    builds = Builds(load_catalog())
    cache.cached_catalog("fp", builds, source="x")
    entry = cache_dir / f"{cache.cache_key('fp')}.pickle"
    assert oct(entry.stat().st_mode & 0o777) == "0o600"
    entry.chmod(0o666)
    assert cache.read_entry(entry) is None
    entry.chmod(0o600)
    assert cache.read_entry(entry) == builds.catalog
    me = os.getuid()
    monkeypatch.setattr(cache.os, "getuid", lambda: me + 1)
    assert cache.read_entry(entry) is None


def test_an_unwritable_cache_directory_only_means_no_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory", "utf-8")
    monkeypatch.setenv(cache.DIR_ENV, str(blocker / "catalogs"))
    builds = Builds(load_catalog())
    assert cache.cached_catalog("fp", builds, source="x") == builds.catalog
    assert cache.cached_catalog("fp", builds, source="x") == builds.catalog
    assert builds.calls == 2
    assert list(tmp_path.iterdir()) == [blocker]


def test_a_read_only_catalog_directory_is_never_written(cache_dir: Path, tmp_path: Path) -> None:
    layout = tmp_path / "layout"
    shutil.copytree(LAYOUT, layout)
    files = sorted(p.relative_to(layout) for p in layout.rglob("*"))
    for p in [*layout.rglob("*"), layout]:
        p.chmod(0o555 if p.is_dir() else 0o444)
    try:
        built = load_catalog(layout)
        _forget()
        assert load_catalog(layout) == built
    finally:
        for p in [layout, *layout.rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
    assert sorted(p.relative_to(layout) for p in layout.rglob("*")) == files
    assert len(_entries(cache_dir)) == 1


def test_a_catalog_directory_misses_when_an_input_file_changes_not_other_files(
    cache_dir: Path, tmp_path: Path
) -> None:
    layout = tmp_path / "layout"
    shutil.copytree(LAYOUT, layout)
    load_catalog(layout)
    (layout / "students").mkdir()
    (layout / "students" / "someone.json").write_text("{}", "utf-8")
    (layout / "notes.txt").write_text("not part of the catalog", "utf-8")
    _forget()
    load_catalog(layout)
    assert len(_entries(cache_dir)) == 1
    courses = layout / "courses.csv"
    text = courses.read_text("utf-8").replace("Data Structures", "Data Structures II", 1)
    courses.write_text(text, "utf-8")
    _forget()
    changed = load_catalog(layout)
    assert len(_entries(cache_dir)) == 2
    assert "Data Structures II" in {c.title for c in changed.courses}


def test_the_cache_can_be_turned_off(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    builds = Builds(load_catalog())
    _forget()
    for entry in _entries(cache_dir):
        entry.unlink()
    for value in ("off", "0", "False", " no "):
        monkeypatch.setenv(cache.ENABLE_ENV, value)
        cache.cached_catalog("fp", builds, source="x")
    assert builds.calls == 4
    assert _entries(cache_dir) == []


def test_an_unknown_setting_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.ENABLE_ENV, "maybe")
    with pytest.raises(CatalogError) as raised:
        cache.cache_enabled()
    assert str(raised.value) == (
        "ADVISE_CATALOG_CACHE: 1 problem\n  - unknown value 'maybe'; set it to 'off' (or 0) to "
        "turn the catalog cache off, or 'on' (or 1, or leave it unset) to use it"
    )


@pytest.mark.skipif(sys.platform != "linux", reason="the XDG layout is Linux's")
def test_the_cache_directory_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The platform default (platformdirs) under a home of the test's own, then
    # XDG_CACHE_HOME, then the override, which wins over both; nothing is written.
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv(cache.DIR_ENV, raising=False)
    default = tmp_path / "home" / ".cache" / "advising-pipeline" / "catalogs"
    assert cache.cache_dir() == default
    assert cache.cache_dir({}) == default
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "advising-pipeline" / "catalogs"
    monkeypatch.setenv(cache.DIR_ENV, str(tmp_path / "mine"))
    assert cache.cache_dir() == tmp_path / "mine"
    assert cache.cache_dir({cache.DIR_ENV: str(tmp_path / "given")}) == tmp_path / "given"
    assert not (tmp_path / "home").exists() and not (tmp_path / "xdg").exists()


def test_old_entries_are_pruned(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "KEEP", 3)
    builds = Builds(load_catalog())
    for i in range(5):
        cache.cached_catalog(f"fp-{i}", builds, source="x")
    kept = {p.name for p in _entries(cache_dir)}
    assert len(kept) == 3
    assert f"{cache.cache_key('fp-4')}.pickle" in kept

"""The derived-data cache: corrupt and stale entries are detected and rebuilt, concurrent
writers leave a whole entry, and results are the same with and without the cache."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import numpy as np
import pytest

from feltlab.core import cache
from feltlab.core.rules import load_rules
from feltlab.games.high_card_flush import analysis as flush_analysis
from feltlab.games.high_card_flush import cells as flush_cells
from feltlab.simulate import runner
from feltlab.simulate.runner import prepare, simulate


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)


class Builder:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> dict[str, np.ndarray]:
        self.calls += 1
        return {"numbers": np.arange(1000, dtype=np.int64) * 3}


def _entry(kind: str = "test", key: str = "k") -> tuple[Builder, Path]:
    build = Builder()
    cache.load_or_build(kind, key, build)
    return build, cache.entry_path(kind, key)


def test_an_entry_is_built_once_then_read() -> None:
    build, path = _entry()
    assert path.is_file() and build.calls == 1
    again = cache.load_or_build("test", "k", build)
    assert build.calls == 1 and again["numbers"].tolist() == list(range(0, 3000, 3))
    assert not list(path.parent.glob(".tmp-*"))  # no temporary file left behind


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "garbage", "header"])
def test_a_corrupt_entry_is_detected_and_rebuilt(damage: str) -> None:
    build, path = _entry()
    data = bytearray(path.read_bytes())
    if damage == "flip":
        data[-100] ^= 0xFF
    elif damage == "truncate":
        del data[len(data) // 2:]
    elif damage == "empty":
        data = bytearray()
    elif damage == "garbage":
        data = bytearray(b"\x00\xff" * 500)
    else:
        data[len(cache.MAGIC) + 2] = ord("!")
    path.write_bytes(bytes(data))
    notices: list[str] = []
    assert cache.load("test", "k", notices.append) is None
    assert notices and "rebuilding" in notices[0]
    rebuilt = cache.load_or_build("test", "k", build)
    assert build.calls == 2 and int(rebuilt["numbers"][-1]) == 2997
    assert cache.load("test", "k") is not None  # rewritten whole


@pytest.mark.parametrize(("field", "value"), [("code", "0" * 16), ("format", 0),
                                               ("kind", "other"), ("key", "other")])
def test_a_stale_entry_is_detected_and_rebuilt(field: str, value: object) -> None:
    build, path = _entry()
    data = path.read_bytes()
    end = data.index(b"\n", len(cache.MAGIC))
    header = json.loads(data[len(cache.MAGIC):end])
    header[field] = value
    path.write_bytes(cache.MAGIC + json.dumps(header).encode() + data[end:])
    notices: list[str] = []
    assert cache.load("test", "k", notices.append) is None
    assert "stale" in notices[0]
    cache.load_or_build("test", "k", build)
    assert build.calls == 2 and cache.load("test", "k") is not None


def test_disabled_cache_neither_reads_nor_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.NO_CACHE_ENV, "1")
    build = Builder()
    cache.load_or_build("test", "off", build)
    cache.load_or_build("test", "off", build)
    assert build.calls == 2 and not cache.entry_path("test", "off").exists()


def test_no_cache_option_switches_the_cache_off_in_process(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``feltlab --no-cache`` turns the cache off in its own process, leaving the
    environment alone."""
    import os

    from typer.testing import CliRunner

    from feltlab.cli import app

    monkeypatch.setattr(cache, "_switched_off", False)  # put back after the test
    assert cache.enabled()
    before = dict(os.environ)
    assert CliRunner().invoke(app, ["--no-cache", "rules"]).exit_code == 0
    assert not cache.enabled() and dict(os.environ) == before
    build = Builder()
    cache.load_or_build("test", "off", build)
    cache.load_or_build("test", "off", build)
    assert build.calls == 2 and not cache.entry_path("test", "off").exists()


def test_an_unwritable_cache_is_not_an_error(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert cache.load_or_build("test", "k", Builder())["numbers"].shape == (1000,)


def _write_many(folder: str) -> None:
    import os

    os.environ["XDG_CACHE_HOME"] = folder
    for _ in range(20):
        cache.store("test", "shared", Builder()())


def test_concurrent_writers_leave_a_whole_entry(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_write_many, args=(str(tmp_path),)) for _ in range(3)]
    for worker in workers:
        worker.start()
    for _ in range(200):  # read while they write: never a torn entry
        data = cache.entry_path("test", "shared")
        if data.exists():
            found = cache.decode("test", "shared", data.read_bytes())
            assert int(found["numbers"][-1]) == 2997
    for worker in workers:
        worker.join()
    assert cache.load("test", "shared") is not None
    assert not list(cache.folder().glob(".tmp-*"))


def _fresh_process_state() -> None:
    runner._OPTIMAL.clear()
    flush_cells.clear_cache()


def _run(rules_id: str) -> tuple[list[int], dict[str, str], np.ndarray]:
    _fresh_process_state()
    setup = prepare(load_rules(rules_id))
    result = simulate(setup, 100_000, seed=3)
    sums = [w.net_sum for w in result.wagers] + [w.net_square_sum for w in result.wagers]
    exact = {name: str(value) for name, value in setup.exact.items()}
    return sums, exact, setup.strategy.table.copy()


@pytest.mark.parametrize("rules_id", ["high-card-flush", "nine-card-flush"])
def test_results_are_identical_with_and_without_the_cache(
        rules_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    cold = _run(rules_id)  # builds and stores
    assert list(cache.folder().glob("optimal-strategy-*"))
    warm = _run(rules_id)  # reads
    monkeypatch.setenv(cache.NO_CACHE_ENV, "1")
    without = _run(rules_id)
    for other in (warm, without):
        assert other[0] == cold[0] and other[1] == cold[1]
        assert (other[2] == cold[2]).all()


def test_flush_cells_from_the_cache_equal_a_fresh_count() -> None:
    rules = load_rules("high-card-flush")
    _fresh_process_state()
    first = flush_analysis.analyze(rules)  # counts and stores the cells
    _fresh_process_state()
    again = flush_analysis.analyze(rules)  # reads them
    assert first == again
    assert [w.house_edge for w in again.wagers] == [w.house_edge for w in first.wagers]


def test_every_source_of_the_package_names_the_cache_folder() -> None:
    """An edit anywhere in feltlab (a game's kernel, the simulator) starts a new folder,
    not only an edit of the core where the cache module sits."""
    import feltlab

    assert cache.code_version() == feltlab.source_digest(Path(feltlab.__file__).parent)


def test_a_family_apart_from_feltlab_has_a_version_of_its_own(tmp_path: Path) -> None:
    """What a family installed apart from feltlab derives and compiles is kept per
    version of its own code (its edits do not change feltlab's code version)."""
    from types import SimpleNamespace

    (tmp_path / "kernel.py").write_text("ROUND = 1\n", "utf-8")
    family = SimpleNamespace(folder=tmp_path)
    before = cache.family_version(family)  # type: ignore[arg-type]
    (tmp_path / "kernel.py").write_text("ROUND = 2\n", "utf-8")
    cache._folder_digest.cache_clear()
    assert cache.family_version(family) != before  # type: ignore[arg-type]

"""Package set-up: where compiled kernels are cached."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import feltlab
from feltlab import numba_cache_dir


def test_any_source_edit_moves_the_numba_cache(tmp_path: Path) -> None:
    package = tmp_path / "feltlab"
    shutil.copytree(Path(feltlab.__file__).parent, package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    before = numba_cache_dir(package, tmp_path / "cache")
    assert before == numba_cache_dir(package, tmp_path / "cache")
    kernel = package / "games" / "high_card_flush" / "kernel.py"
    kernel.write_text(kernel.read_text("utf-8") + "\n# edited\n", "utf-8")
    after = numba_cache_dir(package, tmp_path / "cache")
    assert after != before and after.parent == before.parent


def test_the_cache_folder_is_chosen_on_import() -> None:
    folder = Path(os.environ["NUMBA_CACHE_DIR"])
    assert folder.is_dir()


def test_the_licence_is_declared_the_current_way() -> None:
    """An SPDX expression and the licence file (setuptools stops building the old
    ``license = {text = ...}`` table after 2027-02-18; ``.ci/check-build`` fails CI on any
    build warning)."""
    import tomllib

    root = Path(__file__).resolve().parent.parent
    project = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["project"]
    assert project["license"] == "MIT"
    for name in project["license-files"]:
        assert "MIT License" in (root / name).read_text("utf-8")
    assert "check-build" in (root / ".ci" / "run").read_text("utf-8")


def test_numba_imported_first_still_caches_in_the_versioned_folder() -> None:
    """A program that imports Numba before feltlab (this test suite's conftest does) must
    not cache kernels beside the sources, where an edited callee leaves stale code."""
    import subprocess
    import sys

    script = ("import numba, os, feltlab, numba.core.config as c; "
              "print(c.CACHE_DIR == os.environ['NUMBA_CACHE_DIR'] != '')")
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == "True"


def test_the_cache_folder_is_chosen_as_numba_is_imported() -> None:
    """Importing feltlab hashes no source (a command that never loads Numba does not pay
    for it); Numba imported after feltlab caches in the versioned folder all the same."""
    import subprocess
    import sys

    script = ("import os, feltlab; before = os.environ.get('NUMBA_CACHE_DIR'); "
              "import numba.core.config as c; "
              "print(before, c.CACHE_DIR == os.environ['NUMBA_CACHE_DIR'] != '')")
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, check=True)
    assert done.stdout.split() == ["None", "True"]

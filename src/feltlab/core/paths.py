"""Where feltlab keeps files, and checks on the files a command is asked to write.

A command that writes a report checks its destination before it computes anything, so
that a typo in a folder name costs a second, not the whole computation.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> check_output_file(folder / "report.html", "--html")
>>> check_output_file(folder / "missing" / "report.html", "--html")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: --html: cannot write .../missing/report.html: the folder .../missing does not exist
"""

from __future__ import annotations

import os
from pathlib import Path


def user_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/feltlab`` (``~/.cache/feltlab`` by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "feltlab"


def user_data_dir() -> Path:
    """``$XDG_DATA_HOME/feltlab`` (``~/.local/share/feltlab`` by default)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "feltlab"


def check_output_file(path: Path, option: str) -> None:
    """Refuse, naming ``option``, a file that cannot be written: its folder is missing or
    not writable, or the path is a folder."""
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise ValueError(f"{option}: cannot write {path}: it is a folder")
    if not folder.is_dir():
        raise ValueError(f"{option}: cannot write {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ValueError(f"{option}: cannot write {path}: permission denied")


def check_output_folder(path: Path, option: str) -> None:
    """Refuse, naming ``option``, a folder that cannot be written or created."""
    if path.exists() and not path.is_dir():
        raise ValueError(f"{option}: cannot write into {path}: it is a file")
    existing = path
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"{option}: cannot write into {path}: {existing} is a file")
    if not os.access(existing, os.W_OK):
        raise ValueError(f"{option}: cannot write into {path}: permission denied")

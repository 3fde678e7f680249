"""feltlab: the reference rules engine, exact math and tools for flush-family table games."""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import time
from pathlib import Path

__version__ = "0.1.0"
STARTED = time.perf_counter()
"""When the package was first imported: the start of a command, for its timings."""


def numba_cache_dir(package: Path, base: Path) -> Path:
    """Where compiled kernels are cached: a folder named by a hash of every source file of
    the package.

    Numba checks only the source file of a cached function, not the kernels it calls, so a
    kernel edited in one module could otherwise leave a stale compiled caller in another.
    Keying the whole cache on all the sources makes any edit start a fresh cache.
    """
    return base / source_digest(package)


def source_digest(package: Path) -> str:
    """A hash (16 hex digits) of every source file's path and content under ``package``:
    the code version that names the compiled-kernel and derived-data caches."""
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@functools.cache
def code_digest() -> str:
    """:func:`source_digest` of this package, computed once a process: both caches are
    named by it."""
    return source_digest(Path(__file__).parent)


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK)


def _choose_numba_cache() -> None:
    """Point Numba's cache at the folder of this code version. Numba reads
    ``NUMBA_CACHE_DIR`` when it is imported; a program that imported Numba before feltlab
    (a test suite, a notebook) gets the folder set in Numba's configuration directly, or
    its kernels would be cached beside the sources, where an edit of a kernel's callee
    leaves the caller's machine code stale."""
    chosen = os.environ.get("NUMBA_CACHE_DIR")  # the user's choice stands
    if not chosen:
        import tempfile

        home_cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        for base in (home_cache / "feltlab" / "numba",
                     Path(tempfile.gettempdir()) / "feltlab-numba"):
            folder = base / code_digest()
            if _writable(folder):
                chosen = os.environ["NUMBA_CACHE_DIR"] = str(folder)
                break
    numba = sys.modules.get("numba")
    if chosen and numba is not None:
        numba.core.config.CACHE_DIR = chosen


class _BeforeNumba:
    """Chooses Numba's cache folder as Numba is first imported: hashing every source file
    takes a command that never loads Numba (``--help``, ``rules``) a tenth of its time."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "numba":
            with contextlib.suppress(ValueError):  # another thread got here first
                sys.meta_path.remove(self)
            _choose_numba_cache()


if "numba" in sys.modules:
    _choose_numba_cache()
else:
    sys.meta_path.insert(0, _BeforeNumba())

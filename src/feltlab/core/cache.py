"""The cache of derived data: strategies, decision tables and dealer distributions that a
command needs and that take seconds to compute, kept between runs in the user's cache
directory (:func:`feltlab.core.paths.user_cache_dir`, ``derived/``).

An entry is named by what it is (``kind``) and the inputs it was derived from (``key``:
a rule set's fingerprint, or the one rule it depends on), inside a folder named by the
code version (a hash of the package's sources, :func:`code_version`), so an edit of the
code never reads data derived by other code. Entries are:

- written atomically: to a temporary file in the same folder, then ``os.replace``d onto
  the entry's name, so a reader (another process included) sees the old entry, the new
  one or none, never half of one; two processes building the same entry both write a
  complete file and the last one stays;
- checked on load: a header names the format, the code version, the kind and the key,
  and carries the payload's length and SHA-256; an entry whose header or checksum does
  not match (stale or corrupt) is rebuilt and rewritten, never trusted, never a crash;
- NumPy arrays (read without pickle) and JSON: nothing in a cache file is ever executed.

``FELTLAB_NO_CACHE=1`` (or ``feltlab --no-cache``) neither reads nor writes the cache:
everything is computed from scratch. The results are the same either way (tested).

>>> data = encode("example", "key-1", {"squares": np.arange(4) ** 2})
>>> decode("example", "key-1", data)["squares"].tolist()
[0, 1, 4, 9]
>>> decode("example", "key-2", data)
Traceback (most recent call last):
...
feltlab.core.cache.StaleOrCorrupt: stale (key differs)
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt

from feltlab import code_digest, source_digest
from feltlab.core.paths import user_cache_dir

if TYPE_CHECKING:
    from feltlab.core.family import GameFamily

FORMAT: Final = 1
MAGIC: Final = b"feltlab-derived-data\n"
NO_CACHE_ENV: Final = "FELTLAB_NO_CACHE"
MAX_HEADER: Final = 4096

Arrays = dict[str, npt.NDArray[Any]]
Notice = Callable[[str], None]


@functools.cache
def code_version() -> str:
    """A hash of every source file of the package (16 hex digits), as Numba's cache."""
    return code_digest()


@functools.cache
def _folder_digest(folder: str) -> str:
    return source_digest(Path(folder))


def family_version(family: GameFamily) -> str:
    """A hash of the sources in a game family's folder: what it derives and compiles is
    kept per version of its code, also for a family installed apart from feltlab (whose
    edits do not change :func:`code_version`)."""
    folder = Path(str(family.folder))
    return _folder_digest(str(folder)) if folder.is_dir() else ""


_switched_off = False


def switch_off() -> None:
    """Neither read nor write the cache from now on, in this process (``feltlab
    --no-cache``); the same as ``FELTLAB_NO_CACHE=1``, without touching the environment."""
    global _switched_off
    _switched_off = True


def enabled() -> bool:
    """False after :func:`switch_off`, or when ``FELTLAB_NO_CACHE`` is set to anything but
    ``""`` or ``0``."""
    return not _switched_off and os.environ.get(NO_CACHE_ENV, "") in ("", "0")


def kept() -> str:
    """The note of a step whose result the cache keeps for later runs ("" when off)."""
    return "once, then kept for later runs" if enabled() else ""


def folder() -> Path:
    return user_cache_dir() / "derived" / code_version()


def entry_path(kind: str, key: str) -> Path:
    name = hashlib.sha256(f"{kind}\0{key}".encode()).hexdigest()[:32]
    return folder() / f"{kind}-{name}.npz"


def _header(kind: str, key: str, payload: bytes) -> dict[str, Any]:
    return {"format": FORMAT, "code": code_version(), "kind": kind, "key": key,
            "size": len(payload), "sha256": hashlib.sha256(payload).hexdigest()}


def encode(kind: str, key: str, arrays: Mapping[str, npt.NDArray[Any]]) -> bytes:
    """An entry's bytes: magic line, JSON header line, then the arrays as ``.npz``."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type]
    payload = buffer.getvalue()
    header = json.dumps(_header(kind, key, payload), sort_keys=True).encode()
    return MAGIC + header + b"\n" + payload


class StaleOrCorrupt(ValueError):
    """A cache entry that must not be used (the message says why)."""


def decode(kind: str, key: str, data: bytes) -> Arrays:
    """The arrays of an entry, or :class:`StaleOrCorrupt` saying what is wrong."""
    if not data.startswith(MAGIC):
        raise StaleOrCorrupt("not a feltlab cache entry")
    end = data.find(b"\n", len(MAGIC), len(MAGIC) + MAX_HEADER)
    if end < 0:
        raise StaleOrCorrupt("no header")
    try:
        header = json.loads(data[len(MAGIC):end])
    except (ValueError, UnicodeDecodeError):
        raise StaleOrCorrupt("unreadable header") from None
    payload = data[end + 1:]
    expected = _header(kind, key, payload)
    if not isinstance(header, dict):
        raise StaleOrCorrupt("unreadable header")
    for field in ("format", "code", "kind", "key"):
        if header.get(field) != expected[field]:
            raise StaleOrCorrupt(f"stale ({field} differs)")
    if header.get("size") != expected["size"] or header.get("sha256") != expected["sha256"]:
        raise StaleOrCorrupt("corrupt (checksum differs)")
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except (ValueError, OSError, KeyError) as error:
        raise StaleOrCorrupt(f"corrupt ({error})") from None


def write_atomically(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` so that a reader sees the old file or the new one whole,
    whatever other writers do at the same time: to a temporary file of its own in the same
    folder, then renamed onto ``path`` (flushed to disk first when ``durable``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            if durable:
                file.flush()
                os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def load(kind: str, key: str, notice: Notice | None = None) -> Arrays | None:
    """The entry's arrays, or ``None`` when absent, disabled, stale or corrupt."""
    if not enabled():
        return None
    path = entry_path(kind, key)
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        return decode(kind, key, data)
    except StaleOrCorrupt as error:
        if notice is not None:
            notice(f"cache entry {path.name} is {error}: rebuilding it")
        return None


def store(kind: str, key: str, arrays: Mapping[str, npt.NDArray[Any]]) -> None:
    """Write the entry (atomically); a cache that cannot be written is left alone."""
    if not enabled():
        return
    with contextlib.suppress(OSError):
        write_atomically(entry_path(kind, key), encode(kind, key, arrays))


def load_or_build(kind: str, key: str, build: Callable[[], Mapping[str, npt.NDArray[Any]]],
                  notice: Notice | None = None) -> Arrays:
    """The cached entry, or ``build()``'s arrays, stored for the next run."""
    found = load(kind, key, notice)
    if found is not None:
        return found
    arrays = dict(build())
    store(kind, key, arrays)
    return arrays


# Exact fractions travel as JSON text in a 0-d array ------------------------------------

def fractions_array(values: Mapping[str, Fraction]) -> npt.NDArray[Any]:
    """``{"ante": Fraction(-1, 3)}`` as an array a cache entry can hold.

    >>> fractions_of(fractions_array({"ante": Fraction(-1, 3)}))
    {'ante': Fraction(-1, 3)}
    """
    return np.array(json.dumps({name: str(value) for name, value in values.items()}))


def fractions_of(array: npt.NDArray[Any]) -> dict[str, Fraction]:
    return {name: Fraction(text) for name, text in json.loads(str(array[()])).items()}

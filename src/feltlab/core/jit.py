"""Loading compiled kernels from Numba's cache at the speed of reading them.

Before every load from its cache, Numba refreshes its typing and lowering registries:
it imports and registers every implementation it could ever compile, a quarter of a
second of a command that may run for two. Machine code read from the cache needs none of
them, only Numba's runtime (the allocator the code calls), so :func:`cached_kernels`
loads with the runtime initialised and the registries left as they are. Compiling
(a first run, or a kernel that is not cached) refreshes the registries itself, as
always. Where Numba's internals differ from those this was written for, nothing is
changed.

The kernels follow one rule about the cache: a helper inlined into its callers
(``inline="always"``) keeps no cache of its own. Its code is part of every caller's cached
code, and each cached function costs every import of its module a check of the cache
folder (a file created and removed).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def cached_kernels() -> Iterator[None]:
    """Within the block, kernels load from Numba's cache without refreshing the
    registries first (see the module's text)."""
    try:
        from numba.core import caching
        from numba.core.runtime import nrt

        cache_class: Any = caching.Cache
        refreshing_load = cache_class.load_overload
        guard = cache_class._guard_against_spurious_io_errors
        load = cache_class._load_overload
        runtime = nrt.rtsys
    except (ImportError, AttributeError):
        yield
        return

    def load_without_refresh(self: Any, sig: Any, target_context: Any) -> Any:
        runtime.initialize(target_context)
        with guard(self):
            return load(self, sig, target_context)
        return None  # the guard swallowed an I/O error: compile instead

    cache_class.load_overload = load_without_refresh
    try:
        yield
    finally:
        cache_class.load_overload = refreshing_load

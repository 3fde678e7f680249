"""Loading compiled kernels from Numba's cache at the speed of reading them, and compiling
plain functions that a caller without Numba runs as they are (:func:`compile_plain`).

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

import types
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Literal, TypedDict, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])


class KernelOptions(TypedDict, total=False):
    """Numba's options for one kernel of :func:`compile_plain`."""

    cache: bool
    inline: Literal["never", "always"]


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


def compile_plain(functions: Mapping[str, Any],
                  options: Mapping[str, KernelOptions]) -> dict[str, Any]:
    """Numba kernels of plain functions that call one another (named in ``options``, with
    Numba's options for each), from ``functions`` (their module's namespace).

    The plain functions stay plain, for a caller that need not import Numba (one hand's
    advice); each kernel is a copy compiled where the names of the others are kernels
    too, since compiled code can call compiled functions only. The copies keep their
    module, name and code, so Numba's cache knows them by their source file.
    """
    import numba

    namespace = dict(functions)
    kernels: dict[str, Any] = {}
    for name, chosen in options.items():
        plain = functions[name]
        copy = types.FunctionType(plain.__code__, namespace, plain.__name__,
                                  plain.__defaults__, plain.__closure__)
        copy.__qualname__, copy.__module__ = plain.__qualname__, plain.__module__
        copy.__doc__, copy.__annotations__ = plain.__doc__, plain.__annotations__
        kernels[name] = namespace[name] = numba.njit(**chosen)(copy)
    return kernels


def kernel_of(kernels: Mapping[str, object], plain: F) -> F:
    """The kernel :func:`compile_plain` made of ``plain``, typed as ``plain``."""
    return cast(F, kernels[plain.__name__])

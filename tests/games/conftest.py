"""The toy game family (``tests/games/toy``), added to the registry in process for the
tests that ask for it, and taken back afterwards."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from feltlab.core import registry
from feltlab.core.family import GameFamily
from games.toy.family import family as toy


@pytest.fixture(scope="module")
def toy_family() -> Iterator[GameFamily]:
    """The toy family, registered for the module's tests through the same registry as the
    installed families (``registry.register``), unregistered at the end."""
    registry.register(toy)
    try:
        yield toy
    finally:
        registry.unregister(toy.game)

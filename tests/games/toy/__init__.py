"""A toy game family in one folder, the proof that a new game is one folder: one card
each to the player and the dealer, fold or raise, the higher rank wins.

It implements the whole :class:`~feltlab.core.family.GameFamily` protocol as an installed
family would, importing only :mod:`feltlab.core` (and NumPy, Numba, pydantic); the tests
add it to the registry in process (``tests/games/conftest.py``).
"""

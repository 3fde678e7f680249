"""The game families: one folder each, everything one game knows.

Each folder implements :class:`feltlab.core.family.GameFamily` in its ``family`` module
and is registered as an entry point in the group ``feltlab.games`` (feltlab's
``pyproject.toml``); the code above the games reaches a family only through the
registry (:mod:`feltlab.core.registry`), never by importing its folder.
"""

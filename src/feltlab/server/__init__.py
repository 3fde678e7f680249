"""The table server: real tables over HTTP with a double-entry ledger, provably fair
shuffles, recall, an audit chain and crash recovery (``feltlab serve``).

:func:`feltlab.server.app.create_app` builds the ASGI application for a database URL.
"""

"""The table server: real tables over HTTP with a double-entry ledger, provably fair
shuffles, recall, an audit chain and crash recovery (``feltlab serve``).

:func:`feltlab.server.app.create_app` builds API v1 from the server's settings (one frozen
object, :mod:`feltlab.server.settings`, the only module here that reads the environment).
Its routers (:mod:`feltlab.server.api`) read a request, call a service and answer a
response model; the services (:mod:`feltlab.server.services`) hold every SQL statement;
what callers see is built without the database (:mod:`feltlab.server.views`); refusals
are domain errors (:mod:`feltlab.server.errors`) answered over HTTP in one place
(:mod:`feltlab.server.handlers`). The server knows nothing of the browser's pages:
:mod:`feltlab.app` adds them.
"""

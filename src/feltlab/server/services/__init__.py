"""The table server's services: the only modules that build and run SQL (beside the
migrations). Each keeps one part of the state: accounts and logins, tables and seats,
rounds (their log, their lifecycle, reading them), money requests and their
idempotency, the ledger, the audit chain, trainer scores, shared-table deadlines and the
database's part in live updates. :class:`~feltlab.server.services.context.Services`
holds what they share; the routers in :mod:`feltlab.server.api` call them.
"""

"""A reference operator wallet: the casino side that feltlab calls in seamless-wallet mode.

It stands for a third party's code, so it imports nothing from feltlab. See README.md.
"""

from .app import ConnectionDropped, create_wallet_app
from .faults import FaultPlan, FaultRule, Faults
from .signing import HEADER, SignatureError, sign, verify
from .store import Account, Ledger, Transaction, open_ledger

__all__ = [
    "HEADER",
    "Account",
    "ConnectionDropped",
    "FaultPlan",
    "FaultRule",
    "Faults",
    "Ledger",
    "SignatureError",
    "Transaction",
    "create_wallet_app",
    "open_ledger",
    "sign",
    "verify",
]

"""The reference operator wallet (examples/operator_wallet) run as its own process, as an
operator's would be: started with uvicorn on a free port, its faults set and its ledger
read as an operator's admin would."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx
import pytest
from examples.operator_wallet import Ledger, open_ledger

from server.pg import free_port

ROOT = Path(__file__).resolve().parents[2]
SECRET = "wallet-secret-shared-with-feltlab-0001"
ADMIN_TOKEN = "wallet-admin-token-for-the-tests"
FaultRule = dict[str, object]


class WalletProcess:
    """A running wallet: ``url`` to call, ``database`` its SQLite ledger."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.database = folder / "wallet.sqlite3"
        environment = dict(os.environ, OPERATOR_WALLET_SECRET=SECRET,
                           OPERATOR_WALLET_ADMIN_TOKEN=ADMIN_TOKEN,
                           PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "examples.operator_wallet", "--port", str(self.port),
             "--db", str(self.database), "--log-level", "critical"],
            cwd=ROOT, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.admin = httpx.Client(base_url=self.url, timeout=5,
                                  headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
        self._wait()

    def _wait(self) -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the wallet exited with {self.process.returncode}")
            try:
                if self.admin.get("/_health").json() == {"ok": True}:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("the wallet did not start within 20 s")

    def faults(self, rules: Sequence[FaultRule] = ()) -> None:
        """Replace the wallet's fault plan (none: every call answered normally)."""
        answer = self.admin.post("/_faults", json={"faults": list(rules)})
        assert answer.status_code == 200, answer.text

    def remaining(self) -> list[int | None]:
        """Each fault rule's remaining count: how many calls it may still take."""
        answer = self.admin.get("/_faults")
        assert answer.status_code == 200, answer.text
        return [rule["remaining"] for rule in answer.json()["faults"]]

    def ledger(self) -> Ledger:
        return open_ledger(self.database)

    def stop(self) -> None:
        self.admin.close()
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="module")
def wallet_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WalletProcess]:
    wallet = WalletProcess(tmp_path_factory.mktemp("wallet"))
    yield wallet
    wallet.stop()


@pytest.fixture
def wallet_server(wallet_process: WalletProcess) -> Iterator[WalletProcess]:
    """The module's wallet, without faults at the start and the end of a test."""
    wallet_process.faults()
    yield wallet_process
    wallet_process.faults()

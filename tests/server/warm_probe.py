"""Run in a fresh process by ``test_warmup.py``: the server's warm-up, then money requests
at a practice table of every built-in rule set, the trainer's advice and the pit's figures
of every settled seat; prints (JSON) every compiled function Numba loaded or compiled
after the warm-up (from its disk cache or its compiler: both add an overload)."""

from __future__ import annotations

import json
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from numba.core import dispatcher, event

from feltlab.server import warmup


def main() -> None:
    """The probe (see the module's text); run as a script only: pytest imports this
    module for its doctests, and must not run it."""
    from fastapi.testclient import TestClient

    from feltlab.server.app import create_app
    from server.conftest import play_round, practice_table, settings_for, sign_up
    from server.test_rounds import BETS
    from shipped import own_ids

    cold = "--cold" in sys.argv  # the control: no warm-up, so the requests load kernels
    if not cold:  # what a server's worker runs (its designer's processes warm the designer)
        warmup.warm_everything(steps=warmup.SERVER_STEPS)
        for thread in threading.enumerate():  # reads the warm-up left running beside it
            if thread.name.startswith("feltlab-") and thread is not threading.current_thread():
                thread.join(600)

    added: list[str] = []
    compiled: list[str] = []
    _add_overload = dispatcher.Dispatcher.add_overload

    def add_overload(self: Any, cres: Any) -> None:
        added.append(f"{self.py_func.__module__}.{self.py_func.__qualname__}")
        _add_overload(self, cres)

    class Compiles(event.Listener):  # type: ignore[misc]
        def on_start(self, ev: Any) -> None:
            compiled.append(str(ev.data["dispatcher"]))

        def on_end(self, ev: Any) -> None:
            pass

    dispatcher.Dispatcher.add_overload = add_overload  # type: ignore[method-assign]
    event.register("numba:compile", Compiles())
    sees = _the_probe_sees_a_compile(added, compiled)

    folder = Path(tempfile.mkdtemp())
    url = f"sqlite:///{folder / 'warm.sqlite3'}"
    app = create_app(settings_for(url), timers=False)
    with TestClient(app) as client:
        services = client.app.state.services  # type: ignore[attr-defined]
        services.recorder.stop()  # the figures are written below, by flush, in this thread
        headers = sign_up(client)
        rounds = 0
        for rules_id, body in BETS.items():
            table = practice_table(client, headers, rules_id)
            for index in range(6):  # fold, the smallest stake, the largest
                play_round(client, headers, table, body,
                           lambda options, index=index: options[(index % 3 - 1) % len(options)
                                                                if index % 3 else 0])
                rounds += 1
            drill = client.get("/api/v1/drills", params={"rules": rules_id}, headers=headers)
            if rules_id in own_ids():  # the test game has no advisor, so no drills
                assert drill.status_code == 200, drill.text
        services.recorder.flush()
    print(json.dumps({"rounds": rounds, "added": added, "compiled": compiled,
                      "probe_sees": sees}))


def _the_probe_sees_a_compile(added: list[str], compiled: list[str]) -> bool:
    """The control: a function compiled now shows in both lists (then they are emptied).
    Since the advisors count in plain Python, a money request loads no compiled function
    even without a warm-up, so a cold run no longer shows that the probe can see one."""
    import numba

    @numba.njit(cache=False)
    def one_more(x: int) -> int:
        return x + 1

    one_more(1)
    sees = any("one_more" in name for name in added) and bool(compiled)
    added.clear()
    compiled.clear()
    return sees


if __name__ == "__main__":
    main()

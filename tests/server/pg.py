"""A throwaway PostgreSQL started from the machine's binaries (initdb, pg_ctl), in a
temporary folder on a free port; run as the ``postgres`` user when the tests run as root."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

REQUIRE = os.environ.get("FELTLAB_REQUIRE_POSTGRES") == "1"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ThrowawayPostgres:
    def __init__(self) -> None:
        if shutil.which("pg_ctl") is None or shutil.which("initdb") is None:
            raise FileNotFoundError("pg_ctl and initdb are not on PATH")
        self.folder = Path(tempfile.mkdtemp(prefix="feltlab-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self.as_root = os.geteuid() == 0
        if self.as_root:
            shutil.chown(self.folder, "postgres")
            os.chmod(self.folder, 0o755)
        self._run(["initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust",
                   "-E", "UTF8", "--no-sync"])
        self._run(["pg_ctl", "-D", str(self.data), "-l", str(self.folder / "log"), "-w",
                   "-o", f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
                   "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                   "-c max_connections=200", "start"])
        self.counter = 0
        self.migrated: str | None = None  # the database migrated_database copies

    def _run(self, command: list[str]) -> None:
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self, template: str | None = None) -> str:
        """A new database: empty, or a copy of the database named ``template``."""
        import psycopg

        self.counter += 1
        name = f"feltlab_test_{os.getpid()}_{self.counter}_{int(time.time() * 1000) % 100000}"
        copied = f' TEMPLATE "{template}"' if template else ""
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres",
                             autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"{copied}')
        return self.url(name)

    def migrated_database(self) -> str:
        """A new database whose schema is at the newest revision: a copy (``CREATE
        DATABASE ... TEMPLATE``) of one migrated once for the whole run, instead of the
        migrations run again for every test (about a second each on one core, against a
        tenth of that for the copy). The copy holds what the migrations leave, row for
        row: they are deterministic."""
        if self.migrated is None:
            from feltlab.server.migrate import upgrade
            from feltlab.server.services.database import make_engine

            url = self.new_database()
            engine = make_engine(url)
            try:
                upgrade(engine)
            finally:
                engine.dispose()  # a template takes no connections while it is copied
            self.migrated = url.rsplit("/", 1)[1]
        return self.new_database(template=self.migrated)

    def stop(self) -> None:
        """Immediate shutdown, waiting at most 10 s for the server to go."""
        try:
            self._run(["pg_ctl", "-D", str(self.data), "-m", "immediate", "-W", "stop"])
            deadline = time.monotonic() + 10
            while (self.data / "postmaster.pid").exists() and time.monotonic() < deadline:
                time.sleep(0.1)
        finally:  # a cluster of a hundred test databases takes a while to delete: do it aside
            subprocess.Popen(["rm", "-rf", "--", str(self.folder)], start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

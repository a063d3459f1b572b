"""A real PostgreSQL 15 (Debian's binaries) in a temporary folder, on 127.0.0.1 and a free port.

`initdb` refuses to run as root, so as root the server runs as the `postgres` user. TCP logins
need a password (scram-sha-256); the helpers hand it over as PGPASSWORD, never in a URL. The
fixture and `bench/night.py` both use `PgServer`.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from devkit.web import free_port

PG_BIN = Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))
PASSWORD = "team-secret-4711"


def available() -> bool:
    """True when the PostgreSQL server binaries are installed."""
    return (PG_BIN / "initdb").is_file() and (PG_BIN / "pg_ctl").is_file()


class PgServer:
    """One PostgreSQL server: `start()`, `create_database(name)` → URL (no password), `stop()`."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="nonseq-pg-"))
        self.port = free_port()
        self._run_as: dict[str, Any] = {}
        if os.geteuid() == 0:
            entry = pwd.getpwnam("postgres")
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
            self._run_as = {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}

    @property
    def env(self) -> dict[str, str]:
        """What a client needs in its environment: the password."""
        return {"PGPASSWORD": PASSWORD}

    def _run(self, *args: str) -> None:
        """Run a server binary as the server's user; its output is in the error when it fails."""
        done = subprocess.run([str(PG_BIN / args[0]), *args[1:]], capture_output=True, text=True,
                              cwd=self.root, check=False, **self._run_as)
        if done.returncode:
            raise RuntimeError(f"{args[0]} failed: {done.stdout}{done.stderr}")

    def start(self) -> PgServer:
        """initdb, then pg_ctl start (waits until it accepts connections)."""
        pwfile = self.root / "pw"
        pwfile.write_text(PASSWORD)
        if self._run_as:
            os.chown(pwfile, self._run_as["user"], self._run_as["group"])
        self._run("initdb", "-D", str(self.root / "data"), "-U", "postgres", "--pwfile", str(pwfile),
                  "--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8", "--no-sync")
        self.restart()
        return self

    def url(self, database: str = "postgres") -> str:
        """The database's URL (the password comes from PGPASSWORD)."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """A new empty database; its URL."""
        import psycopg

        with psycopg.connect(self.url(), password=PASSWORD, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"'.encode())
        return self.url(name)

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (mode immediate: like a crash)."""
        if (self.root / "data" / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.root / "data"), "-m", mode, "-w", "stop")

    def restart(self) -> None:
        """Start the server (again after stop()), listening on 127.0.0.1 only."""
        options = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} -c fsync=off "
                   "-c full_page_writes=off -c max_connections=60")
        self._run("pg_ctl", "-D", str(self.root / "data"), "-o", options, "-l", str(self.root / "log"),
                  "-w", "-t", "60", "start")

    def remove(self) -> None:
        """Stop the server and delete its folder."""
        try:
            self.stop("immediate")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

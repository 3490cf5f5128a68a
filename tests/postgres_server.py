"""A throwaway PostgreSQL server for the tests: Debian's ``initdb`` and ``pg_ctl`` in a temporary
folder, listening on a free port of 127.0.0.1, with a password-protected user; stopped afterwards.

PostgreSQL refuses to run as root, so as root the server runs as the ``postgres`` user the Debian
package creates (``runuser``).
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from gryph.client.spark.session.local_server import free_port

USER = "gryph"
PASSWORD = "s3cret-pw-9173"  # tests check that it appears in no message and no output
DATABASE = "gryph"


def _binaries() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if not found:
        raise RuntimeError("PostgreSQL is not installed (apt-get install -y postgresql, or run .ci/bootstrap.sh)")
    return Path(found[-1]).parent


class PostgresServer:
    """One server; ``url(...)`` builds connection URLs, ``execute`` runs SQL as its owner."""

    def __init__(self) -> None:
        self.bin = _binaries()
        self.root = Path(tempfile.mkdtemp(prefix="gryph-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self._as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self._as:
            shutil.chown(self.root, "postgres")
        password_file = self.root / "pw"
        password_file.write_text(PASSWORD + "\n")
        if self._as:
            shutil.chown(password_file, "postgres")
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            USER,
            "-A",
            "scram-sha-256",
            f"--pwfile={password_file}",
            "-E",
            "UTF8",
            "--locale=C",
        )
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.root / "log"),
            "-w",
            "-o",
            f"-h 127.0.0.1 -p {self.port} -k {self.root} -F",
            "start",
        )
        self.started = True
        self.execute(f"CREATE DATABASE {DATABASE}", database="postgres")

    def _run(self, *argv: str) -> None:
        done = subprocess.run([*self._as, *argv], capture_output=True, text=True, cwd=self.root)
        if done.returncode != 0:
            raise RuntimeError(f"{argv[0]} failed: {done.stdout}{done.stderr}")

    def url(self, password: bool = True, database: str = DATABASE) -> str:
        secret = f":{PASSWORD}" if password else ""
        return f"postgresql://{USER}{secret}@127.0.0.1:{self.port}/{database}"

    def execute(self, sql: str, database: str = DATABASE) -> None:
        """Run statements as the owner (autocommit, so CREATE DATABASE works)."""
        import adbc_driver_postgresql.dbapi as pg

        with pg.connect(self.url(database=database), autocommit=True) as con, con.cursor() as cursor:
            cursor.execute(sql)

    def stop(self) -> None:
        if self.started:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
            self.started = False
        shutil.rmtree(self.root, ignore_errors=True)

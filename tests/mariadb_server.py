"""A throwaway MariaDB server for the tests: Debian's ``mariadb-install-db`` into a temporary
folder and ``mariadbd`` on a free port of 127.0.0.1 (its socket, pid file and log in that folder),
with a password-protected user; stopped afterwards.

As root the server runs as root (``--user=root``, which mariadbd otherwise refuses).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from gryph.client.spark.session.local_server import free_port, port_open

USER = "gryph"
PASSWORD = "m4ria-pw-5821"  # tests check that it appears in no message and no output
DATABASE = "gryph"
START_TIMEOUT = 60.0


def _binary(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")
    if found is None:
        raise RuntimeError(
            f"MariaDB is not installed ({name} not found: apt-get install -y --no-install-recommends "
            "mariadb-server, or run .ci/bootstrap.sh tests)"
        )
    return found


class MariaDBServer:
    """One server; ``url(...)`` builds connection URLs, ``execute`` runs SQL as its root user."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="gryph-mariadb-"))
        self.data = self.root / "data"
        self.socket = self.root / "mariadbd.sock"
        self.port = free_port()
        self._user = ["--user=root"] if os.geteuid() == 0 else []
        done = subprocess.run(
            [
                _binary("mariadb-install-db"),
                "--no-defaults",
                f"--datadir={self.data}",
                *self._user,
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
            ],
            capture_output=True,
            text=True,
            cwd=self.root,
        )
        if done.returncode != 0:
            raise RuntimeError(f"mariadb-install-db failed: {done.stdout}{done.stderr}")
        self.log = self.root / "mariadbd.log"
        self.process = subprocess.Popen(
            [
                _binary("mariadbd"),
                "--no-defaults",
                f"--datadir={self.data}",
                *self._user,
                "--bind-address=127.0.0.1",
                f"--port={self.port}",
                f"--socket={self.socket}",
                f"--pid-file={self.root / 'mariadbd.pid'}",
                f"--log-error={self.log}",
                "--skip-name-resolve",
                # small: a test server holds a few small tables
                "--innodb-buffer-pool-size=32M",
                "--innodb-log-file-size=8M",
                "--character-set-server=utf8mb4",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=self.root,
            start_new_session=True,
        )
        self._wait_until_listening()
        self.execute(
            f"CREATE USER '{USER}'@'127.0.0.1' IDENTIFIED BY '{PASSWORD}';"
            f"CREATE DATABASE {DATABASE} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;"
            f"GRANT ALL ON *.* TO '{USER}'@'127.0.0.1';"
        )

    def _wait_until_listening(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""
                self.stop()
                raise RuntimeError(f"mariadbd exited with {self.process.returncode}: {tail}")
            if port_open("127.0.0.1", self.port, timeout=0.5):
                return
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"mariadbd did not listen within {START_TIMEOUT:.0f} s")

    def url(self, password: bool = True, database: str = DATABASE) -> str:
        secret = f":{PASSWORD}" if password else ""
        return f"mysql://{USER}{secret}@127.0.0.1:{self.port}/{database}"

    def execute(self, sql: str, database: str = "") -> str:
        """Run statements as root over the socket (Debian's ``mariadb`` client); their output."""
        database_argv = [database] if database else []
        done = subprocess.run(
            [_binary("mariadb"), "--no-defaults", f"--socket={self.socket}", "-uroot", "--batch", *database_argv],
            input=sql,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise RuntimeError(f"mariadb failed: {done.stderr}")
        return done.stdout

    def stop(self) -> None:
        """Stop the server (SIGTERM shuts it down cleanly) and drop its folder."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        shutil.rmtree(self.root, ignore_errors=True)

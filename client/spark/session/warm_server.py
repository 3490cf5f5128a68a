"""A local Spark Connect server kept running between runs: ``gryph spark start | status | stop``.

``start`` launches the server ``--remote local`` would start (with the connectors) and leaves it
running; what it is lives in ``<gryph cache>/spark-server/server.json`` (pid, port, URL, Spark
version), its logs and scratch beside it. ``--remote local`` connects to that server while it
answers, so a run skips Spark's 30-40 s start; ``stop`` ends it. A state file whose process is
gone or whose port no longer answers is stale: it is removed and reads as no server.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

from gryph.compiler.errors import EngineError

from .connector_jars import jar_cache
from .local_server import START_TIMEOUT, kill_group, port_open, spark_home, start_local_server

_STATE = "server.json"


@dataclass(frozen=True)
class WarmServer:
    """A kept local Connect server: its process group, port and URL, and the Spark it runs."""

    pid: int
    port: int
    url: str
    spark_version: str
    folder: str  # its logs and scratch

    def alive(self) -> bool:
        """Whether its process still runs and its port answers."""
        return not self.gone() and port_open("127.0.0.1", self.port)

    def gone(self) -> bool:
        """Whether no process of its group is left."""
        try:
            os.killpg(self.pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:  # another user's process group took the id: none of ours is left
            return True
        return False


def server_folder() -> Path:
    """Where the kept server's state file, logs and scratch live."""
    return jar_cache() / "spark-server"


def running_server() -> WarmServer | None:
    """The kept server, if one runs; a stale state file is removed."""
    state = server_folder() / _STATE
    try:
        server = WarmServer(**json.loads(state.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError):  # damaged: nothing can be trusted in it
        state.unlink(missing_ok=True)
        return None
    if server.alive():
        return server
    state.unlink(missing_ok=True)
    return None


def start_server(timeout: float = START_TIMEOUT) -> tuple[WarmServer, bool]:
    """The kept server, started unless one runs; the flag says whether this call started it."""
    server = running_server()
    if server is not None:
        return server, False
    spark_home()  # pyspark installed, or SPARK_MISSING naming the extra, before anything is made
    from pyspark import __version__ as spark_version

    folder = server_folder()
    shutil.rmtree(folder / "work", ignore_errors=True)  # a crashed server's scratch
    (folder / "work").mkdir(parents=True)
    local = start_local_server(timeout=timeout, workdir=folder / "work")
    assert local.connect_pid is not None
    port = int(local.url.rsplit(":", 1)[1])
    server = WarmServer(local.connect_pid, port, local.url, spark_version, str(folder / "work"))
    state = folder / _STATE
    staging = state.with_suffix(".tmp")
    staging.write_text(json.dumps(asdict(server)), encoding="utf-8")
    staging.replace(state)  # whole or absent: a reader never sees half a file
    return server, True


def stop_server() -> WarmServer | None:
    """Stop the kept server and remove its state and scratch; None when none was running."""
    server = running_server()
    if server is None:
        return None
    kill_group(server.pid, server.gone)
    if not server.gone():
        raise EngineError(
            "SPARK_START",
            f"the local Spark server (process group {server.pid}, port {server.port}) did not stop",
            hint=f"its logs are in {server.folder}",
        )
    (server_folder() / _STATE).unlink(missing_ok=True)
    shutil.rmtree(server.folder, ignore_errors=True)
    return server

"""Open a Spark Connect session with fast, clear failures (server down, auth, versions).

The Connect client retries an unreachable server for about ten minutes by default; a data-quality
run should instead fail in seconds and say which host and port it tried. Once connected, a server
that stops answering is retried for ``GRYPH_SPARK_RETRY_SECONDS`` (30 by default), so a blip is
ridden out but a gate does not hang for ten minutes on a server that is gone.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import urlsplit

from gryph.compiler.errors import EngineError

from .local_server import LocalSpark, port_open, start_local_server

if TYPE_CHECKING:  # pyspark loads only when a Spark run connects
    from pyspark.sql.connect.session import SparkSession

_T = TypeVar("_T")

CONNECT_TIMEOUT = 10.0  # seconds to wait for the TCP port to answer
FIRST_RPC_TIMEOUT = 15.0  # seconds for the first request (handshake, auth, version)
DEFAULT_PORT = 15002
RETRY_SECONDS_VARIABLE = "GRYPH_SPARK_RETRY_SECONDS"
DEFAULT_RETRY_SECONDS = 30.0
CLOSE_SECONDS = 15.0  # longest wait for a server to release the session when a run ends
_PIP_HINT = 'pip install "gryph[spark]"'


@dataclass
class Connection:
    """A live session, and the local server it owns when ``remote`` was ``"local"``."""

    session: SparkSession
    url: str
    server_version: str
    server: LocalSpark | None = field(default=None, repr=False)
    # the session's settings a small run changed (small_runs.py), to put back; None: unchanged
    small_run_put_back: dict[str, str | None] | None = field(default=None, repr=False)

    def reachable(self) -> bool:
        """Whether the server still accepts connections: requests to one that is gone would
        each wait out the retry budget."""
        return port_open(*endpoint(self.url))

    def lost(self, failure: EngineError) -> EngineError:
        """The error for a request that failed because the server went away during it."""
        host, port = endpoint(self.url)
        return EngineError(
            "SPARK_UNREACHABLE",
            f"the Spark Connect server at {host}:{port} stopped "
            f"accepting connections during the run ({failure.message})",
            hint="was it stopped or did it crash? its log says why; run again once it is back",
        )

    def close(self) -> None:
        """Stop the session, then the local server if this connection started it.

        Stopping waits on requests to the server, which have no deadline: it runs in a thread
        whose wait is bounded, so a server that hangs (or a port another program took since)
        does not hold the caller. Nothing is released on a server that is gone, but PySpark
        would still wait up to 10 s for its pending release requests: that stop is not waited for.
        """
        try:
            reachable = self.reachable()
            if not reachable:
                self.session.release_session_on_close = False
            stopping = threading.Thread(target=self._stop_session, daemon=True, name="gryph-spark-close")
            stopping.start()
            stopping.join(CLOSE_SECONDS if reachable else 0)
        finally:
            if self.server is not None:
                self.server.stop()
                self.server = None

    def _stop_session(self) -> None:
        try:
            self.session.stop()
        except Exception:  # the run is over and its results are out: a failed release changes nothing
            pass


def _import_pyspark() -> tuple[str, type[SparkSession]]:
    try:
        import pyspark
        from pyspark.sql.connect.session import SparkSession
    except ImportError as exc:
        raise EngineError(
            "SPARK_MISSING",
            f"the Spark engine needs pyspark with Spark Connect support, which is not installed ({exc})",
            hint=_PIP_HINT,
        ) from exc
    from .close_once import close_clients_once

    close_clients_once()
    return pyspark.__version__, SparkSession


def endpoint(url: str) -> tuple[str, int]:
    """Host and port of an ``sc://host:port/;param=value`` URL."""
    parts = urlsplit(url)
    if parts.scheme != "sc" or not parts.hostname:
        raise EngineError(
            "SPARK_URL",
            f"not a Spark Connect URL: {url!r}",
            hint="use sc://host:port (parameters after '/;', e.g. ;token=...;use_ssl=true)",
        )
    try:
        return parts.hostname, parts.port or DEFAULT_PORT
    except ValueError as exc:  # a port that is not a number
        raise EngineError("SPARK_URL", f"bad port in Spark Connect URL {url!r}") from exc


def _wait_for_port(host: str, port: int, timeout: float) -> None:
    """Return once ``host:port`` accepts TCP; a refusal or an unknown host fails at once."""
    hint = "start it (sbin/start-connect-server.sh) or check the URL / SPARK_REMOTE"
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((host, port), timeout=min(2.0, timeout)):
                return
        except ConnectionRefusedError:
            raise EngineError(
                "SPARK_UNREACHABLE", f"nothing accepts connections at {host}:{port} (connection refused)", hint=hint
            ) from None
        except socket.gaierror:
            raise EngineError("SPARK_UNREACHABLE", f"cannot resolve the host of {host}:{port}", hint=hint) from None
        except OSError:  # no answer yet (a firewall, a server still starting): wait, but not forever
            if time.monotonic() >= deadline:
                raise EngineError(
                    "SPARK_UNREACHABLE",
                    f"cannot reach the Spark Connect server at {host}:{port} (no answer within {timeout:.0f} s)",
                    hint=hint,
                ) from None
            time.sleep(0.25)


def _bounded(call: Callable[[], _T], timeout: float, host: str, port: int) -> _T:
    """Run ``call`` in a daemon thread; give up waiting after ``timeout`` seconds.

    An abandoned call keeps running in its thread and cleans up after itself there: touching
    the session from here would block on the request still in flight.
    """
    values: list[_T] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            values.append(call())
        except BaseException as exc:  # handed to the caller's thread below
            errors.append(exc)

    thread = threading.Thread(target=target, daemon=True, name="gryph-spark-handshake")
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise EngineError(
            "SPARK_UNREACHABLE",
            f"the server at {host}:{port} accepts connections but gave no Spark Connect answer within {timeout:.0f} s",
            hint="is this port a Spark Connect (gRPC) endpoint? does it need use_ssl=true?",
        )
    if errors:
        raise errors[0]
    return values[0]


# Settings the engines' semantic contract needs of every session (docs/rules.md on NaN).
SEMANTIC_SETTINGS = {
    # Times are computed in UTC whatever the server's default zone is.
    "spark.sql.session.timeZone": "UTC",
    # Min/max statistics leave NaN out: Parquet footers (the format's rule), and the Delta and
    # Iceberg logs made from them. Whatever Spark decides from them misses the NaN the contract
    # ranks above every number (DuckDB reads the rows), and a copy kept on the cluster has no
    # statistics, so answers also changed with whether a source was kept. Metrics scan whole
    # sources: skipping by statistics saves them little. What each setting turns off:
    # Parquet row groups pruned by a pushed filter (`amount > 1000` skipped a group whose only
    # match was NaN: 0 where DuckDB counts 1)
    "spark.sql.parquet.filterPushdown": "false",
    # Delta files skipped by the log's statistics (the same filter, on a table deltalake wrote)
    "spark.databricks.delta.stats.skipping": "false",
    # a lone max(x) or min(x) answered from the Delta log: its largest number instead of NaN
    "spark.databricks.delta.optimizeMetadataQuery.enabled": "false",
    # Iceberg's counterpart: min/max pushed down to its manifests' bounds, which 1.12.0 takes as
    # the range of a column that holds NaN (or of a string column, whose bounds it may truncate);
    # changed in Iceberg after 1.12.0 (apache/iceberg#15070, #16320)
    "spark.sql.iceberg.aggregate-push-down.enabled": "false",
}


def _handshake(session: SparkSession, client_version: str, host: str, port: int) -> str:
    """The first request: the server's version; stops the session if anything fails."""
    try:
        server_version = session.version
        _check_versions(client_version, server_version)
        for key, value in SEMANTIC_SETTINGS.items():
            session.conf.set(key, value)
        return server_version
    except EngineError:
        session.stop()
        raise
    except Exception as exc:
        session.stop()
        raise _handshake_error(exc, host, port) from exc


def grpc_status(exc: BaseException) -> str:
    """The gRPC status name of a Connect failure ("" for other failures)."""
    status = getattr(exc, "getGrpcStatusCode", lambda: None)()
    return getattr(status, "name", "") or ""


def _handshake_error(exc: Exception, host: str, port: int) -> EngineError:
    """Turn the first RPC's failure into an error that says what to do."""
    status_name = grpc_status(exc)
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if status_name in ("UNAUTHENTICATED", "PERMISSION_DENIED") or "authenticat" in text.lower():
        return EngineError(
            "SPARK_AUTH",
            f"the Spark Connect server at {host}:{port} refused authentication: {text}",
            hint="check the ;token=... (and ;use_ssl=true) parts of the URL",
        )
    return EngineError("SPARK_CONNECT", f"the Spark Connect server at {host}:{port} failed the first request: {text}")


def major_minor(version: str) -> tuple[int, int]:
    """A Spark version's major and minor numbers ("4.0.1" -> (4, 0); "4.1.0-preview2" -> (4, 1))."""
    numbers = [int("".join(ch for ch in part if ch.isdigit()) or 0) for part in version.split(".")[:2]]
    major, minor = [*numbers, 0, 0][:2]
    return major, minor


def _check_versions(client: str, server: str) -> None:
    """A client newer than the server sends plans the server cannot read: refuse early."""
    if major_minor(client)[0] != major_minor(server)[0] or major_minor(client) > major_minor(server):
        raise EngineError(
            "SPARK_VERSION",
            f"pyspark {client} cannot talk to Spark Connect server "
            f"{server}: the client must not be newer than the server",
            hint=f'install a matching client: pip install "pyspark[connect]=={server}"',
        )


def retry_seconds() -> float:
    """How long a request waits for a server that stopped answering (``GRYPH_SPARK_RETRY_SECONDS``)."""
    text = os.environ.get(RETRY_SECONDS_VARIABLE, "").strip()
    if not text:
        return DEFAULT_RETRY_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= 86400:
        raise EngineError(
            "SPARK_RETRY",
            f"{RETRY_SECONDS_VARIABLE}={text!r} is not a number of seconds from 0 to 86400",
            hint=f"e.g. {RETRY_SECONDS_VARIABLE}=30",
        )
    return seconds


def _open(url: str) -> tuple[SparkSession, str]:
    client_version, session_class = _import_pyspark()
    from pyspark.sql.connect.client.retries import DefaultPolicy

    host, port = endpoint(url)
    _wait_for_port(host, port, CONNECT_TIMEOUT)
    try:
        session = session_class.builder.remote(url).create()
    except Exception as exc:
        raise EngineError("SPARK_URL", f"cannot open a Spark Connect session for {url!r}: {exc}") from exc
    client = session.client
    from .outage import OutageBudget

    budget = OutageBudget(retry_seconds())
    # A few quick retries for the handshake only; later requests get the run's budget.
    client.set_retry_policies([DefaultPolicy(max_retries=3, max_backoff=1000)])
    server_version = _bounded(lambda: _handshake(session, client_version, host, port), FIRST_RPC_TIMEOUT, host, port)
    client.set_retry_policies([budget])
    return session, server_version


def connect(remote: str | None = None) -> Connection:
    """Connect to ``remote``: an ``sc://`` URL, ``"local"`` (the server ``gryph spark start`` keeps
    running, else a private one started for this run), or None.

    None reads the ``SPARK_REMOTE`` environment variable.
    """
    remote = remote if remote is not None else os.environ.get("SPARK_REMOTE")
    if not remote:
        raise EngineError(
            "SPARK_URL", "no Spark Connect server given", hint='pass sc://host:port, "local", or set SPARK_REMOTE'
        )
    if remote == "local":
        _import_pyspark()
        from .warm_server import running_server  # here: `python -m ...connector_jars` finds it unimported

        kept = running_server()  # `gryph spark start`'s server: warm, and left running after the run
        if kept is not None:
            session, version = _open(kept.url)
            return Connection(session, kept.url, version)
        server = start_local_server()
        try:
            session, version = _open(server.url)
        except BaseException:
            server.stop()
            raise
        return Connection(session, server.url, version, server)
    session, version = _open(remote)
    return Connection(session, remote, version)

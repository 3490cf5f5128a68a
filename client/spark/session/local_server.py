"""Start and stop a real Spark Connect server (and a tiny standalone cluster) from the installed PySpark.

Every process runs in its own process group with private log, pid and work directories under a
temporary directory, so ``stop()`` kills exactly what was started (the launcher scripts and their
JVMs) and nothing else on the machine.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from gryph.compiler.errors import EngineError

START_TIMEOUT = 120.0
_CONNECT_SERVER = "org.apache.spark.sql.connect.service.SparkConnectServer"
_LOG_TAIL_LINES = 40


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_open(host: str, port: int, timeout: float = 1.0) -> bool:
    """Whether something accepts TCP connections on ``host:port``."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def spark_home() -> Path:
    """The PySpark package directory, which ships ``bin/``, ``sbin/`` and ``jars/``."""
    try:
        import pyspark
    except ImportError as exc:
        raise EngineError("SPARK_MISSING", "pyspark is not installed", hint='pip install "gryph[spark]"') from exc
    return Path(pyspark.__file__).resolve().parent


def java_home() -> str:
    """JAVA_HOME for the launcher scripts, from JAVA_HOME or the ``java`` on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home and Path(home, "bin", "java").exists():
        return home
    java = shutil.which("java")
    if java is None:
        raise EngineError(
            "SPARK_JAVA",
            "Java 17 or newer is needed to run a local Spark server, and no `java` "
            "was found (JAVA_HOME unset, nothing on PATH)",
            hint="install it, e.g. `apt-get install -y openjdk-17-jre-headless` (or run .ci/bootstrap.sh)",
        )
    return str(Path(java).resolve().parent.parent)


class _Process:
    """One launcher script run in its own process group, its output kept in a log file."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], workdir: Path, port: int) -> None:
        self.name = name
        self.port = port
        self.log = workdir / f"{name}.log"
        with open(self.log, "wb") as out:
            self.popen = subprocess.Popen(
                argv,
                env=env,
                cwd=workdir,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )

    def tail(self) -> str:
        try:
            lines = self.log.read_text(errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-_LOG_TAIL_LINES:])

    def wait_for_port(self, timeout: float) -> None:
        """Block until the port answers; fail with the log tail if the process dies or time runs out."""
        port = self.port
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.popen.poll() is not None:
                raise EngineError(
                    "SPARK_START",
                    f"{self.name} exited with code {self.popen.returncode} before listening on port {port}",
                    text=self.tail(),
                    hint=f"full log: {self.log}",
                )
            if port_open("127.0.0.1", port, timeout=0.5):
                return
            time.sleep(0.25)
        raise EngineError(
            "SPARK_START",
            f"{self.name} did not listen on port {port} within {timeout:.0f} s",
            text=self.tail(),
            hint=f"full log: {self.log}",
        )

    def _gone(self) -> bool:
        # The launcher script can exit before its JVM lets go of the port.
        return self.popen.poll() is not None and not port_open("127.0.0.1", self.port, timeout=0.2)

    def kill(self, graceful: bool = True) -> None:
        """Terminate the whole process group (script, JVM), then force it if it lingers;
        not ``graceful``: force it at once, as a crash would end it."""
        kill_group(self.popen.pid, self._gone, graceful)  # start_new_session made the child its group leader


def kill_group(pgid: int, gone: Callable[[], bool], graceful: bool = True) -> None:
    """SIGTERM the process group ``pgid``, then SIGKILL it if ``gone()`` stays false; not ``graceful``:
    SIGKILL at once."""
    signals = ((signal.SIGTERM, 15.0), (signal.SIGKILL, 5.0)) if graceful else ((signal.SIGKILL, 5.0),)
    for sig, grace in signals:
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if gone():
                return
            time.sleep(0.1)


class LocalSpark:
    """Spark processes started by this module; ``url`` is the Connect endpoint."""

    def __init__(self, workdir: Path, connectors: bool = True) -> None:
        self.workdir = workdir
        self.connectors = connectors  # load spark-avro and the Kafka connector (connector_jars)
        self.url = ""
        self.master_url: str | None = None
        self.connect_pid: int | None = None  # the Connect server's process group
        self._processes: list[_Process] = []
        self._home = spark_home()
        self._env = dict(
            os.environ,
            SPARK_HOME=str(self._home),
            JAVA_HOME=java_home(),
            SPARK_NO_DAEMONIZE="1",
            SPARK_LOG_DIR=str(workdir / "logs"),
            SPARK_PID_DIR=str(workdir / "pids"),
            SPARK_WORKER_DIR=str(workdir / "work"),
            SPARK_LOCAL_IP="127.0.0.1",
            SPARK_LOCAL_HOSTNAME="localhost",
        )
        self._env.pop("SPARK_REMOTE", None)  # would turn the launchers into Connect clients
        self._env.pop("SPARK_CONNECT_MODE_ENABLED", None)
        self._env["SPARK_CONNECT_MODE"] = "0"  # spark-submit starts a server, not a Connect client

    def _launch(self, name: str, argv: list[str], port: int, timeout: float) -> None:
        process = _Process(name, argv, self._env, self.workdir, port)
        self._processes.append(process)
        try:
            process.wait_for_port(timeout)
        except BaseException:
            self._kill_all()  # the work dir stays: the error points at its logs
            raise

    def start_master(self, timeout: float = START_TIMEOUT) -> str:
        """A standalone master on a free port; returns its ``spark://`` URL."""
        port, webui = free_port(), free_port()
        self._launch(
            "master",
            [
                str(self._home / "bin" / "spark-class"),
                "org.apache.spark.deploy.master.Master",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--webui-port",
                str(webui),
            ],
            port,
            timeout,
        )
        self.master_url = f"spark://127.0.0.1:{port}"
        return self.master_url

    def start_worker(self, master_url: str, timeout: float = START_TIMEOUT) -> None:
        """One worker with one core and 1 GiB, registered with ``master_url``."""
        webui = free_port()
        self._launch(
            "worker",
            [
                str(self._home / "bin" / "spark-class"),
                "org.apache.spark.deploy.worker.Worker",
                master_url,
                "--host",
                "127.0.0.1",
                "--cores",
                "1",
                "--memory",
                "1g",
                "--webui-port",
                str(webui),
                "--work-dir",
                str(self.workdir / "work"),
            ],
            webui,
            timeout,
        )

    def start_connect(
        self, master: str = "local[2]", timeout: float = START_TIMEOUT, confs: Mapping[str, str] | None = None
    ) -> str:
        """The Connect server bound to a free loopback port; returns its ``sc://`` URL.

        ``confs`` adds or overrides Spark settings (e.g. ``spark.connect.authenticate.token``).
        """
        port = free_port()
        settings = {
            "spark.connect.grpc.binding.address": "127.0.0.1",
            "spark.connect.grpc.binding.port": str(port),
            "spark.sql.shuffle.partitions": "2",
            # the server's one JVM is driver and executor: a kept source's block spilled to disk
            # is read back into the heap whole, and at 1 GB (Spark's default) a 1M-row split's
            # valid output died of it (java.lang.OutOfMemoryError in maybeCacheDiskBytesInMemory)
            "spark.driver.memory": "2g",
            "spark.sql.session.timeZone": "UTC",
            "spark.local.dir": str(self.workdir / "local"),
            "spark.sql.warehouse.dir": str(self.workdir / "warehouse"),
            "spark.ui.enabled": "false",
            "spark.driver.host": "127.0.0.1",
            **self._jars(),
            **(confs or {}),
        }
        # what sbin/start-connect-server.sh runs, which some PySpark wheels (4.2.0) leave out
        argv = [str(self._home / "bin" / "spark-submit"), "--class", _CONNECT_SERVER, "--name", "Spark Connect server"]
        argv += ["--master", master]
        for key, value in settings.items():
            argv += ["--conf", f"{key}={value}"]
        self._launch("connect-server", argv, port, timeout)
        self.connect_pid = self._processes[-1].popen.pid
        self.url = f"sc://127.0.0.1:{port}"
        return self.url

    def _jars(self) -> dict[str, str]:
        """``spark.jars``: the connectors fetched for this Spark, the JDBC drivers among them (fetched
        on the first start where Maven is installed; a server starts without them otherwise, with
        Debian's JDBC drivers where installed, and a source that needs one fails with a hint); with
        Delta among them, the session settings it needs."""
        from pyspark import __version__ as spark_version

        from .connector_jars import artifact, cached_connector_jars, fetch_connectors

        if self.connectors:
            with contextlib.suppress(EngineError):
                fetch_connectors(spark_version)
        fetched = (
            [str(jar) for jar in cached_connector_jars(spark_version, self._home / "jars")] if self.connectors else []
        )
        drivers = {artifact(Path(jar).name) for jar in fetched}
        # Debian's driver only where Maven Central's was not fetched: one driver of a kind on the classpath
        jars = [jar for name, jar in JDBC_JARS.items() if name not in drivers and Path(jar).is_file()]
        jars += fetched
        settings = {"spark.jars": ",".join(jars)} if jars else {}
        if any(Path(jar).name.startswith("delta-spark_") for jar in jars):
            settings.update(DELTA_SETTINGS)  # Delta reads only in a session configured for it
        return settings

    def _kill_all(self, graceful: bool = True) -> None:
        while self._processes:  # newest first: the Connect server before the cluster under it
            self._processes.pop().kill(graceful)

    def stop(self, *, graceful: bool = True) -> None:
        """Kill the processes this object started and drop the temp dir; not ``graceful``:
        SIGKILL at once, as a crash of the machine would end them (for fault tests)."""
        self._kill_all(graceful)
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> LocalSpark:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


# JDBC drivers from Debian's packages (libpostgresql-jdbc-java, libmariadb-java,
# libxerial-sqlite-jdbc-java), by the artifact of the same driver the connectors fetch from Maven
# Central (connectors/pom.xml): used where that fetch is missing (no Maven)
JDBC_JARS = {
    "postgresql": "/usr/share/java/postgresql.jar",
    "mariadb-java-client": "/usr/share/java/mariadb-java-client.jar",
    "sqlite-jdbc": "/usr/share/java/sqlite-jdbc.jar",
}


# what Delta needs of a session (its SQL extension, and its catalog in front of Spark's own)
DELTA_SETTINGS = {
    "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
    "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
}


def _workdir() -> Path:
    return Path(tempfile.mkdtemp(prefix="gryph-spark-"))


def start_local_server(
    master: str = "local[2]",
    timeout: float = START_TIMEOUT,
    confs: Mapping[str, str] | None = None,
    connectors: bool = True,
    workdir: Path | None = None,
) -> LocalSpark:
    """A Spark Connect server on a free port of 127.0.0.1, ready to accept clients; ``connectors``:
    with spark-avro and the Kafka connector (fetched and cached on the first start); ``workdir``:
    its logs and scratch (default: a new temporary folder)."""
    server = LocalSpark(workdir or _workdir(), connectors)
    server.start_connect(master, timeout, confs)
    return server


def start_local_cluster(timeout: float = START_TIMEOUT) -> LocalSpark:
    """A standalone master, one worker and a Connect server submitting to that master."""
    cluster = LocalSpark(_workdir())
    try:
        master_url = cluster.start_master(timeout)
        cluster.start_worker(master_url, timeout)
        cluster.start_connect(master_url, timeout)
    except BaseException:
        cluster._kill_all()
        raise
    return cluster

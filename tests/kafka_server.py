"""A throwaway Kafka broker for the tests: Kafka 4 in KRaft mode (broker and controller in one
JVM, no ZooKeeper) from Maven Central's jars (tests/kafka/pom.xml, fetched once and cached outside
the checkout), with its logs in a temporary folder, on free ports of 127.0.0.1; stopped afterwards.
"""

from __future__ import annotations

import base64
import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from gryph.client.spark.session.connector_jars import fetch_jars, jar_cache
from gryph.client.spark.session.local_server import free_port, java_home, port_open

POM = Path(__file__).with_name("kafka") / "pom.xml"
VERSION = "4.1.1"
START_TIMEOUT = 90.0


def broker_jars() -> Path:
    """The folder of the broker's jars, fetched with Maven on first use."""
    return fetch_jars(POM, jar_cache() / "kafka" / VERSION, f"Kafka {VERSION}", {"kafka.version": VERSION})


def _cluster_id() -> str:
    """16 random bytes in URL-safe base64 without padding, as Kafka's; like Kafka's own
    (Uuid.randomUuid), never starting with '-', which the storage tool would take for an option."""
    while True:
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not cluster_id.startswith("-"):
            return cluster_id


class KafkaServer:
    """One broker; ``bootstrap`` is its ``host:port``."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="gryph-kafka-"))
        self.port, controller = free_port(), free_port()
        self.bootstrap = f"127.0.0.1:{self.port}"
        properties = self.root / "server.properties"
        properties.write_text(
            "\n".join(
                [
                    "process.roles=broker,controller",
                    "node.id=1",
                    f"controller.quorum.bootstrap.servers=127.0.0.1:{controller}",
                    f"listeners=PLAINTEXT://127.0.0.1:{self.port},CONTROLLER://127.0.0.1:{controller}",
                    f"advertised.listeners=PLAINTEXT://127.0.0.1:{self.port}",
                    "controller.listener.names=CONTROLLER",
                    "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                    f"log.dirs={self.root / 'data'}",
                    "num.partitions=1",
                    # one broker: every internal topic has one replica, and consumer groups start at once
                    "offsets.topic.replication.factor=1",
                    "transaction.state.log.replication.factor=1",
                    "transaction.state.log.min.isr=1",
                    "share.coordinator.state.topic.replication.factor=1",
                    "share.coordinator.state.topic.min.isr=1",
                    "group.initial.rebalance.delay.ms=0",
                ]
            )
            + "\n"
        )
        java = str(Path(java_home()) / "bin" / "java")
        classpath = f"{broker_jars()}/*"
        cluster_id = _cluster_id()
        self._java = [java, "-Xmx512m", "-cp", classpath]
        self._run("kafka.tools.StorageTool", "format", "--standalone", "-t", cluster_id, "-c", str(properties))
        self.log = self.root / "broker.log"
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(
                [*self._java, "kafka.Kafka", str(properties)],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=self.root,
                start_new_session=True,
            )
        self._wait_until_listening()

    def _run(self, main_class: str, *argv: str) -> None:
        done = subprocess.run([*self._java, main_class, *argv], capture_output=True, text=True, cwd=self.root)
        if done.returncode != 0:
            raise RuntimeError(f"{main_class} failed: {done.stdout}{done.stderr}")

    def _wait_until_listening(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self.stop()
                raise RuntimeError(f"the Kafka broker exited with {self.process.returncode}: {self._tail()}")
            if port_open("127.0.0.1", self.port, timeout=0.5):
                return
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"the Kafka broker did not listen within {START_TIMEOUT:.0f} s: {self._tail()}")

    def _tail(self) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-30:])
        except OSError:
            return ""

    def stop(self) -> None:
        """Kill the broker's process group and drop its folder."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        shutil.rmtree(self.root, ignore_errors=True)

"""Connecting: fast, clear errors for servers that are down, refuse us, or are too old."""

from __future__ import annotations

import importlib
import socket
import subprocess
import sys
import time

import pytest

from gryph.client.spark import connect
from gryph.client.spark.session import local_server
from gryph.compiler.errors import EngineError

# the package exports the function connect under the module's name
connect_module = importlib.import_module("gryph.client.spark.session.connect")


def test_base_client_import_does_not_load_pyspark():
    code = "import sys, gryph.client, gryph.client.spark; assert 'pyspark' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_unreachable_server_fails_fast_with_host_and_port(monkeypatch):
    monkeypatch.setattr(connect_module, "CONNECT_TIMEOUT", 2.0)
    port = local_server.free_port()
    started = time.monotonic()
    with pytest.raises(EngineError) as info:
        connect(f"sc://127.0.0.1:{port}")
    assert time.monotonic() - started < 10
    assert f"127.0.0.1:{port}" in str(info.value) and info.value.exit_code == 3
    assert connect_module.CONNECT_TIMEOUT <= 15  # the real default stays bounded too


def test_a_refused_connection_fails_at_once():
    port = local_server.free_port()  # nothing listens there
    started = time.monotonic()
    with pytest.raises(EngineError, match="connection refused") as info:
        connect(f"sc://127.0.0.1:{port}")
    # the default timeout is 10 s: a refusal does not wait for it
    assert time.monotonic() - started < 3 and f"127.0.0.1:{port}" in str(info.value)


def test_spark_remote_environment_variable(monkeypatch):
    monkeypatch.setattr(connect_module, "CONNECT_TIMEOUT", 0.5)
    port = local_server.free_port()
    monkeypatch.setenv("SPARK_REMOTE", f"sc://127.0.0.1:{port}")
    with pytest.raises(EngineError, match=f"127.0.0.1:{port}"):
        connect(None)


def test_silent_port_is_not_a_spark_server(monkeypatch):
    monkeypatch.setattr(connect_module, "FIRST_RPC_TIMEOUT", 3.0)
    with socket.socket() as listener:  # accepts connections, never speaks gRPC
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        started = time.monotonic()
        with pytest.raises(EngineError, match=f"127.0.0.1:{port}"):
            connect(f"sc://127.0.0.1:{port}")
        assert time.monotonic() - started < 20


def test_bad_url_and_no_url(monkeypatch):
    with pytest.raises(EngineError, match="not a Spark Connect URL"):
        connect("http://example.org")
    monkeypatch.delenv("SPARK_REMOTE", raising=False)
    with pytest.raises(EngineError, match="SPARK_REMOTE"):
        connect(None)


def test_client_newer_than_server_is_refused():
    with pytest.raises(EngineError, match=r"pyspark 4\.3\.0 cannot talk"):
        connect_module._check_versions("4.3.0", "4.1.1")
    with pytest.raises(EngineError):
        connect_module._check_versions("4.0.0", "3.5.1")
    connect_module._check_versions("4.0.1", "4.1.0")


def test_missing_java_names_the_fix(monkeypatch):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(EngineError, match="Java 17") as info:
        local_server.java_home()
    assert "openjdk-17" in info.value.hint


def test_wrong_token_is_an_authentication_error():
    with local_server.start_local_server(confs={"spark.connect.authenticate.token": "right"}) as server:
        port = server.url.rsplit(":", 1)[1]
        with pytest.raises(EngineError) as info:
            # token without TLS is allowed for the host name localhost only (pyspark's rule)
            connect(f"sc://localhost:{port}/;token=wrong")
        assert info.value.code == "SPARK_AUTH"


def test_local_starts_and_stops_its_own_server():
    connection = connect("local")
    try:
        assert connection.session.range(3).count() == 3
        assert connection.server is not None
        server = connection.server
    finally:
        connection.close()
    host, port = connect_module.endpoint(server.url)
    assert not local_server.port_open(host, port)


def test_a_stopped_sessions_finalizer_leaves_the_shared_release_pool_alone(spark_remote):
    """PySpark 4.1 finalizes a stopped session by closing its client again, which shut down the
    release pool every session of the process shares (and, run by the garbage collector inside
    that pool's submit, hung the process): a closed client's close now does nothing."""
    from pyspark.sql.connect.client.reattach import ExecutePlanResponseReattachableIterator as Releases

    stopped, live = connect(spark_remote), connect(spark_remote)
    try:
        stopped.close()
        assert live.session.range(3).count() == 3
        pool = Releases._get_or_create_release_thread_pool()  # as each query of the live session does
        stopped.session.client.close()  # what the stopped session's finalizer does
        assert Releases._release_thread_pool_instance is pool
        assert live.session.range(2).count() == 2
    finally:
        live.close()

"""`gryph spark start | status | stop`: a local Spark Connect server kept between runs, which
`--remote local` uses instead of starting one of its own (client/spark/session/warm_server.py)."""

from __future__ import annotations

import json
import os

from gryph.client.spark.session.connector_jars import connectors_folder
from gryph.client.spark.session.warm_server import WarmServer
from tests.support.gryph_cli import gryph


def _environment(tmp_path) -> dict[str, str]:
    """A cache of the test's own, with the connectors already fetched linked in (no second fetch);
    TMPDIR of its own, where a server started for one run would leave its work folder."""
    from pyspark import __version__ as spark_version

    cache = tmp_path / "cache"
    fetched = connectors_folder(spark_version).parent
    (cache / "spark-connectors").parent.mkdir(parents=True)
    if fetched.is_dir():
        (cache / "spark-connectors").symlink_to(fetched)
    (tmp_path / "tmp").mkdir()
    return {"GRYPH_CACHE_DIR": str(cache), "TMPDIR": str(tmp_path / "tmp")}


def _metrics(done) -> dict:
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)["metrics"]


def test_a_kept_server_serves_remote_local_until_stopped(tmp_path):
    env = _environment(tmp_path)
    state = tmp_path / "cache" / "spark-server" / "server.json"
    assert gryph("spark", "status", env=env).returncode == 1
    try:
        started = gryph("spark", "start", env=env)
        assert started.returncode == 0, started.stdout + started.stderr
        server = WarmServer(**json.loads(state.read_text(encoding="utf-8")))
        assert started.stdout.startswith(
            f"started a local Spark {server.spark_version} Connect server at {server.url} "
        )
        assert server.url == f"sc://127.0.0.1:{server.port}" and server.alive()

        again = gryph("spark", "start", env=env)
        assert again.stdout.startswith(
            f"already running: a local Spark {server.spark_version} Connect server at {server.url} "
        )

        run = ("run", "examples/users.dq", "--no-history", "--format", "json")
        on_spark = _metrics(gryph(*run, "--remote", "local", env=env))
        assert on_spark == _metrics(gryph(*run, env=env))  # the engines' contract: DuckDB's metrics
        assert server.alive()  # the run left the kept server running
        assert not list((tmp_path / "tmp").glob("gryph-spark-*"))  # and started none of its own

        status = gryph("spark", "status", env=env)
        assert status.returncode == 0 and status.stdout.startswith(
            f"running: Spark {server.spark_version} at {server.url} "
        )

        stopped = gryph("spark", "stop", env=env)
        assert (stopped.returncode, stopped.stdout) == (0, f"stopped the local Spark server at {server.url}\n")
        assert server.gone() and not state.exists()
        assert gryph("spark", "status", env=env).returncode == 1
    finally:
        if state.exists():
            gryph("spark", "stop", env=env)
    assert not os.path.exists(server.folder)

"""JDBC drivers from Maven Central (connectors/pom.xml): a local server loads them with the connectors,
and a server without the source's driver is a located DRIVER_MISSING naming the package to add."""

from __future__ import annotations

import sqlite3
import xml.etree.ElementTree as ET

from gryph.client.spark.session.connector_jars import POM
from gryph.client.spark.session.local_server import start_local_server
from gryph.client.spark.sources.database_sources import DRIVER_PACKAGES
from tests.support.gryph_cli import gryph

MAVEN = "{http://maven.apache.org/POM/4.0.0}"


def _pom_coordinates() -> set[str]:
    found = set()
    for dependency in ET.parse(POM).getroot().iter(f"{MAVEN}dependency"):
        group, name, version = (dependency.findtext(f"{MAVEN}{key}") for key in ("groupId", "artifactId", "version"))
        found.add(f"{group}:{name}:{version}")
    return found


def test_the_packages_named_in_errors_are_the_poms():
    assert set(DRIVER_PACKAGES.values()) <= _pom_coordinates()
    assert len(DRIVER_PACKAGES) == 3


def test_the_local_server_loads_maven_centrals_drivers_not_debians(spark_remote):
    from pyspark.sql.connect.session import SparkSession

    spark = SparkSession.builder.remote(spark_remote).create()
    try:
        jars = spark.conf.get("spark.jars").split(",")
    finally:
        spark.stop()
    names = {jar.rsplit("/", 1)[-1] for jar in jars}
    assert {"postgresql-42.7.4.jar", "mariadb-java-client-2.7.12.jar", "sqlite-jdbc-3.46.1.3.jar"} <= names
    assert not [jar for jar in jars if jar.startswith("/usr/share/java/")]


def test_a_server_without_the_driver_names_its_maven_coordinates(tmp_path):
    with sqlite3.connect(tmp_path / "shop.db") as db:
        db.execute("create table orders (id integer)")
        db.execute("insert into orders values (1), (2)")
    suite = tmp_path / "shop.dq"
    suite.write_text(
        'suite shop\nsource orders = sqlite("shop.db", table = "orders")\ncompleteness ids on orders: id\n',
        encoding="utf-8",
    )
    server = start_local_server(connectors=False, confs={"spark.jars": ""})  # a user's server, no drivers
    try:
        done = gryph("run", str(suite), "--remote", server.url, "--no-history", cwd=tmp_path)
    finally:
        server.stop()
    assert done.returncode == 3, done.stdout + done.stderr
    assert "DRIVER_MISSING" in done.stderr and "the Spark server has no JDBC driver org.sqlite.JDBC" in done.stderr
    assert f"{suite}:2:" in done.stderr  # where the source is declared
    assert "--packages org.xerial:sqlite-jdbc:3.46.1.3" in done.stderr
    assert "Traceback" not in done.stderr

"""``validate --engine spark`` asks the server for the packages its sources need (spark-avro, the
Kafka connector, Delta, Iceberg) before a run, against a real local server with them and without."""

from __future__ import annotations

import fastavro
import pytest

from gryph.client import validate
from gryph.client.spark import SparkEngine
from gryph.client.spark.session.connector_jars import FETCH_COMMAND
from gryph.client.spark.session.local_server import start_local_server
from gryph.client.spark.sources.source_packages import MISSING
from gryph.compiler.errors import EngineError
from gryph.compiler.source_kinds import packages_of
from gryph.compiler.sources.source_specs import SourceSpec

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def bare_server():
    """A local Spark Connect server started without any connector jar."""
    with start_local_server(connectors=False) as server:
        yield server.url


@pytest.fixture()
def avro_file(tmp_path):
    path = tmp_path / "ünï users.avro"  # an odd name: it is only ever quoted, never pasted
    schema = {"type": "record", "name": "u", "fields": [{"name": "id", "type": "long"}]}
    with open(path, "wb") as out:
        fastavro.writer(out, schema, [{"id": 1}, {"id": 2}])
    return path


def _specs(avro_file, tmp_path) -> list[SourceSpec]:
    return [
        SourceSpec("plain", "csv", paths=(str(tmp_path / "never-read.csv"),)),  # needs no package: never asked
        SourceSpec("users", "avro", paths=(str(avro_file),)),
        SourceSpec("clicks", "kafka", paths=("127.0.0.1:9",), options=(("topic", "clicks"),)),
        SourceSpec("orders", "delta", paths=(str(tmp_path / "orders"),)),
        SourceSpec("items", "iceberg", paths=(str(tmp_path / "items"),)),
    ]


def test_every_kind_spark_needs_a_package_for_has_its_error():
    assert set(MISSING) == set(packages_of("spark"))


def test_a_bare_server_lacks_each_package_and_the_error_says_how_to_add_it(bare_server, avro_file, tmp_path):
    with SparkEngine(bare_server) as engine:
        errors = engine.missing_packages(_specs(avro_file, tmp_path))
    assert [e.code for e in errors] == ["SPARK_AVRO", "KAFKA_NOT_ENABLED", "LAKE_NOT_ENABLED", "LAKE_NOT_ENABLED"]
    assert ["'users'" in errors[0].message, "'clicks'" in errors[1].message] == [True, True]
    assert "org.apache.spark:spark-avro_2.13" in errors[0].hint and f"`{FETCH_COMMAND}`" in errors[0].hint
    assert "spark-sql-kafka-0-10_2.13" in errors[1].hint
    assert "io.delta:delta-spark_4.1_2.13" in errors[2].hint
    assert "iceberg-spark-runtime-4.1_2.13" in errors[3].hint


def test_validate_reports_the_missing_package_at_the_source_before_reading_it(bare_server, avro_file, tmp_path):
    suite = tmp_path / "s.gryph"
    suite.write_text(
        f'suite s\nsource plain = csv("{tmp_path / "p.csv"}")\nsource users = avro("{avro_file}")\n'
        "completeness c on users: id\n",
        encoding="utf-8",
    )
    (tmp_path / "p.csv").write_text("id\n1\n", encoding="utf-8")
    with pytest.raises(EngineError) as info:
        validate(str(suite), "spark", remote=bare_server)
    error = info.value
    assert error.code == "SPARK_AVRO" and error.exit_code == 3
    assert (error.location.file, error.location.line, error.location.column) == (str(suite), 3, 1)


def test_validate_on_a_bare_server_names_a_missing_lake_package(bare_server, tmp_path):
    suite = tmp_path / "s.gryph"
    suite.write_text(f'suite s\n\nsource o = delta("{tmp_path}")\ncompleteness c on o: id\n', encoding="utf-8")
    with pytest.raises(EngineError) as info:
        validate(str(suite), "spark", remote=bare_server)
    assert info.value.code == "LAKE_NOT_ENABLED" and info.value.location.line == 3


def test_a_server_with_the_connectors_lacks_none(spark_remote, avro_file, tmp_path):
    with SparkEngine(spark_remote) as engine:
        assert engine.missing_packages(_specs(avro_file, tmp_path)) == []
    suite = tmp_path / "s.gryph"
    suite.write_text(f'suite s\nsource users = avro("{avro_file}")\ncompleteness c on users: id\n', encoding="utf-8")
    checked = validate(str(suite), "spark", remote=spark_remote)
    assert [rule.spec.name for rule in checked.rules] == ["c"]

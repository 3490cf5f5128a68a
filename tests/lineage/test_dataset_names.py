"""Each source kind's dataset as OpenLineage's naming conventions name it (worked out from the
conventions' table: postgres://host:port + db.schema.table, mysql://host:port + db.table, file +
path, s3://bucket + key, kafka://host:port + topic, inmemory://), and never a credential."""

from __future__ import annotations

import pytest

from gryph.client.lineage.dataset_names import DatasetName, dataset_name
from gryph.client.run import runner
from gryph.compiler.source_kinds import SOURCE_KINDS

SECRET = "pw-s3cr3t"
SOURCES = {
    "pg": (
        f'postgres("postgresql://ann:{SECRET}@db.example:6543/shop", table = "sales.orders")',
        DatasetName("postgres://db.example:6543", "shop.sales.orders"),
    ),
    "pg_public": (
        'postgres("postgres://db.example/shop", table = "orders")',
        DatasetName("postgres://db.example:5432", "shop.public.orders"),
    ),
    "pg_query": (
        'postgres("postgresql://db.example:5432/shop", query = "select 1 as x")',
        DatasetName("postgres://db.example:5432", "shop"),
    ),
    "my": (
        f'mysql("mysql://ann:{SECRET}@mysql.example/shop", table = "orders")',
        DatasetName("mysql://mysql.example:3306", "shop.orders"),
    ),
    "lite": ('sqlite("/data/shop.db", table = "orders")', DatasetName("sqlite", "/data/shop.db.orders")),
    "local": ('csv("/data/in/users.csv")', DatasetName("file", "/data/in/users.csv")),
    "bucket": (
        'parquet("s3://lake/raw/ä users/part-0.parquet")',
        DatasetName("s3://lake", "raw/ä users/part-0.parquet"),
    ),
    "clicks": (
        'kafka("broker.example:9092", topic = "clicks", format = "json", schema = "id bigint")',
        DatasetName("kafka://broker.example:9092", "clicks"),
    ),
    "landed": (
        'folder("/data/landing/", format = "json", schema = "id bigint")',
        DatasetName("file", "/data/landing"),
    ),
    "lake": ('delta("s3://lake/tables/orders")', DatasetName("s3://lake", "tables/orders")),
    "ice": (
        'iceberg("prod.sales.orders", catalog.uri = "sqlite:////tmp/cat.db", catalog.warehouse = "s3://wh/x")',
        DatasetName("s3://wh", "prod.sales.orders"),
    ),
    "cat": ('table("analytics.orders")', DatasetName("duckdb", "analytics.orders")),
}


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    path = tmp_path_factory.mktemp("names") / "names.dq"
    path.write_text(
        "suite names\n" + "".join(f"source {name} = {text}\n" for name, (text, _) in SOURCES.items()),
        encoding="utf-8",
    )
    return runner.load_suite(str(path))


@pytest.mark.parametrize("name", SOURCES)
def test_each_source_is_named_by_the_conventions(suite, name):
    named = dataset_name(suite.sources[name], "duckdb")
    assert named == SOURCES[name][1]
    assert SECRET not in named.namespace + named.name and "ann" not in named.namespace


def test_every_family_a_suite_declares_is_named():
    """A new family in compiler/source_kinds.py fails here until it has its naming."""
    from gryph.client.lineage.dataset_names import _DATABASES, _FAMILIES

    for spec in SOURCE_KINDS.values():
        assert spec.kind in _DATABASES if spec.family == "database" else spec.family in _FAMILIES

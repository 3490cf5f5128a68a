"""The same events whatever reads the data: the people suite's metrics on Spark are those worked
out by hand, as on DuckDB; a PostgreSQL table (a real server) is named postgres://host:port and
db.schema.table, its metrics measured in the database and no password in any event."""

from __future__ import annotations

import pytest

from gryph.client.cli.main import main
from tests.lineage.lineage_support import people, read_events, validate
from tests.postgres_server import DATABASE, PASSWORD, USER


def _columns(event: dict) -> dict:
    (dataset,) = event["inputs"]
    metrics = dataset["inputFacets"]["dataQualityMetrics"]
    columns = {name: {k: v for k, v in m.items() if k != "quantiles"} for name, m in metrics["columnMetrics"].items()}
    return {"rows": metrics["rowCount"], **columns}


@pytest.mark.spark
def test_spark_gives_the_hand_worked_metrics(tmp_path, spark_remote, capsys):
    suite, events = people(tmp_path), tmp_path / "events.jsonl"
    assert (
        main(["run", str(suite), "--no-history", "--quiet", "--remote", spark_remote, "--openlineage", str(events)])
        == 1
    )
    start, end = read_events(events)
    validate(end)
    assert (start["eventType"], end["eventType"]) == ("START", "FAIL")
    assert _columns(end) == {
        "rows": 5,
        "name": {"nullCount": 1, "distinctCount": 3},
        "id": {"distinctCount": 4},
        "score": {"count": 4, "min": -3, "max": 20, "sum": 32.5},
    }


def test_a_postgres_table_is_named_by_its_server_and_schema(tmp_path, postgres, capsys):
    postgres.execute("CREATE SCHEMA IF NOT EXISTS lineage")
    postgres.execute("DROP TABLE IF EXISTS lineage.orders")
    postgres.execute("CREATE TABLE lineage.orders (id bigint, note text)")
    postgres.execute("INSERT INTO lineage.orders VALUES (1, 'a'), (2, NULL), (3, NULL)")
    suite = tmp_path / "orders.dq"
    suite.write_text(
        f'source o = postgres("postgresql://{USER}:{PASSWORD}@127.0.0.1:{postgres.port}/{DATABASE}", '
        'table = "lineage.orders")\ncompleteness notes on o: note\n',
        encoding="utf-8",
    )
    events = tmp_path / "events.jsonl"
    assert main(["run", str(suite), "--no-history", "--quiet", "--openlineage", str(events)]) == 0
    text = events.read_text(encoding="utf-8")
    assert PASSWORD not in text
    start, end = read_events(events)
    validate(end)
    assert (start["eventType"], end["eventType"]) == ("START", "COMPLETE")
    (dataset,) = end["inputs"]
    assert (dataset["namespace"], dataset["name"]) == (f"postgres://127.0.0.1:{postgres.port}", "gryph.lineage.orders")
    assert _columns(end) == {"rows": 3, "note": {"nullCount": 2}}

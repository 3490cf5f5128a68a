"""The requests a run sends the server: no schema request for a source whose schema is known here
(declared, or a parquet footer on this machine), one for any other, one action per plan, no
temporary views unless the run has Spark SQL text, a small local file copied without a job of its own.

Each request is a round trip, and on a warm server round trips are most of a small run's time.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from gryph.client.run.runner import load_suite
from gryph.client.run.runner import run as run_on
from tests.support.spark_requests import requests_sent


def _write(tmp_path):
    users, copy, orders = tmp_path / "users.parquet", tmp_path / "copy.parquet", tmp_path / "orders.csv"
    # int32 ids: the engine widens them, which must not cost a schema request of its own
    pq.write_table(pa.table({"id": pa.array([1, 2, 2, 3], pa.int32()), "email": ["a", None, "b", "c"]}), users)
    pq.write_table(pa.table({"id": pa.array([1, 2], pa.int64()), "email": ["a", "b"]}), copy)
    orders.write_text("order_id,user_id\n10,1\n11,\n12,3\n")
    return users, copy, orders


SUITE = """
source users = parquet("{users}")
source copy = parquet("{copy}")
source orders = csv("{orders}", schema = "order_id bigint, user_id bigint")
completeness contact on users: email
uniqueness ids on users: id
accuracy same on users, copy: users.id = copy.id and users.email = copy.email
completeness buyers on orders: user_id
"""


def test_a_run_of_files_here_asks_no_schema_and_runs_one_action(spark_engine, tmp_path, monkeypatch):
    users, copy, orders = _write(tmp_path)
    suite = load_suite(SUITE.format(users=users, copy=copy, orders=orders))
    sent = requests_sent(spark_engine, monkeypatch)
    result = run_on(suite, spark_engine, record_sample=0)
    # the three sources' schemas are known here (orders declared, the parquet footers read here;
    # was three schema requests); users is scanned three times: its file is small, so its copy
    # in one partition is a request and no job of its own (read_once.py); so is the copy of orders'
    # text, which the count of its values not of their declared types and (a small run fetches
    # them with it) their first rows scan in the same action
    assert sorted(sent) == [("execute", "checkpoint_command")] * 2 + [("execute", "root")], sent
    # by hand: emails a NULL b c; ids 1 2 2 3 (1 and 3 unique); (2, NULL) and (3, c) have no
    # equal row in the copy; one order of three has no user
    metrics = result.metrics
    assert (metrics["contact"]["total"], metrics["contact"]["incomplete"]) == (4, 1)
    assert metrics["ids"]["unique"] == 2
    assert (metrics["same"]["miss"], metrics["same"]["matched"]) == (2, 2)
    assert (metrics["buyers"]["total"], metrics["buyers"]["incomplete"]) == (3, 1)


def test_a_schema_only_the_server_knows_is_asked_once(spark_engine, tmp_path, monkeypatch):
    inferred = tmp_path / "inferred.csv"
    inferred.write_text("id,email\n1,a\n2,\n")
    suite = load_suite(
        f'source users = csv("{inferred}")\ncompleteness contact on users: email\nuniqueness ids on users: id\n'
    )
    sent = requests_sent(spark_engine, monkeypatch)
    result = run_on(suite, spark_engine, record_sample=0)
    # the CSV's types are Spark's inference: one schema request, shared by compiling and running
    # (the file is scanned twice: copied once, lazily, in one partition)
    assert sorted(sent) == [("analyze", "schema"), ("execute", "checkpoint_command"), ("execute", "root")], sent
    assert (result.metrics["contact"]["incomplete"], result.metrics["ids"]["unique"]) == (1, 2)


# by hand from _write: the user without email, the two users without an equal row in the copy,
# the order without a user; every id but 2 occurs once
SAMPLES = {
    "contact": [{"id": 2, "email": None}],
    "same": [{"id": 2, "email": None}, {"id": 3, "email": "c"}],
    "buyers": [{"order_id": 11, "user_id": None}],
}


def _samples(result) -> dict:
    return {rule: sorted(result.records[rule]["sample"], key=repr) for rule in SAMPLES}


def test_a_small_run_fetches_its_samples_in_its_one_action(spark_engine, tmp_path, monkeypatch):
    users, copy, orders = _write(tmp_path)
    suite = load_suite(SUITE.format(users=users, copy=copy, orders=orders))
    sent = requests_sent(spark_engine, monkeypatch)
    result = run_on(suite, spark_engine, record_sample=5)
    # small local files: the samples of the filters go with the metrics, not in a second action;
    # users, the copy and orders are scanned again by the samples: each copied once, lazily, and
    # so is orders' text, scanned by the count of its values not of their declared types and their
    # first rows
    assert sorted(sent) == [("execute", "checkpoint_command")] * 4 + [("execute", "root")], sent
    assert _samples(result) == SAMPLES


def test_samples_of_a_larger_run_are_a_second_action_only_when_rows_failed(spark_engine, tmp_path, monkeypatch):
    # files of any size count as large: the samples of filters wait for the counts
    monkeypatch.setattr("gryph.client.spark.rewrites.small_sources.SMALL_SOURCE_BYTES", 0)
    users, copy, orders = _write(tmp_path)
    suite = load_suite(SUITE.format(users=users, copy=copy, orders=orders))
    sent = requests_sent(spark_engine, monkeypatch)
    result = run_on(suite, spark_engine, record_sample=5)
    assert [kind for kind in sent if kind[0] == "execute" and kind[1] == "root"] == [("execute", "root")] * 2, sent
    assert _samples(result) == SAMPLES


def test_spark_sql_text_reads_the_sources_as_temporary_views(spark_engine, tmp_path, monkeypatch):
    users, copy, orders = _write(tmp_path)
    suite = load_suite(
        SUITE.format(users=users, copy=copy, orders=orders)
        + 'measure "users without email": sql "select count(*) from users where email is null"\n'
    )
    sent = requests_sent(spark_engine, monkeypatch)
    result = run_on(suite, spark_engine, record_sample=0)
    # the text may name any source: all three are views for the run, then dropped, and so is
    # orders' text, in which its values not of their declared types are counted
    assert sent.count(("execute", "create_dataframe_view")) == 4, sent
    assert sent.count(("execute", "root")) == 1 + 4, sent  # the action, and dropping the views
    assert result.measures["users without email"] == 1
    assert "users" not in {table.name for table in spark_engine.spark.catalog.listTables()}


def test_a_small_run_is_interpreted_in_one_partition_and_the_settings_go_back(spark_engine, tmp_path, monkeypatch):
    import gryph.client.spark.rewrites.small_sources as small_runs
    from gryph.client.spark import SparkEngine

    users, copy, orders = _write(tmp_path)
    suite = load_suite(SUITE.format(users=users, copy=copy, orders=orders))
    client, settings = spark_engine.spark.client, list(small_runs.SMALL_RUN_SETTINGS)
    config, set_during = client.config, []

    def spy_config(operation):
        if operation.WhichOneof("op_type") == "set":
            set_during.append({pair.key: pair.value for pair in operation.set.pairs})
        return config(operation)

    monkeypatch.setattr(client, "config", spy_config)
    # the same files counted as large: generated code (and whatever earlier tests left, put back)
    with monkeypatch.context() as large_files:
        large_files.setattr(small_runs, "SMALL_SOURCE_BYTES", 0)
        large = run_on(suite, spark_engine, record_sample=5)
    # never the small-run values (the settings may be set: put back after an earlier test's small run)
    small_values = small_runs.SMALL_RUN_SETTINGS.items()
    assert not any(small_values <= pairs.items() for pairs in set_during), set_during
    before = client.get_configs(*settings)
    assert dict(zip(settings, before, strict=True)) != small_runs.SMALL_RUN_SETTINGS
    # small: two plans (metrics, then samples) under settings set once; they stay on the
    # engine's own session until a plan that is not small
    set_during.clear()
    small = run_on(suite, spark_engine, record_sample=5)
    assert set_during == [small_runs.SMALL_RUN_SETTINGS], set_during
    assert dict(zip(settings, client.get_configs(*settings), strict=True)) == small_runs.SMALL_RUN_SETTINGS
    assert large.metrics == small.metrics and large.records == small.records
    with monkeypatch.context() as large_files:
        large_files.setattr(small_runs, "SMALL_SOURCE_BYTES", 0)
        run_on(suite, spark_engine, record_sample=0)
    assert client.get_configs(*settings) == before
    # an engine given a session puts its settings back after every plan
    given = run_on(suite, SparkEngine(connection=spark_engine.connection), record_sample=5)
    assert client.get_configs(*settings) == before and given.metrics == small.metrics


def test_a_kept_source_known_here_costs_no_schema_request(spark_engine, tmp_path, monkeypatch):
    import gryph.client.spark.rewrites.small_sources as small_runs

    users, copy, orders = _write(tmp_path)
    suite = load_suite(SUITE.format(users=users, copy=copy, orders=orders))
    monkeypatch.setattr(small_runs, "SMALL_SOURCE_BYTES", 0)  # these few rows stand for large files
    sent = requests_sent(spark_engine, monkeypatch)
    result = run_on(suite, spark_engine, record_sample=0)
    # users is scanned three times: copied once for the run, with the columns it uses
    assert sorted(sent) == [("execute", "checkpoint_command"), ("execute", "root")], sent
    assert result.metrics["ids"]["unique"] == 2


def test_a_second_run_of_a_suite_sends_only_its_copies_and_its_action(spark_engine, tmp_path, monkeypatch):
    """What a repeated run (a benchmark's repeats, a stream's batches) pays the server: no schema,
    capability, package or setting request again, only the copies of its sources and one action."""
    import decimal

    import gryph.client.spark.rewrites.small_sources as small_runs

    # decimal columns: a footer Spark's own inference reads, so each schema is asked of the server
    amounts = pa.array([decimal.Decimal("1.50"), None, decimal.Decimal("2.00")], pa.decimal128(9, 2))
    events, copy = tmp_path / "events.parquet", tmp_path / "copy.parquet"
    pq.write_table(pa.table({"id": pa.array([1, 2, 2], pa.int64()), "amount": amounts}), events)
    pq.write_table(pa.table({"id": pa.array([1, 2], pa.int64()), "amount": amounts[:2]}), copy)
    suite = load_suite(
        f'source events = parquet("{events}")\nsource copy = parquet("{copy}")\n'
        "completeness paid on events: amount\nuniqueness ids on events: id\n"
        "accuracy same on events, copy: events.id = copy.id\ncompleteness copied on copy: amount\n"
    )
    monkeypatch.setattr(small_runs, "SMALL_SOURCE_BYTES", 0)  # these few rows stand for large files
    sent = requests_sent(spark_engine, monkeypatch)
    client, settings_set = spark_engine.spark.client, []
    config = client.config

    def spy_config(operation):
        if operation.WhichOneof("op_type") in ("set", "unset"):
            settings_set.append(operation)
        return config(operation)

    monkeypatch.setattr(client, "config", spy_config)
    first = run_on(suite, spark_engine, record_sample=0)
    # by hand: each source's schema asked once; each is scanned by two queries (events: its
    # completeness, uniqueness and the accuracy; copy: its completeness and the accuracy), so each is
    # copied once for the run; one action for the metrics
    assert sorted(sent) == [("analyze", "schema")] * 2 + [("execute", "checkpoint_command")] * 2 + [
        ("execute", "root")
    ], sent
    sent.clear()
    second = run_on(suite, spark_engine, record_sample=0)
    assert sorted(sent) == [("execute", "checkpoint_command")] * 2 + [("execute", "root")], sent
    assert settings_set == []  # a large run leaves the session's settings as they are
    # by hand: one of three amounts NULL; ids 1 2 2 (1 unique); both events' ids have a copy;
    # one of the copy's two amounts NULL
    for result in (first, second):
        metrics = result.metrics
        assert (metrics["paid"]["total"], metrics["paid"]["incomplete"]) == (3, 1)
        assert metrics["ids"]["unique"] == 1
        assert (metrics["same"]["miss"], metrics["same"]["matched"]) == (0, 3)
        assert (metrics["copied"]["total"], metrics["copied"]["incomplete"]) == (2, 1)


def _plans_reading(engine, monkeypatch, file) -> list[str]:
    """The kind of every request from now on whose plan reads ``file`` itself (a plan over a
    kept copy names the copy, not the file)."""
    client = engine.spark.client
    reading: list[str] = []
    analyze, execute = client._analyze, client._execute_and_fetch

    def spy_analyze(method, **kwargs):
        plan = kwargs.get("plan")
        if plan is not None and str(file) in str(plan):
            reading.append("analyze " + method)
        return analyze(method, **kwargs)

    def spy_execute(req, *args, **kwargs):
        if str(file) in str(req.plan):
            kind = req.plan.WhichOneof("op_type")
            reading.append(req.plan.command.WhichOneof("command_type") if kind == "command" else kind)
        return execute(req, *args, **kwargs)

    monkeypatch.setattr(client, "_analyze", spy_analyze)
    monkeypatch.setattr(client, "_execute_and_fetch", spy_execute)
    return reading


def test_a_run_with_quarantine_outputs_reads_its_source_once(spark_engine, tmp_path, monkeypatch):
    users, copy, orders = _write(tmp_path)
    suite = load_suite(SUITE.format(users=users, copy=copy, orders=orders))
    reading = _plans_reading(spark_engine, monkeypatch, users)
    result = run_on(suite, spark_engine, record_sample=0, quarantine_to=str(tmp_path / "q"))
    # the metrics, the uniqueness counts, the accuracy misses and both outputs read one copy of
    # users: its file is in one plan, the copy's
    assert reading == ["checkpoint_command"], reading
    # by hand: (2, NULL) has no email and no equal row in the copy, (3, c) no equal row, id 2
    # occurs twice; only (1, a) is valid
    assert (result.outputs["users"]["quarantine"]["rows"], result.outputs["users"]["valid"]["rows"]) == (3, 1)

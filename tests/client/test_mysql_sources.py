"""MySQL/MariaDB sources on a MariaDB server the tests start: credentials, native measures, query
sources, the columns and filters the database is asked for, and every way they go wrong. No
message, report or history file ever holds the password."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from gryph.client import run
from gryph.client.spark.session.local_server import free_port
from gryph.compiler.errors import EngineError, InvalidInput
from tests.mariadb_server import PASSWORD
from tests.support.gryph_cli import gryph


@pytest.fixture(scope="module")
def shop(mariadb):
    """4 orders: an amount NULL once; a note with a trailing space; a BOOLEAN (TINYINT(1)) and a
    DECIMAL(10,2) column, read as boolean and decimal on both engines; an odd column name."""
    mariadb.execute(
        "CREATE DATABASE shop CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;"
        "CREATE TABLE shop.orders (id BIGINT, amount DOUBLE, placed DATETIME(6), note VARCHAR(20), "
        "ok BOOLEAN, price DECIMAL(10,2), `odd name` INT);"
        "INSERT INTO shop.orders VALUES "
        "(1, 10.5, '2024-01-01 10:00:00', 'ü', TRUE, 1.25, 7), (2, NULL, NULL, NULL, NULL, NULL, NULL), "
        "(3, 1.0, '2024-01-02 00:00:00', 'x', FALSE, 2.50, 7), (4, 2.5, '2024-01-03 00:00:00', 'x ', TRUE, 0.10, 8);"
    )
    return mariadb


@pytest.fixture(params=("duckdb", "spark"))
def engine(request):
    """Each engine by name with its remote: the Spark one on the run's server (never skipped)."""
    if request.param == "duckdb":
        return {"engine": "duckdb"}
    return {"engine": "spark", "remote": request.getfixturevalue("spark_remote")}


_CLI = (sys.executable, "-m", "gryph.client.cli.main")


def _suite(tmp_path, text: str):
    path = tmp_path / "suite.dq"
    path.write_text(text, encoding="utf-8")
    return path


def _no_password(done: subprocess.CompletedProcess, *files) -> None:
    assert PASSWORD not in done.stdout + done.stderr
    for file in files:
        if file.exists():
            assert PASSWORD.encode() not in file.read_bytes(), f"{file} holds the password"


def test_run_reads_mysql_with_the_password_from_the_environment(shop, tmp_path):
    """Hand-counted: 4 rows, amount NULL once; the native count is 4, so the check holds."""
    suite = _suite(
        tmp_path,
        f'''suite shop
source orders = mysql("{shop.url(password=False, database="shop")}", table = "orders", password_env = "SHOP_PW")
completeness amounts on orders: amount
measure "rows" on orders: native "select count(*) from orders"
check "all rows": measures["rows"] == 4
pass when all
''',
    )
    history, report = tmp_path / "history.duckdb", tmp_path / "report.json"
    env = dict(os.environ, SHOP_PW=PASSWORD)
    done = subprocess.run(
        [*_CLI, "run", str(suite), "--format", "json", "--output", str(report), "--history", str(history)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(report.read_text())
    assert result["metrics"]["amounts"] == {"total": 4, "incomplete": 1, "complete": 3}
    assert result["measure"]["rows"] == 4 and result["check"] == {"all rows": True} and result["pass"]
    _no_password(done, history, report)


def test_types_the_driver_loses_are_read_as_declared(shop, engine):
    """price is DECIMAL(10,2): 1.25 + 2.50 + 0.10 = 3.85, and as text its largest is '2.50' (two
    decimals, not connectorx's ten); ok is BOOLEAN (an `if` condition): true twice; the notes 'ü',
    'x' and 'x ' are three (the binary collation keeps the trailing space); odd name: 7 + 7 + 8."""
    suite = f'''source o = mysql("{shop.url(database="shop")}", table = "orders")
profiling p on o: select count(*) as n, sum(price) as s, max(cast(price as string)) as text, count(distinct note) as d,
    sum(if(ok, 1, 0)) as t, max(placed) as last, sum(`odd name`) as odd
'''
    [row] = run(suite, **engine).metrics["p"]
    assert row == {"n": 4, "s": 3.85, "text": "2.50", "d": 3, "t": 2, "last": "2024-01-03 00:00:00", "odd": 22}


def test_a_query_source_and_a_native_measure(shop, engine):
    """The query keeps ids 3 and 4: both notes present. The native count over ids > 1 is 3."""
    suite = f'''source q = mysql("{shop.url()}", query = "select id, note from shop.orders where id >= 3 -- late ones")
completeness c on q: note
measure "rows" on q: native "select count(*) from shop.orders where id > 1"
'''
    result = run(suite, **engine)
    assert result.metrics["c"] == {"total": 2, "incomplete": 0, "complete": 2}
    assert result.measures["rows"] == 3


def test_only_the_plans_columns_and_filters_reach_the_database(shop):
    """MariaDB's general log shows what DuckDB asked: the one column read, the numeric filter as
    a literal, and the string filter left to DuckDB. Rows with id > 1 and note = 'x': id 3 only."""
    shop.execute("SET GLOBAL log_output = 'TABLE'; SET GLOBAL general_log = 1; TRUNCATE mysql.general_log;")
    try:
        suite = f'''source o = mysql("{shop.url(database="shop")}", table = "orders")
profiling p on o: select note, count(*) as n from o where id > 1 and note = 'x' group by note
'''
        assert run(suite, "duckdb").metrics["p"] == [{"note": "x", "n": 1}]
    finally:
        shop.execute("SET GLOBAL general_log = 0;")
    logged = shop.execute("SELECT argument FROM mysql.general_log WHERE command_type IN ('Query', 'Execute')")
    reads = [line for line in logged.splitlines() if "FROM `shop`" not in line and "`orders`" in line]
    assert any("SELECT `id`, `note` FROM `orders` WHERE (`id` > 1)" in line for line in reads), logged
    assert not any("`amount`" in line for line in reads), logged


# --- what goes wrong --------------------------------------------------------------------------


def test_unreachable_server_fails_the_run_within_the_connect_timeout(tmp_path):
    url = f"mysql://gryph:{PASSWORD}@127.0.0.1:{free_port()}/gryph"
    suite = _suite(tmp_path, f'\nsource o = mysql("{url}", table = "t")\ncompleteness c on o: id\n')
    done = gryph("validate", str(suite), timeout=60)
    assert done.returncode == 3, done.stderr
    assert f"{suite}:2:1" in done.stderr and "SOURCE_UNREADABLE" in done.stderr and "source 'o'" in done.stderr
    assert "Traceback" not in done.stderr
    _no_password(done)


def test_wrong_password_is_a_run_failure_without_the_password(shop, tmp_path):
    wrong = shop.url().replace(PASSWORD, "not-" + PASSWORD)
    suite = _suite(tmp_path, f'source o = mysql("{wrong}", table = "shop.orders")\ncompleteness c on o: id\n')
    done = gryph("run", str(suite), "--no-history", timeout=120)
    assert done.returncode == 3, done.stderr
    assert "source 'o'" in done.stderr and "Access denied" in done.stderr and ":1:1" in done.stderr
    assert "Traceback" not in done.stderr and "r2d2" not in done.stderr  # the driver's own log is silenced
    _no_password(done)


def test_unknown_table_is_located_at_validate_time(shop, tmp_path):
    suite = _suite(tmp_path, f'\n\nsource o = mysql("{shop.url()}", table = "shop.no_such")\ncompleteness c on o: id\n')
    done = gryph("validate", str(suite))
    assert done.returncode == 2, done.stderr
    assert f"{suite}:3:1" in done.stderr and "TABLE_NOT_FOUND" in done.stderr and "no_such" in done.stderr
    _no_password(done)


def test_a_query_with_a_syntax_error_is_the_suites_mistake(shop, tmp_path):
    suite = _suite(
        tmp_path, f'source o = mysql("{shop.url()}", query = "selec id from shop.orders")\ncompleteness c on o: id\n'
    )
    done = gryph("validate", str(suite))
    assert done.returncode == 2, done.stderr
    assert ":1:1" in done.stderr and "TABLE_NOT_FOUND" in done.stderr and "SQL syntax" in done.stderr
    _no_password(done)


def test_missing_column_is_found_at_validate_time(shop, tmp_path):
    suite = _suite(tmp_path, f'source o = mysql("{shop.url()}", table = "shop.orders")\ncompleteness c on o: colour\n')
    done = gryph("validate", str(suite))
    assert done.returncode == 2 and "colour" in done.stderr and ":2:" in done.stderr
    _no_password(done)


def test_a_url_of_another_database_is_refused_where_it_is_written(tmp_path):
    suite = _suite(tmp_path, f'source o = mysql("postgresql://gryph:{PASSWORD}@h/db", table = "t")\n')
    done = gryph("validate", str(suite))
    assert done.returncode == 2 and "BAD_SOURCE" in done.stderr and "mysql://" in done.stderr
    _no_password(done)


def test_missing_driver_says_which_extra_to_install(shop, tmp_path):
    """connectorx hidden from the import system, as on an install without gryph[mysql]."""
    suite = _suite(tmp_path, f'source o = mysql("{shop.url()}", table = "shop.orders")\ncompleteness c on o: id\n')
    code = (
        "import sys; sys.modules['connectorx'] = None; from gryph.client.cli.main import main; "
        f"sys.exit(main(['validate', {str(suite)!r}]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 3 and "DRIVER_MISSING" in done.stderr and "gryph[mysql]" in done.stderr
    _no_password(done)


def test_a_missing_table_on_spark_is_the_suites_mistake(shop, spark_remote):
    with pytest.raises(InvalidInput) as error:
        run(
            f'source o = mysql("{shop.url()}", table = "shop.nope")\ncompleteness c on o: id',
            "spark",
            remote=spark_remote,
        )
    assert error.value.code == "TABLE_NOT_FOUND" and PASSWORD not in str(error.value)


# --- Griffin's jdbc:mysql connector -------------------------------------------------------------


def _griffin_job(shop, tmp_path, url: str):
    """Griffin's tool docs' form: the URL, user and password apart, the database and table named."""
    config = {
        "name": "orders_job",
        "process.type": "batch",
        "data.sources": [
            {
                "name": "source",
                "connector": {
                    "type": "jdbc",
                    "config": {
                        "url": url,
                        "user": "gryph",
                        "password": PASSWORD,
                        "database": "shop",
                        "tablename": "orders",
                        "where": "id > 1",
                    },
                },
            }
        ],
        "evaluate.rule": {
            "rules": [
                {
                    "dsl.type": "griffin-dsl",
                    "dq.type": "profiling",
                    "out.dataframe.name": "p",
                    "rule": "count(*) as cnt, count(amount) as amounts from source",
                }
            ]
        },
    }
    path = tmp_path / "orders_job.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def test_griffins_jdbc_mysql_connector_reads_the_table(shop, tmp_path, engine):
    """`where id > 1` keeps orders 2, 3 and 4; amount is NULL on order 2: 3 rows, 2 amounts."""
    job = _griffin_job(shop, tmp_path, f"jdbc:mysql://127.0.0.1:{shop.port}/shop")
    # Griffin names a profiling rule's metrics by their aliases alone
    assert run(str(job), **engine).metrics == {"cnt": 3, "amounts": 2}


def test_griffins_jdbc_mysql_connector_with_a_wrong_password_hides_it(shop, tmp_path):
    job = _griffin_job(shop, tmp_path, f"jdbc:mysql://127.0.0.1:{shop.port}/shop")
    job.write_text(job.read_text().replace(PASSWORD, "not-" + PASSWORD), encoding="utf-8")
    done = gryph("run", str(job), "--no-history", timeout=120)
    assert done.returncode == 3 and "Access denied" in done.stderr and "source" in done.stderr, done.stderr
    _no_password(done)


def test_another_jdbc_database_is_refused_naming_the_ones_read(tmp_path):
    job = tmp_path / "job.json"
    job.write_text(
        json.dumps(
            {
                "name": "j",
                "process.type": "batch",
                "data.sources": [
                    {
                        "name": "s",
                        "connector": {
                            "type": "jdbc",
                            "config": {"url": "jdbc:oracle:thin:@h:1521/x", "tablename": "t"},
                        },
                    }
                ],
                "evaluate.rule": {
                    "rules": [{"dsl.type": "griffin-dsl", "dq.type": "profiling", "rule": "count(*) from s"}]
                },
            }
        ),
        encoding="utf-8",
    )
    done = gryph("validate", str(job))
    assert done.returncode == 2 and "UNSUPPORTED" in done.stderr and "jdbc:mysql://" in done.stderr, done.stderr


@pytest.fixture(scope="module")
def notes(mariadb):
    """MariaDB's default collation (utf8mb4_general_ci), which finds 'x' = 'X' = 'x '."""
    mariadb.execute(
        "CREATE DATABASE ci CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci;"
        "CREATE TABLE ci.notes (id INT, note VARCHAR(10));"
        "INSERT INTO ci.notes VALUES (1, 'x'), (2, 'X'), (3, 'x '), (4, NULL);"
    )
    return mariadb


def test_a_case_insensitive_collation_changes_no_metric(notes, engine):
    """DuckDB and Spark tell 'x', 'X' and 'x ' apart, so nothing that compares text may run in the
    database. Counted by hand: one note equals 'x', two differ from it, three are distinct."""
    suite = f'''source n = mysql("{notes.url(database="ci")}", table = "notes")
profiling eq on n: select note, count(*) as c from n where note = 'x' group by note
profiling ne on n: select count(*) as c from n where note <> 'x'
profiling d on n: select count(distinct note) as c from n
'''
    metrics = run(suite, **engine).metrics
    assert metrics["eq"] == [{"note": "x", "c": 1}]
    assert metrics["ne"] == [{"c": 2}]
    assert metrics["d"] == [{"c": 3}]


def test_a_query_sources_decimal_and_boolean_are_the_declared_gap(shop, engine):
    """What a query computes has no declared column type to read: connectorx sends every DECIMAL
    as decimal(38,10) and BOOLEAN as a TINYINT, where Spark's JDBC reader keeps decimal(10,2) and
    a boolean. The largest price, 2.50, as text; ok is true (1) on orders 1 and 4."""
    suite = f'''source q = mysql("{shop.url()}", query = "select price, ok from shop.orders")
profiling p on q: select max(cast(price as string)) as text, max(ok) as ok
'''
    [row] = run(suite, **engine).metrics["p"]
    if engine["engine"] == "duckdb":
        assert row == {"text": "2.5000000000", "ok": 1}
    else:
        assert row == {"text": "2.50", "ok": True}


def test_sessions_are_read_only_with_the_statement_timeout_set(shop, engine):
    """Every session gryph opens is read-only (tx_read_only = 1), and statement_timeout = "15s"
    is MariaDB's max_statement_time of 15 seconds, on both engines."""
    suite = f'''source o = mysql("{shop.url()}", table = "shop.orders", statement_timeout = "15s")
measure "read only" on o: native "select @@session.tx_read_only as r"
measure "timeout" on o: native "select cast(@@session.max_statement_time as double) as t"
'''
    measures = run(suite, **engine).measures
    assert measures["read only"] == 1 and measures["timeout"] == 15.0


def test_partitioned_read_gives_the_same_metrics(shop, engine):
    """Read in 3 ranges of id (1..4) on Spark, at once on DuckDB: 4 rows, amounts 10.5 + 1.0 + 2.5."""
    suite = f'''source o = mysql("{shop.url()}", table = "shop.orders", partition_column = "id", num_partitions = 3)
profiling p on o: select count(*) as n, sum(amount) as s
'''
    assert run(suite, **engine).metrics["p"] == [{"n": 4, "s": 14.0}]


def test_a_native_measure_gets_a_5_minute_statement_timeout_by_default(shop, engine):
    """A source without statement_timeout: its native measures' sessions end a statement after
    5 minutes (300 s), on both engines."""
    suite = f'''source o = mysql("{shop.url()}", table = "shop.orders")
measure "timeout" on o: native "select cast(@@session.max_statement_time as double) as t"
'''
    assert run(suite, **engine).measures["timeout"] == 300.0


def test_a_sleeping_native_measure_is_a_located_statement_timeout(shop, engine, capfd):
    """The error is gryph's alone: connectorx's panic at the ended statement (its text and backtrace,
    printed to fd 2 from DuckDB's thread) never reaches the terminal."""
    suite = f'''source o = mysql("{shop.url()}", table = "shop.orders", statement_timeout = "1s")
measure "slow" on o: native "select sleep(300) as s"
'''
    started = time.monotonic()
    with pytest.raises(EngineError) as raised:
        run(suite, **engine)
    error = raised.value
    assert error.code == "STATEMENT_TIMEOUT" and "measure 'slow'" in error.message and "after 1s" in error.message
    assert (error.location.line, error.location.column) == (2, 22)  # the native text
    # ended by the timeout, not by SLEEP(300) (a Spark server's first read alone takes 30 s)
    assert time.monotonic() - started < 120
    err = capfd.readouterr().err
    assert "panicked" not in err and "connectorx" not in err, err


@pytest.mark.parametrize("backtrace", ["0", "1"])
def test_the_cli_shows_a_statement_timeout_without_a_panic(shop, tmp_path, backtrace):
    """As a user runs it (with or without RUST_BACKTRACE): stderr is gryph's error, and only that."""
    suite = _suite(
        tmp_path,
        f'''source o = mysql("{shop.url()}", table = "shop.orders", statement_timeout = "1s")
measure "slow" on o: native "select sleep(300) as s"
''',
    )
    done = subprocess.run(
        [*_CLI, "run", str(suite), "--no-history"],
        capture_output=True,
        text=True,
        env={**os.environ, "RUST_BACKTRACE": backtrace},
    )
    assert done.returncode == 3
    assert done.stderr.startswith(f"{suite}:2:22: error STATEMENT_TIMEOUT: measure 'slow'"), done.stderr
    assert "panicked" not in done.stderr and "connectorx" not in done.stderr and "backtrace" not in done.stderr

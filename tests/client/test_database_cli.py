"""Database sources through the CLI and the API: credentials, native measures, partitioned reads,
filters run by the database, and every way they go wrong. No message, report or history file
ever holds the password."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest

from gryph.client import run
from gryph.client.spark.session.local_server import free_port
from tests.postgres_server import PASSWORD
from tests.support.gryph_cli import gryph


@pytest.fixture(scope="module")
def orders(postgres):
    postgres.execute("CREATE SCHEMA shop")
    postgres.execute("CREATE TABLE shop.orders (id bigint, amount double precision, placed timestamptz, note text)")
    postgres.execute(
        "INSERT INTO shop.orders VALUES "
        "(1, 10.5, '2024-01-01 10:00+02', 'ü'), (2, NULL, NULL, NULL), (3, 'NaN', "
        "'2024-01-02 00:00+00', 'x'), (4, 2.5, '2024-01-03 00:00+00', 'x')"
    )
    return postgres


@pytest.fixture(params=("duckdb", "spark"))
def engine(request):
    """Each engine by name with its remote: the Spark one on the run's server (never skipped)."""
    if request.param == "duckdb":
        return {"engine": "duckdb"}
    return {"engine": "spark", "remote": request.getfixturevalue("spark_remote")}


@pytest.fixture
def sqlite_copy(tmp_path):
    path = tmp_path / "copy.db"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE orders (id INTEGER, amount REAL)")
        con.executemany("INSERT INTO orders VALUES (?, ?)", [(1, 10.5), (2, None), (3, 1.0)])
    return path


def _suite(tmp_path, text: str):
    path = tmp_path / "suite.dq"
    path.write_text(text, encoding="utf-8")
    return path


def _no_password(done: subprocess.CompletedProcess, *files) -> None:
    assert PASSWORD not in done.stdout + done.stderr
    for file in files:
        if file.exists():
            assert PASSWORD.encode() not in file.read_bytes(), f"{file} holds the password"


def test_run_reads_postgres_with_the_password_from_the_environment(orders, tmp_path):
    """Hand-counted: 4 rows; amount NULL once (NaN is a value); the native count is 4, the check holds."""
    suite = _suite(
        tmp_path,
        f'''suite shop
source orders = postgres("{orders.url(password=False)}", table = "shop.orders", password_env = "SHOP_PW")
completeness amounts on orders: amount
measure "rows" on orders: native "select count(*) from shop.orders"
check "all rows": measures["rows"] == 4
pass when all
''',
    )
    history, report = tmp_path / "history.duckdb", tmp_path / "report.json"
    env = dict(os.environ, SHOP_PW=PASSWORD)
    done = subprocess.run(
        [*_gryph_command(), "run", str(suite), "--format", "json", "--output", str(report), "--history", str(history)],
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


def _gryph_command() -> list[str]:
    return [sys.executable, "-m", "gryph.client.cli.main"]


def test_a_missing_credential_variable_is_named_not_guessed(orders, tmp_path):
    suite = _suite(
        tmp_path,
        f'source o = postgres("{orders.url(password=False)}", table = "shop.orders", '
        'password_env = "GRYPH_NO_SUCH_VARIABLE")\ncompleteness c on o: id\n',
    )
    done = gryph("validate", str(suite))
    assert done.returncode == 2
    assert "MISSING_CREDENTIAL" in done.stderr and "GRYPH_NO_SUCH_VARIABLE" in done.stderr


def test_a_check_compares_measures_of_two_databases(orders, sqlite_copy, engine):
    """PostgreSQL holds 4 orders, the SQLite copy 3: the row counts differ, so the check fails."""
    suite = f'''source pg = postgres("{orders.url()}", table = "shop.orders")
source copy = sqlite("{sqlite_copy}", table = "orders")
measure "pg rows" on pg: native "select count(*) from shop.orders"
measure "copy rows" on copy: native "select count(*) as n from orders"
check "copied": measures["pg rows"] == measures["copy rows"]
check "some": measures["copy rows"] >= 3
pass when all
'''
    result = run(suite, **engine)
    assert result.measures["pg rows"] == 4 and result.measures["copy rows"] == 3
    assert [c.passed for c in result.checks] == [False, True] and not result.passed


def test_a_trailing_line_comment_in_query_text_comments_out_nothing_after_it(orders, engine):
    """The query is run inside a larger statement: its `-- note` must end before the `)` after it.
    4 orders, one with a NULL amount (NaN is a value)."""
    suite = f'''source q = postgres("{orders.url()}", query = "select id, amount from shop.orders -- every order")
completeness c on q: amount
measure "rows" on q: native "select count(*) from shop.orders -- all of them"
'''
    result = run(suite, **engine)
    assert result.metrics["c"] == {"total": 4, "incomplete": 1, "complete": 3}
    assert result.measures["rows"] == 4


def test_partitioned_read_gives_the_same_metrics(orders, engine):
    """Sum of the amounts that are numbers: 10.5 + 2.5 = 13.0 (NaN kept out by isnan), 4 rows."""
    suite = f'''source o = postgres("{orders.url()}", table = "shop.orders", partition_column = "id",
                                num_partitions = 3)
profiling p on o: select count(*) as n, sum(if(isnan(amount), 0.0, amount)) as s, count(distinct note) as d
'''
    assert run(suite, **engine).metrics["p"] == [{"n": 4, "s": 13.0, "d": 2}]


def test_a_query_source_reads_what_the_query_returns(orders, engine):
    suite = f'''source big = postgres("{orders.url()}", query = "select id, note from shop.orders where id >= 3")
completeness c on big: note
'''
    assert run(suite, **engine).metrics["c"] == {"total": 2, "incomplete": 0, "complete": 2}


# --- what goes wrong --------------------------------------------------------------------------


def test_wrong_password_is_a_run_failure_without_the_password(orders, tmp_path):
    wrong = orders.url().replace(PASSWORD, "not-" + PASSWORD)
    suite = _suite(tmp_path, f'source o = postgres("{wrong}", table = "shop.orders")\ncompleteness c on o: id\n')
    done = gryph("run", str(suite), "--no-history")
    assert done.returncode == 3, done.stderr
    assert "source 'o'" in done.stderr and "password authentication failed" in done.stderr
    assert "Traceback" not in done.stderr
    _no_password(done)


def test_unreachable_database_is_a_run_failure(tmp_path):
    url = f"postgresql://gryph:{PASSWORD}@127.0.0.1:{free_port()}/gryph"
    suite = _suite(tmp_path, f'source o = postgres("{url}", table = "t")\ncompleteness c on o: id\n')
    done = gryph("validate", str(suite))
    assert done.returncode == 3 and "source 'o'" in done.stderr and "SOURCE_UNREADABLE" in done.stderr
    _no_password(done)


def test_missing_table_is_located_at_validate_time(orders, tmp_path):
    suite = _suite(
        tmp_path, f'\n\nsource o = postgres("{orders.url()}", table = "shop.no_such")\ncompleteness c on o: id\n'
    )
    done = gryph("validate", str(suite))
    assert done.returncode == 2, done.stderr
    assert f"{suite}:3:1" in done.stderr and "TABLE_NOT_FOUND" in done.stderr and "no_such" in done.stderr
    _no_password(done)


def test_missing_column_is_found_at_validate_time(orders, tmp_path):
    suite = _suite(
        tmp_path, f'source o = postgres("{orders.url()}", table = "shop.orders")\ncompleteness c on o: amount, colour\n'
    )
    done = gryph("validate", str(suite))
    assert done.returncode == 2 and "colour" in done.stderr and ":2:" in done.stderr
    _no_password(done)


def test_missing_sqlite_table_on_spark_is_the_suites_mistake(sqlite_copy, spark_remote):
    from gryph.compiler.errors import InvalidInput

    with pytest.raises(InvalidInput) as error:
        run(
            f'source o = sqlite("{sqlite_copy}", table = "nope")\ncompleteness c on o: id', "spark", remote=spark_remote
        )
    assert error.value.code == "TABLE_NOT_FOUND"


def test_native_measure_without_rows_fails_the_measure(orders, tmp_path):
    suite = _suite(
        tmp_path,
        f'source o = postgres("{orders.url()}", table = "shop.orders")\n'
        'measure "m" on o: native "select id from shop.orders where id > 100"\n',
    )
    done = gryph("run", str(suite), "--no-history")
    # the measure fails in the result and the run goes on (exit 1: the run did not pass)
    assert done.returncode == 1 and "MEASURE_NOT_ONE_ROW" in done.stdout and "no rows" in done.stdout
    _no_password(done)


def test_native_measure_needs_a_database_source(tmp_path):
    suite = _suite(tmp_path, 'source f = csv("x.csv")\nmeasure "m" on f: native "select 1"\n')
    done = gryph("validate", str(suite))
    assert done.returncode == 2 and "NATIVE_NEEDS_DATABASE" in done.stderr and ":2:" in done.stderr


def test_a_syntax_error_quoting_the_url_hides_the_password(orders, tmp_path):
    suite = _suite(tmp_path, f'source o = postgres(("{orders.url()}", table = "shop.orders")\n')
    done = gryph("validate", str(suite))
    assert done.returncode == 2 and "***" in done.stderr
    _no_password(done)


def test_missing_driver_says_which_extra_to_install(orders, tmp_path):
    """The ADBC driver hidden from the import system, as on an install without gryph[postgres]."""
    suite = _suite(tmp_path, f'source o = postgres("{orders.url()}", table = "shop.orders")\ncompleteness c on o: id\n')
    code = (
        "import sys; sys.modules['adbc_driver_postgresql'] = None; "
        "sys.modules['adbc_driver_postgresql.dbapi'] = None; from gryph.client.cli.main import main; "
        f"sys.exit(main(['validate', {str(suite)!r}]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 3 and "DRIVER_MISSING" in done.stderr and "gryph[postgres]" in done.stderr
    _no_password(done)

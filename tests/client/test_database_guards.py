"""Every database session gryph opens is read-only, and none waits forever: a native measure
cannot write to PostgreSQL, a SQLite file is opened read-only, the user's DuckDB file is only
read (unless records go into it), and a server that accepts and never answers fails the run in
bounded time, naming the source. On both engines where they apply."""

from __future__ import annotations

import socket
import threading
import time

import duckdb
import pytest

from gryph.client import run
from gryph.compiler.errors import EngineError, GryphError, InvalidInput
from tests.support.gryph_cli import gryph


@pytest.fixture(params=("duckdb", "spark"))
def engine(request):
    """Each engine by name with its remote: the Spark one on the run's server (never skipped)."""
    if request.param == "duckdb":
        return {"engine": "duckdb"}
    return {"engine": "spark", "remote": request.getfixturevalue("spark_remote")}


@pytest.fixture
def guarded(postgres):
    """A table of 3 rows, a sequence at 5000 and a function that deletes every row."""
    for statement in (
        "DROP SCHEMA IF EXISTS guards CASCADE",
        "CREATE SCHEMA guards",
        "CREATE TABLE guards.items (id bigint)",
        "INSERT INTO guards.items VALUES (1), (2), (3)",
        "CREATE SEQUENCE guards.items_id_seq",
        "SELECT setval('guards.items_id_seq', 5000)",
        "CREATE FUNCTION guards.purge() RETURNS bigint LANGUAGE sql AS "
        "'WITH gone AS (DELETE FROM guards.items RETURNING 1) SELECT count(*) FROM gone'",
    ):
        postgres.execute(statement)
    return postgres


def _value(postgres, sql: str):
    import adbc_driver_postgresql.dbapi as pg

    with pg.connect(postgres.url()) as con, con.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchone()[0]


@pytest.mark.parametrize(
    "native", ["select setval('guards.items_id_seq', 1)", "select guards.purge()"], ids=["setval", "delete"]
)
def test_a_native_measure_cannot_write_to_postgres(guarded, engine, native):
    suite = (
        f'source items = postgres("{guarded.url()}", table = "guards.items")\nmeasure "m" on items: native "{native}"\n'
    )
    result = None
    try:
        result = run(suite, engine["engine"], remote=engine.get("remote"), record_sample=0)
    except EngineError as error:
        assert "read-only transaction" in error.message, error.message
    if result is not None:  # a failed measure is a result too: it must say why
        assert "read-only transaction" in str(result.failed["m"]), result.failed
    # as set up: the sequence still at 5000, all 3 rows still there
    assert _value(guarded, "SELECT last_value FROM guards.items_id_seq") == 5000
    assert _value(guarded, "SELECT count(*) FROM guards.items") == 3


def test_a_sqlite_file_is_opened_read_only(engine, tmp_path):
    # a driver that opens the file to write creates it when it is missing; read-only, it may not
    missing = tmp_path / "missing.db"
    suite = f'source s = sqlite("{missing}", table = "t")\ncompleteness c on s: id\n'
    with pytest.raises(GryphError):
        run(suite, engine["engine"], remote=engine.get("remote"))
    assert not missing.exists()


def test_the_users_duckdb_file_is_only_read(tmp_path):
    database = tmp_path / "shop.duckdb"
    with duckdb.connect(str(database)) as con:
        con.execute("CREATE TABLE items AS SELECT * FROM range(3) t(id); CREATE SEQUENCE s START 5000")
    suite = tmp_path / "suite.dq"
    suite.write_text('source t = table("items")\nmeasure "next": sql "select max(nextval(\'s\')) from t"\n')
    done = gryph("run", str(suite), "--database", str(database), "--no-history")
    assert done.returncode == 3 and "read-only" in done.stderr, done.stdout + done.stderr
    with duckdb.connect(str(database)) as con:
        assert con.execute("SELECT nextval('s')").fetchone()[0] == 5000  # never taken before


def test_records_still_go_into_the_users_duckdb_file(tmp_path):
    database = tmp_path / "shop.duckdb"
    with duckdb.connect(str(database)) as con:
        con.execute("CREATE TABLE items AS SELECT * FROM (VALUES (1), (NULL), (3)) t(id)")
    suite = tmp_path / "suite.dq"
    suite.write_text('source t = table("items")\ncompleteness c on t: id\n')
    done = gryph("run", str(suite), "--database", str(database), "--no-history", "--records-to", "table:rec_")
    assert done.returncode == 0, done.stderr
    with duckdb.connect(str(database), read_only=True) as con:
        tables = {name for (name,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    assert any(name.startswith("rec_") for name in tables), tables


class SilentServer:
    """A TCP server on 127.0.0.1 that accepts every connection and never sends a byte."""

    def __init__(self, hold_seconds: float = 90) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.accepted: list[socket.socket] = []
        self.stop = threading.Event()
        self.deadline = time.monotonic() + hold_seconds  # a run that never ends still ends the test
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        self.listener.settimeout(0.2)
        while not self.stop.is_set() and time.monotonic() < self.deadline:
            try:
                self.accepted.append(self.listener.accept()[0])
            except TimeoutError:
                continue
        for connection in self.accepted:
            connection.close()
        self.listener.close()


@pytest.fixture
def silent():
    server = SilentServer()
    yield server
    server.stop.set()


@pytest.mark.parametrize("timeout, bound", [("", 30), (', connect_timeout = "2s"', 20)], ids=["default", "2s"])
def test_a_silent_postgres_fails_the_run_in_bounded_time(silent, engine, timeout, bound):
    suite = (
        f'source quiet = postgres("postgresql://someone@127.0.0.1:{silent.port}/db", table = "t"{timeout})\n'
        "completeness c on quiet: id\n"
    )
    started = time.monotonic()
    with pytest.raises(EngineError) as caught:
        run(suite, engine["engine"], remote=engine.get("remote"))
    took = time.monotonic() - started
    assert silent.accepted, "the run never reached the server"
    assert took < bound, f"took {took:.0f}s"
    assert caught.value.exit_code == 3 and "'quiet'" in caught.value.message, caught.value.message


@pytest.mark.parametrize(
    "source, named",
    [
        ('postgres("postgresql://u@h/db", table = "t", connect_timeout = "soon")', "connect_timeout"),
        ('postgres("postgresql://u@h/db", table = "t", statement_timeout = "0s")', "statement_timeout"),
        ('sqlite("x.db", table = "t", statement_timeout = "1m")', "statement_timeout"),
    ],
)
def test_a_bad_timeout_is_refused_where_it_is_written(source, named, tmp_path):
    with pytest.raises(InvalidInput) as caught:
        run(f"source s = {source}\ncompleteness c on s: id\n", "duckdb")
    assert caught.value.code == "BAD_SOURCE" and named in caught.value.message
    assert caught.value.location.line == 1


def test_a_native_measure_gets_a_5_minute_statement_timeout_by_default(postgres, engine):
    """Native measures' sessions: a statement ends after 5 minutes unless the source says, and a
    backslash in '...' is itself (the reading --var values are placed for). A table's read keeps
    no timeout: a long scan is legitimate."""
    suite = f'''source q = postgres("{postgres.url()}", query = "select current_setting('statement_timeout') as t")
source longer = postgres("{postgres.url()}", query = "select 1 as one", statement_timeout = "20m")
measure "native" on q: native "select current_setting('statement_timeout')"
measure "set by the source" on longer: native "select current_setting('statement_timeout')"
measure "strings" on q: native "select current_setting('standard_conforming_strings')"
measure "table read": select max(t) from q
'''
    assert run(suite, engine["engine"], remote=engine.get("remote")).measures == {
        "native": "5min",
        "set by the source": "20min",
        "strings": "on",
        "table read": "0",
    }


def test_a_sleeping_native_measure_is_a_located_statement_timeout(postgres, engine):
    suite = (
        f'source items = postgres("{postgres.url()}", query = "select 1 as one", statement_timeout = "1s")\n'
        'measure "slow" on items: native "select count(*) from pg_sleep(300)"\n'
    )
    started = time.monotonic()
    with pytest.raises(EngineError) as raised:
        run(suite, engine["engine"], remote=engine.get("remote"))
    error = raised.value
    assert error.code == "STATEMENT_TIMEOUT" and "measure 'slow'" in error.message and "after 1s" in error.message
    assert (error.location.line, error.location.column) == (2, 26)  # the native text
    # ended by the timeout, not by pg_sleep(300) (a Spark server's first read alone takes 30 s)
    assert time.monotonic() - started < 120

"""The conformance cases whose tables are flat, with the tables in PostgreSQL, MariaDB and
SQLite, and as Delta and Iceberg tables, on both engines: the same hand-derived metrics as from
in-memory frames.

PostgreSQL gets the tables through ADBC's bulk ingest (bigint, double precision, text, boolean,
timestamp, date). SQLite and MariaDB get them with declared types that both engines read the same
way (SQLite: INTEGER, REAL, TEXT, BOOLEAN, TIMESTAMP, DATE; MariaDB: BIGINT, INT, DOUBLE, LONGTEXT
in a binary collation, BOOLEAN, DATETIME(6), DATE). A declared gap: SQLite and MariaDB have no
NaN or infinity (SQLite stores NULL, MariaDB has no such value), so a case with NaN in its tables
runs on PostgreSQL only; test_sqlite_has_no_nan and test_mariadb_has_no_nan show the gap.
Delta and Iceberg tables are written from the cases' Arrow tables by deltalake and pyiceberg (a
SQL catalog in a temporary folder), every flat case, read on both engines.
Parquet files are written by pyarrow with its default statistics, every flat case: their min/max
leave NaN out, which DuckDB must not take as the range of a column that holds NaN.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from gryph.client import load_suite, run
from tests.conformance.conformance_support import arrow_table, decode_expected, load_cases, with_extra_details
from tests.support.comparison import same

FLAT = {"int64", "int32", "float64", "string", "bool", "timestamp", "date"}
_SQLITE_TYPES = {
    "int64": "INTEGER",
    "int32": "INTEGER",
    "float64": "REAL",
    "string": "TEXT",
    "bool": "BOOLEAN",
    "timestamp": "TIMESTAMP",
    "date": "DATE",
}
_MARIADB_TYPES = {
    "int64": "BIGINT",
    "int32": "INT",
    "float64": "DOUBLE",
    "string": "LONGTEXT",
    "bool": "BOOLEAN",
    "timestamp": "DATETIME(6)",
    "date": "DATE",
}


def _flat(case: dict) -> bool:
    return all(
        type_name in FLAT for spec in case["tables"].values() for _, type_name in spec["columns"]
    ) and not case.get("xfail")


def _has_nan(case: dict) -> bool:
    return '"NaN"' in json.dumps(case["tables"]) or "inf" in json.dumps(case["tables"])


CASES = [(case_id, case) for case_id, case in load_cases() if _flat(case)]


def _ident(name: str) -> str:
    """A name quoted for SQL (PostgreSQL's and SQLite's)."""
    return '"' + name.replace('"', '""') + '"'


def _name(name: str) -> str:
    """A name quoted for the suite language."""
    return "`" + name.replace("`", "``") + "`"


def _string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _with_sources(case: dict, declarations: list[str]) -> str:
    """The case's suite with ``source`` statements for its tables (after a ``suite`` line, if any)."""
    lines = case["suite"].split("\n")
    head = [lines.pop(0)] if lines[0].lstrip().startswith("suite ") else []
    return "\n".join(head + declarations + lines)


@pytest.fixture(scope="module")
def postgres_cases(postgres):
    """Each case's tables in a schema of its own; the suite text reading them."""
    import adbc_driver_postgresql.dbapi as pg

    suites = {}
    with pg.connect(postgres.url()) as con, con.cursor() as cursor:
        for index, (case_id, case) in enumerate(CASES):
            schema = f"case{index}"
            cursor.execute(f"CREATE SCHEMA {schema}")
            declarations = []
            for name, spec in case["tables"].items():
                cursor.adbc_ingest(name, arrow_table(spec), mode="create", db_schema_name=schema)
                table = f"{schema}.{_ident(name)}"
                declarations.append(
                    f"source {_name(name)} = postgres({_string(postgres.url())}, table = {_string(table)})"
                )
            suites[case_id] = _with_sources(case, declarations)
        con.commit()
    return suites


def _stored_value(value, type_name: str):
    """A value as SQLite and MariaDB take it: booleans as 0 and 1, timestamps with a space."""
    if value is None:
        return None
    if type_name == "bool":
        return int(value)
    if type_name == "timestamp":
        return value.replace("T", " ")
    return value


@pytest.fixture(scope="module")
def sqlite_cases(tmp_path_factory):
    suites = {}
    folder = tmp_path_factory.mktemp("sqlite_cases")
    for index, (case_id, case) in enumerate(CASES):
        if _has_nan(case):
            continue
        path = Path(folder, f"case{index}.db")
        with sqlite3.connect(path) as con:
            declarations = []
            for name, spec in case["tables"].items():
                con.execute(_create_table(_ident(name), spec, _SQLITE_TYPES, _ident))
                marks = ", ".join("?" for _ in spec["columns"])
                con.executemany(f"INSERT INTO {_ident(name)} VALUES ({marks})", _stored_rows(spec))
                declarations.append(
                    f"source {_name(name)} = sqlite({_string(str(path))}, table = {_string(_ident(name))})"
                )
        suites[case_id] = _with_sources(case, declarations)
    return suites


def _create_table(table: str, spec: dict, types: dict[str, str], quote) -> str:
    columns = ", ".join(f"{quote(c)} {types[t]}" for c, t in spec["columns"])
    return f"CREATE TABLE {table} ({columns})"


def _stored_rows(spec: dict) -> list[list]:
    return [[_stored_value(v, t) for v, (_, t) in zip(row, spec["columns"], strict=True)] for row in spec["rows"]]


def _backticked(name: str) -> str:
    """A name quoted for MariaDB's SQL."""
    return "`" + name.replace("`", "``") + "`"


def _mariadb_literal(value) -> str:
    """A value as MariaDB SQL text: text as a hex literal of its UTF-8 bytes (nothing to escape)."""
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return f"_utf8mb4 X'{value.encode().hex()}'"
    return repr(value)


@pytest.fixture(scope="module")
def mariadb_cases(mariadb):
    """Each case's tables in a database of its own (a binary collation: text compares as on the
    engines); the suite text reading them."""
    suites, statements = {}, []
    for index, (case_id, case) in enumerate(CASES):
        if _has_nan(case):
            continue
        database = f"case{index}"
        statements.append(f"CREATE DATABASE {database} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;")
        declarations = []
        for name, spec in case["tables"].items():
            table = f"{database}.{_backticked(name)}"
            statements.append(_create_table(table, spec, _MARIADB_TYPES, _backticked) + ";")
            for row in _stored_rows(spec):
                statements.append(f"INSERT INTO {table} VALUES ({', '.join(map(_mariadb_literal, row))});")
            declarations.append(
                f"source {_name(name)} = mysql({_string(mariadb.url(database=database))}, "
                f"table = {_string(_ident(name))})"  # gryph's table names quote with double quotes
            )
        suites[case_id] = _with_sources(case, declarations)
    mariadb.execute("\n".join(statements))
    return suites


@pytest.fixture(scope="module")
def delta_cases(tmp_path_factory):
    """Each case's tables as Delta tables (folders named by position: a case's names may hold
    any character); the suite text reading them."""
    from deltalake import write_deltalake

    folder = tmp_path_factory.mktemp("delta_cases")
    suites = {}
    for index, (case_id, case) in enumerate(CASES):
        declarations = []
        for number, (name, spec) in enumerate(case["tables"].items()):
            path = folder / f"case{index}" / f"t{number}"
            write_deltalake(str(path), arrow_table(spec))
            declarations.append(f"source {_name(name)} = delta({_string(str(path))})")
        suites[case_id] = _with_sources(case, declarations)
    return suites


@pytest.fixture(scope="module")
def parquet_cases(tmp_path_factory):
    """Each case's tables as parquet files written by pyarrow with its default statistics."""
    import pyarrow.parquet as pq

    folder = tmp_path_factory.mktemp("parquet_cases")
    suites = {}
    for index, (case_id, case) in enumerate(CASES):
        declarations = []
        for number, (name, spec) in enumerate(case["tables"].items()):
            path = folder / f"case{index}_t{number}.parquet"
            pq.write_table(arrow_table(spec), path)
            declarations.append(f"source {_name(name)} = parquet({_string(str(path))})")
        suites[case_id] = _with_sources(case, declarations)
    return suites


@pytest.fixture(scope="module")
def iceberg_cases(tmp_path_factory):
    """Each case's tables in a namespace of its own of one SQLite-backed Iceberg catalog."""
    from pyiceberg.catalog.sql import SqlCatalog

    folder = tmp_path_factory.mktemp("iceberg_cases")
    uri = f"sqlite:///{folder}/catalog.db"
    catalog = SqlCatalog("lake", uri=uri, warehouse=f"file://{folder}")
    suites = {}
    for index, (case_id, case) in enumerate(CASES):
        catalog.create_namespace(f"case{index}")
        declarations = []
        for number, (name, spec) in enumerate(case["tables"].items()):
            table = arrow_table(spec)
            catalog.create_table(f"case{index}.t{number}", schema=table.schema).append(table)
            declarations.append(
                f"source {_name(name)} = iceberg({_string(f'lake.case{index}.t{number}')}, catalog.uri = {_string(uri)})"
            )
        suites[case_id] = _with_sources(case, declarations)
    return suites


def _check(case: dict, suite_text: str, engine) -> None:
    result = run(with_extra_details(load_suite(suite_text), case), engine)
    expected = decode_expected(case["expected"])
    ordered = set(case.get("ordered", ()))
    assert set(result.metrics) == set(expected)
    for rule, metrics in expected.items():
        same(result.metrics[rule], metrics, f"metrics.{rule}", ordered=rule in ordered or not isinstance(metrics, list))


@pytest.mark.parametrize("case_id,case", CASES, ids=[c for c, _ in CASES])
def test_case_from_postgres(case_id, case, postgres_cases, dq_engine):
    _check(case, postgres_cases[case_id], dq_engine)


SQLITE_CASES = [(case_id, case) for case_id, case in CASES if not _has_nan(case)]


@pytest.mark.parametrize("case_id,case", SQLITE_CASES, ids=[c for c, _ in SQLITE_CASES])
def test_case_from_sqlite(case_id, case, sqlite_cases, dq_engine):
    _check(case, sqlite_cases[case_id], dq_engine)


# MariaDB stores what SQLite stores: every flat case but those holding NaN or infinity
@pytest.mark.parametrize("case_id,case", SQLITE_CASES, ids=[c for c, _ in SQLITE_CASES])
def test_case_from_mariadb(case_id, case, mariadb_cases, dq_engine):
    _check(case, mariadb_cases[case_id], dq_engine)


# nan_beyond_a_parquet_footers_min_max_extremes holds on Spark too: Delta would answer its lone
# max(x) from the log's NaN-less statistics, and gryph turns that off in the session
@pytest.mark.parametrize("case_id,case", CASES, ids=[c for c, _ in CASES])
def test_case_from_delta(case_id, case, delta_cases, dq_engine):
    _check(case, delta_cases[case_id], dq_engine)


@pytest.mark.parametrize("case_id,case", CASES, ids=[c for c, _ in CASES])
def test_case_from_parquet(case_id, case, parquet_cases, dq_engine):
    _check(case, parquet_cases[case_id], dq_engine)


@pytest.mark.parametrize("case_id,case", CASES, ids=[c for c, _ in CASES])
def test_case_from_iceberg(case_id, case, iceberg_cases, dq_engine):
    _check(case, iceberg_cases[case_id], dq_engine)


def test_most_cases_run_on_databases():
    """The flat cases are most of the suite, and SQLite and MariaDB miss only those holding NaN or
    infinity."""
    assert len(CASES) >= 40
    assert {c for c, _ in CASES} - {c for c, _ in SQLITE_CASES} == {c for c, case in CASES if _has_nan(case)}


def test_sqlite_has_no_nan(tmp_path, dq_engine):
    """The declared gap: SQLite turns NaN into NULL when it stores it, so NaN cannot be tested there."""
    path = tmp_path / "nan.db"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE t (x REAL)")
        con.executemany("INSERT INTO t VALUES (?)", [(float("nan"),), (1.0,)])
    suite = f'source t = sqlite({_string(str(path))}, table = "t")\ncompleteness c on t: x'
    assert run(suite, dq_engine).metrics["c"] == {"total": 2, "incomplete": 1, "complete": 1}


def test_mariadb_has_no_nan(mariadb, dq_engine):
    """The declared gap: MariaDB has no NaN (no literal, no stored value; what makes one elsewhere,
    the square root of -1, is NULL there), so NaN cannot be tested there. 2 rows, one NULL."""
    suite = (
        f'source t = mysql({_string(mariadb.url())}, query = "select sqrt(-1) as x union all select 1.0e0")\n'
        "completeness c on t: x"
    )
    assert run(suite, dq_engine).metrics["c"] == {"total": 2, "incomplete": 1, "complete": 1}

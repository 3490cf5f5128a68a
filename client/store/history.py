"""Run history in an embedded DuckDB file: every run's result document, measure values, rule
metrics, and which anomaly checks found an anomaly (left out of later baselines).

DuckDB lets one process at a time open a file for writing, so every access opens, works and
closes at once, retrying with backoff while another process holds the lock. DuckDB reads the
file's header before it takes its own lock, though: a process that read the header while another
wrote, and got the lock once the other had closed, would work from the earlier state and write
over the other's run. So every access first takes gryph's lock, a ``flock`` on ``<history>.lock``
beside the file (exclusive to write, shared to read), and holds it until DuckDB has closed the
file. A run is written in one transaction: a run that fails half-way leaves the earlier history
as it was.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import random
import stat
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gryph.compiler.checks.check_functions import BaselineQuery, Point
from gryph.compiler.error_codes import HISTORY_NOT_STORED
from gryph.compiler.errors import EngineError, GryphError, InvalidInput, Location

from ..results.output_files import check_writable_path
from ..results.run_result import RunResult, json_safe
from .history_rows import columns_row, document_row, metric_row, point_row, run_row, stored_value
from .stored_values import Damaged, text

if TYPE_CHECKING:  # DuckDB loads when a history is opened: a run without one does not pay for it
    import duckdb

DEFAULT_PATH = Path(".gryph") / "history.duckdb"
LOCK_WAIT_SECONDS = 60.0  # how long a run waits for another process's lock before giving up

_SCHEMA = (
    "create sequence if not exists run_order",
    """create table if not exists runs (
        run_id varchar primary key, seq bigint, suite varchar, started timestamp, engine varchar,
        passed boolean, document varchar)""",
    """create table if not exists measure_values (
        run_id varchar, seq bigint, suite varchar, measure varchar, started timestamp, value varchar)""",
    # each rule's metrics (its map, or its rows) as JSON
    """create table if not exists metric_values (
        run_id varchar, seq bigint, suite varchar, rule varchar, started timestamp, value varchar)""",
    # each anomaly check's finding; a run missing here had no such check (or too little history)
    """create table if not exists check_anomalies (
        run_id varchar, suite varchar, check_name varchar, anomaly boolean)""",
    # each run's data time (--data-time), when it has one; a rerun of the same suite and data
    # time supersedes the earlier run (kept, never deleted), which history functions then skip
    """create table if not exists data_times (
        run_id varchar, suite varchar, data_time timestamp, superseded_by varchar)""",
    # each source's columns (name -> logical type, JSON) as the run found them: schema_changes reads them
    """create table if not exists source_schemas (
        run_id varchar, seq bigint, suite varchar, source varchar, started timestamp, columns varchar)""",
)
_TABLES = ("runs", "measure_values", "metric_values", "check_anomalies", "source_schemas", "data_times")
_TABLES_PRESENT = (
    f"select table_name from information_schema.tables where table_name in ({', '.join('?' * len(_TABLES))})"
)


def _utc(moment: dt.datetime) -> dt.datetime:
    """Stored times are UTC without a zone."""
    return moment.astimezone(dt.timezone.utc).replace(tzinfo=None) if moment.tzinfo else moment


class HistoryWriteError(GryphError):
    """A run that finished but could not be stored in the history; ``result`` is the run, so its
    outputs are still written (the CLI ends with exit 4, or 1 when the run failed its checks)."""

    exit_code = HISTORY_NOT_STORED
    result: RunResult | None = None


class _Busy(Exception):
    """Another process holds the history's lock: try again."""


class HistoryStore:
    """The history file at ``path`` (created on the first write)."""

    def __init__(self, path: str | Path = DEFAULT_PATH, before: dt.datetime | None = None) -> None:
        self.path = Path(path)
        self._before = before  # history functions' reads: only runs earlier than this (see ``before``)

    def before(self, moment: dt.datetime) -> HistoryStore:
        """This history as a run at ``moment`` (its data time, else its start) reads it: the current
        runs whose time (data time, else start) is earlier, so a backfilled day reads the days
        before it and a rerun does not read the run it replaces."""
        return HistoryStore(self.path, before=moment)

    @contextlib.contextmanager
    def _open(self, read_only: bool = False):
        """A connection to the history, with gryph's lock on it held until the connection is closed."""
        self._exists()  # a folder or an unnameable path is refused before its lock, named after the file
        if not read_only:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._locked(shared=read_only):
            self._check_format()
            with self._waiting(lambda: self._connect(read_only)) as con:
                yield con

    @contextlib.contextmanager
    def _locked(self, shared: bool):
        """gryph's lock on the history: shared to read, exclusive to write (the kernel drops it if
        the process dies)."""
        lock_file = self.path.with_name(self.path.name + ".lock")
        try:
            fd = os.open(lock_file, os.O_RDONLY | os.O_CREAT, 0o666)
        except OSError:
            if not shared:
                raise
            # a folder this process cannot write: read unlocked (a writer there needs the folder writable)
            yield
            return
        try:
            self._waiting(lambda: _flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX))
            yield
        finally:
            os.close(fd)  # releases the lock

    def _waiting(self, attempt):
        """What ``attempt()`` gives, tried again with backoff while another process holds the history."""
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        delay = 0.02
        while True:
            try:
                return attempt()
            except _Busy:
                if time.monotonic() > deadline:
                    raise EngineError(
                        "HISTORY_LOCKED",
                        f"the history {self.path} stayed locked by another process for {LOCK_WAIT_SECONDS:.0f}s",
                        location=self._location,
                        text=str(self.path),
                        hint="retry when the other run has finished",
                    ) from None
            # jitter keeps processes that collided from colliding again in step
            time.sleep(delay * (1 + random.random()))
            delay = min(delay * 2, 0.5)

    def _connect(self, read_only: bool) -> duckdb.DuckDBPyConnection:
        import duckdb

        try:
            # another tool's file (SQLite, ...) must not make DuckDB fetch an extension to read it
            return duckdb.connect(
                str(self.path),
                read_only=read_only,
                config={"autoinstall_known_extensions": False, "autoload_known_extensions": False},
            )
        except duckdb.IOException as error:
            if "conflicting lock" in str(error).lower():  # a process other than gryph's has the file open
                raise _Busy from None
            raise EngineError(
                "HISTORY_UNREADABLE",
                f"cannot open the history {self.path}: {error}",
                location=self._location,
                text=str(self.path),
            ) from None

    @property
    def _location(self) -> Location:
        return Location(file=str(self.path))

    def _check_format(self) -> None:
        """A file that is there must be a DuckDB database file."""
        problem = self._file_problem()
        if problem is not None:
            raise self._foreign(problem)

    def _file_problem(self) -> str | None:
        """Why the file at the path is no DuckDB database (its header says ``DUCK`` at byte 8), or
        None when it is one or is not there. A pipe is never opened: that would wait for a writer."""
        try:
            if not stat.S_ISREG(self.path.stat().st_mode):
                return "it is not a regular file (a pipe, device or folder)"
            with open(self.path, "rb") as handle:
                header = handle.read(12)
        except FileNotFoundError:
            return None
        except OSError as error:
            return f"it cannot be read: {error.strerror or error}"
        # checked under gryph's lock, so never while DuckDB is creating the file: empty is foreign too
        if header[8:12] != b"DUCK":
            return "the file is no DuckDB database"
        return None

    def check_writable(self) -> None:
        """Refuse, before a run, a history the run could never be stored in (exit 2, at its path):
        a folder, a path through a file, a pipe, another tool's or a truncated file, no write permission."""
        check_writable_path("--history", str(self.path))
        problem = self._permission_problem()
        if problem is None:
            with self._locked(shared=True):  # not while another run creates the file
                problem = self._file_problem() or self._database_problem()
        if problem is not None:
            raise InvalidInput(
                "BAD_OUTPUT_PATH",
                f"--history {self.path} cannot hold gryph's run history: {problem}",
                location=self._location,
                text=str(self.path),
                hint="name a gryph history file, or a new file in a folder you can write (or --no-history)",
            )

    def _permission_problem(self) -> str | None:
        if self.path.exists() and not os.access(self.path, os.W_OK):
            return "the file is not writable"
        folder = next(p for p in self.path.absolute().parents if p.exists())
        if not os.access(folder, os.W_OK | os.X_OK):  # DuckDB writes its log (and gryph its lock) beside the file
            return f"the folder {folder} is not writable"
        return None

    def _database_problem(self) -> str | None:
        """Why DuckDB cannot open or read the history file, if it cannot. Every stored block is read
        once: DuckDB opens a file cut short, and fails only when a query reaches a missing block."""
        import duckdb

        if not self.path.exists():
            return None
        try:
            with self._waiting(lambda: self._connect(read_only=True)) as con:
                tables = con.execute(_TABLES_PRESENT, list(_TABLES)).fetchall()
                for (table,) in tables:  # one of the names above, never the user's text
                    con.execute(f"select max(hash(row)) from {table} as row").fetchall()
        except EngineError as error:
            if error.code == "HISTORY_LOCKED":  # busy, not broken: a run failure (exit 3)
                raise
            return error.message
        except duckdb.Error as error:
            return f"DuckDB cannot read it: {str(error).splitlines()[0]}"
        return None

    def record(
        self,
        document: dict,
        started: dt.datetime,
        measures: dict[str, object],
        run_id: str | None = None,
        data_time: dt.datetime | None = None,
    ) -> str:
        """Store one run (its document and each measure's value) in one transaction; its run id.
        A ``run_id`` given and already stored is not stored again (a stream's batch published
        twice after a crash is one run). A run with a ``data_time`` supersedes the current run of
        the suite with the same one. Any failure is a ``HistoryWriteError``: the history is
        as it was."""
        import duckdb

        run_id = run_id or uuid.uuid4().hex
        try:
            with self._open() as con:
                con.execute("begin transaction")
                try:
                    for statement in _SCHEMA:
                        con.execute(statement)
                    if con.execute("select count(*) from runs where run_id = ?", [run_id]).fetchall()[0][0]:
                        con.execute("rollback")
                        return run_id
                    seq = con.execute("select nextval('run_order')").fetchall()[0][0]
                    self._write_run(con, run_id, seq, document, _utc(started))
                    self._write_measures(con, run_id, seq, document["name"], _utc(started), measures)
                    self._write_metrics(con, run_id, seq, document, _utc(started))
                    self._write_schemas(con, run_id, seq, document, _utc(started))
                    if data_time is not None:
                        self._write_data_time(con, run_id, document["name"], _utc(data_time))
                    con.execute("commit")
                except BaseException:
                    con.execute("rollback")
                    raise
        except GryphError as error:
            raise self._not_written(error.message) from None
        except (duckdb.Error, OSError) as error:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error).splitlines()[0]
            raise self._not_written(reason) from None
        return run_id

    def _not_written(self, reason: str) -> HistoryWriteError:
        return HistoryWriteError(
            "HISTORY_NOT_WRITTEN",
            f"the run was not stored in the history {self.path}: {reason}",
            location=self._location,
            text=str(self.path),
            hint="its outputs are written; free space or fix the history file, then run again to store a run",
        )

    @staticmethod
    def _write_run(con, run_id: str, seq: int, document: dict, started: dt.datetime) -> None:
        con.execute(
            "insert into runs values (?, ?, ?, ?, ?, ?, ?)",
            [
                run_id,
                seq,
                document["name"],
                started,
                document["engine"],
                document["pass"],
                json.dumps(json_safe(document), ensure_ascii=False, allow_nan=False),
            ],
        )

    @staticmethod
    def _write_measures(
        con, run_id: str, seq: int, suite: str, started: dt.datetime, measures: dict[str, object]
    ) -> None:
        if measures:
            con.executemany(
                "insert into measure_values values (?, ?, ?, ?, ?, ?)",
                [
                    [run_id, seq, suite, name, started, json.dumps(json_safe(value), allow_nan=False)]
                    for name, value in measures.items()
                ],
            )

    @staticmethod
    def _write_metrics(con, run_id: str, seq: int, document: dict, started: dt.datetime) -> None:
        """Each rule's metrics, and each anomaly check's finding, for later runs' history functions."""
        suite = document["name"]
        metrics = document.get("metrics") or {}
        if metrics:
            con.executemany(
                "insert into metric_values values (?, ?, ?, ?, ?, ?)",
                [
                    [run_id, seq, suite, rule, started, json.dumps(json_safe(value), allow_nan=False)]
                    for rule, value in metrics.items()
                ],
            )
        findings = [c for c in document.get("check_details") or [] if c.get("anomaly") is not None]
        if findings:
            con.executemany(
                "insert into check_anomalies values (?, ?, ?, ?)",
                [[run_id, suite, c["name"], bool(c["anomaly"])] for c in findings],
            )

    @staticmethod
    def _write_schemas(con, run_id: str, seq: int, document: dict, started: dt.datetime) -> None:
        schemas = document.get("schemas") or {}
        if schemas:
            con.executemany(
                "insert into source_schemas values (?, ?, ?, ?, ?, ?)",
                [
                    [run_id, seq, document["name"], source, started, json.dumps(columns, ensure_ascii=False)]
                    for source, columns in schemas.items()
                ],
            )

    @staticmethod
    def _write_data_time(con, run_id: str, suite: str, data_time: dt.datetime) -> None:
        con.execute(
            "update data_times set superseded_by = ? where suite = ? and data_time = ? and superseded_by is null",
            [run_id, suite, data_time],
        )
        con.execute("insert into data_times values (?, ?, ?, null)", [run_id, suite, data_time])

    def _current(self, table: str, tables: set[str], params: list[object]) -> str:
        """``table``'s rows of the current runs (not superseded) as a subquery, each with ``run_time``: its
        run's data time, else its start; with ``before``, only those earlier than it (its value
        appended to ``params``). ``table`` is one of gryph's own, never the user's text."""
        at = "coalesce(d.data_time, v.started)" if "data_times" in tables else "v.started"
        if "data_times" in tables:
            rows = (
                f"select v.*, {at} as run_time from {table} v "
                "left join data_times d on d.run_id = v.run_id where d.superseded_by is null"
            )
        else:
            rows = f"select v.*, {at} as run_time from {table} v where true"
        if self._before is not None:
            rows += f" and {at} < ?"
            params.append(_utc(self._before))
        return f"({rows})"

    def _exists(self) -> bool:
        """Whether the history file is there; a folder, or a path the system cannot look up (a name
        too long, a loop of links), is no history."""
        try:
            if stat.S_ISDIR(self.path.stat().st_mode):
                raise self._foreign("it is a folder, not a file")
        except (FileNotFoundError, NotADirectoryError):
            return False
        except OSError as error:
            raise self._foreign(f"it cannot be looked up: {error.strerror}") from None
        return True

    def _query(self, sql: str, params: list, read: Callable[[tuple], Any]) -> list:
        return self._query_with(lambda tables: (sql, params) if "runs" in tables else None, read)

    def _query_with(self, build, read: Callable[[tuple], Any]) -> list:
        """Each row of the query ``build(tables)`` gives for the history's tables (none: no rows)
        as ``read(row)`` takes it (history_rows.py: every value checked); a history written before
        a table existed has no rows of it."""
        import duckdb

        if not self._exists():
            return []
        with self._open(read_only=True) as con:
            try:
                tables = {name for (name,) in con.execute(_TABLES_PRESENT, list(_TABLES)).fetchall()}
                query = build(tables)
                rows = con.execute(*query).fetchall() if query is not None else []
            except duckdb.Error as error:  # a runs table of another tool's making, a file cut short
                raise self._foreign(str(error).splitlines()[0]) from None
        try:
            return [read(row) for row in rows]
        except Damaged as damaged:  # a valid database whose rows are not what gryph wrote
            raise EngineError(
                "HISTORY_UNREADABLE",
                f"the history {self.path} holds a damaged run: {damaged}",
                location=self._location,
                text=str(self.path),
                hint="move the file away (a new history starts empty), or restore it from a copy",
            ) from None

    def _foreign(self, problem: object) -> EngineError:
        return EngineError(
            "HISTORY_UNREADABLE",
            f"{self.path} is not a gryph run history: {problem}",
            location=self._location,
            text=str(self.path),
            hint="name the history file gryph runs write (--history)",
        )

    def measure_values(
        self,
        suite: str,
        measure: str,
        limit: int,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
    ) -> list[object]:
        """A measure's values in the runs of ``suite`` (started at or after ``since``, at or before
        ``until``), newest first."""
        window = "".join(f"and run_time {op} ? " for op, moment in ((">=", since), ("<=", until)) if moment is not None)

        def build(tables: set[str]) -> tuple[str, list] | None:
            if "measure_values" not in tables:
                return None
            params: list[object] = []
            rows = self._current("measure_values", tables, params)
            params += [suite, measure] + [_utc(m) for m in (since, until) if m is not None] + [limit]
            sql = f"select value from {rows} where suite = ? and measure = ? {window}order by run_time desc, seq desc limit ?"
            return sql, params

        return self._query_with(build, lambda row: stored_value(row[0]))

    def run_metrics(self, run_ids: list[str]) -> dict[str, dict[str, object]]:
        """Each of these runs' rule metrics (rule -> its map, or its rows), in the order the run
        wrote them; a run stored before the history kept rule metrics has none."""
        if not run_ids:
            return {}
        sql = f"select run_id, rule, value from metric_values where run_id in ({', '.join('?' * len(run_ids))}) "
        sql += "order by rowid"
        metrics: dict[str, dict[str, object]] = {}
        for run_id, rule, value in self._query_with(
            lambda tables: (sql, list(run_ids)) if "metric_values" in tables else None, metric_row
        ):
            metrics.setdefault(run_id, {})[rule] = value
        return metrics

    def metric_values(self, suite: str, rule: str, limit: int) -> list[object]:
        """A rule's metrics (its map, or its rows) in the runs of ``suite``, newest first."""

        def build(tables: set[str]) -> tuple[str, list] | None:
            if "metric_values" not in tables:
                return None
            params: list[object] = []
            rows = self._current("metric_values", tables, params)
            sql = f"select value from {rows} where suite = ? and rule = ? order by run_time desc, seq desc limit ?"
            return sql, [*params, suite, rule, limit]

        return self._query_with(build, lambda row: stored_value(row[0]))

    def baseline(self, suite: str, query: BaselineQuery, limit: int) -> list[Point]:
        """The values an anomaly check learns from (a measure's, or a rule's metrics), newest first:
        runs that passed, and where the check found no anomaly, unless the query includes them."""
        table, column = ("measure_values", "measure") if query.source == "measure" else ("metric_values", "rule")

        def build(tables: set[str]) -> tuple[str, list] | None:
            if table not in tables:
                return None
            # table and column are one of the two pairs above, never the user's text
            params: list[object] = []
            sql = f"select v.value, v.run_time from {self._current(table, tables, params)} v join runs r on r.run_id = v.run_id "
            sql += f"where v.suite = ? and v.{column} = ? "
            params += [suite, query.name]
            if not query.include_failed:
                sql += "and r.passed "
            if not query.include_anomalies and "check_anomalies" in tables:
                sql += (
                    "and not exists (select 1 from check_anomalies a "
                    "where a.run_id = v.run_id and a.check_name = ? and a.anomaly) "
                )
                params.append(query.check)
            if query.until is not None:
                sql += "and v.run_time <= ? "
                params.append(_utc(query.until))
            return sql + "order by v.run_time desc, v.seq desc limit ?", [*params, limit]

        return [
            Point(value, started.replace(tzinfo=dt.timezone.utc))
            for value, started in self._query_with(build, point_row)
        ]

    def schema(self, suite: str, source: str) -> dict[str, str] | None:
        """The columns of ``source`` stored with the newest current run of ``suite`` that read it, or None."""

        def build(tables: set[str]) -> tuple[str, list] | None:
            if "source_schemas" not in tables:
                return None
            params: list[object] = []
            rows = self._current("source_schemas", tables, params)
            sql = f"select columns from {rows} where suite = ? and source = ? order by run_time desc, seq desc limit 1"
            return sql, [*params, suite, source]

        rows = self._query_with(build, columns_row)
        return rows[0] if rows else None

    def runs(self, suite: str, limit: int = 50, superseded: bool = False) -> list[dict]:
        """The newest current runs of ``suite`` (newest data time, else start, first): run id, start
        time, data time (None without), engine, verdict and measures; ``superseded`` adds the runs
        a rerun of their data time replaced, each with ``superseded_by``."""
        return self._query_with(
            lambda tables: self._runs_sql(
                "run_id, started, engine, passed, document", tables, superseded, [suite, limit]
            ),
            lambda row: run_row(row, superseded),
        )

    @staticmethod
    def _runs_sql(columns: str, tables: set[str], superseded: bool, params: list) -> tuple[str, list] | None:
        """A query of ``columns`` of a suite's runs and their data time and superseding run, newest
        first (``params``: the suite, the limit); without ``superseded``, the current runs only."""
        if "runs" not in tables:
            return None
        if "data_times" not in tables:
            sql = f"select {columns}, null, null from runs where suite = ? order by started desc, seq desc limit ?"
            return sql, params
        keep = "" if superseded else "and d.superseded_by is null "
        picked = ", ".join(f"r.{column.strip()}" for column in columns.split(","))
        return (
            f"select {picked}, d.data_time, d.superseded_by from runs r left join data_times d "
            f"on d.run_id = r.run_id where r.suite = ? {keep}"
            "order by coalesce(d.data_time, r.started) desc, r.seq desc limit ?",
            params,
        )

    def suites(self) -> list[str]:
        """The names of the suites with stored runs."""
        return self._query(
            "select distinct suite from runs order by suite", [], lambda row: text(row[0], "a run's suite")
        )

    def documents(self, suite: str, limit: int) -> list[dict]:
        """The result documents of the newest ``limit`` current runs of ``suite`` (by data time, else
        start), oldest first, each with its run id and its start time (UTC, ISO 8601)."""
        documents = self._query_with(
            lambda tables: self._runs_sql("run_id, started, document", tables, False, [suite, limit]), document_row
        )
        return documents[::-1]


def _flock(fd: int, kind: int) -> None:
    try:
        fcntl.flock(fd, kind | fcntl.LOCK_NB)
    except BlockingIOError:
        raise _Busy from None

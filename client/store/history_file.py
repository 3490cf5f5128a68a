"""The run history's file: opened under gryph's lock (locked_files.py), each access checked to
be a gryph history, and read by queries whose every value is checked (history_rows.py).

Every access opens, works and closes at once, retrying with backoff while another process holds
the file. A run is written in one transaction: a run that fails half-way leaves the earlier
history as it was.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from gryph.compiler.errors import EngineError, InvalidInput, Location

from ..results.checked_values import Damaged
from ..results.output_files import check_writable_path
from .locked_files import connect, gryph_lock, not_duckdb, waiting

if TYPE_CHECKING:  # DuckDB loads when a history is opened: a run without one does not pay for it
    import duckdb

T = TypeVar("T")

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
    # each measure's value and rule's metrics per segment of its `by COLUMN` (segment: the value's JSON)
    """create table if not exists segment_values (
        run_id varchar, seq bigint, suite varchar, source varchar, name varchar, segment varchar,
        started timestamp, value varchar)""",
    # runs whose values `gryph history accept` marked as normal: every anomaly baseline includes them
    """create table if not exists accepted_runs (run_id varchar, suite varchar, accepted timestamp)""",
    # each source's columns (name -> logical type, JSON) as the run found them: schema_changes reads them
    """create table if not exists source_schemas (
        run_id varchar, seq bigint, suite varchar, source varchar, started timestamp, columns varchar)""",
)
_TABLES = (
    "runs",
    "measure_values",
    "metric_values",
    "check_anomalies",
    "source_schemas",
    "segment_values",
    "data_times",
    "accepted_runs",
)
_TABLES_PRESENT = (
    f"select table_name from information_schema.tables where table_name in ({', '.join('?' * len(_TABLES))})"
)


def _utc(moment: dt.datetime) -> dt.datetime:
    """Stored times are UTC without a zone."""
    return moment.astimezone(dt.timezone.utc).replace(tzinfo=None) if moment.tzinfo else moment


class HistoryFile:
    """The history file at ``path`` (created on the first write); ``before``: reads see only
    the runs earlier than it (see ``HistoryStore.before``)."""

    def __init__(self, path: str | Path = DEFAULT_PATH, before: dt.datetime | None = None) -> None:
        self.path = Path(path)
        self._before = before

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

    def _locked(self, shared: bool):
        """gryph's lock on the history: shared to read, exclusive to write, waited for."""
        return gryph_lock(self.path, shared, self._waiting)

    def _waiting(self, attempt: Callable[[], T]) -> T:
        """What ``attempt()`` gives, tried again with backoff while another process holds the history."""
        return waiting(
            attempt,
            LOCK_WAIT_SECONDS,
            lambda: EngineError(
                "HISTORY_LOCKED",
                f"the history {self.path} stayed locked by another process for {LOCK_WAIT_SECONDS:.0f}s",
                location=self._location,
                text=str(self.path),
                hint="retry when the other run has finished",
            ),
        )

    def _connect(self, read_only: bool) -> duckdb.DuckDBPyConnection:
        import duckdb

        try:
            return connect(self.path, read_only)
        except duckdb.IOException as error:
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
        problem = not_duckdb(self.path)
        if problem is not None:
            raise self._foreign(problem)

    def check_writable(self) -> None:
        """Refuse, before a run, a history the run could never be stored in (exit 2, at its path):
        a folder, a path through a file, a pipe, another tool's or a truncated file, no write permission."""
        check_writable_path("--history", str(self.path))
        problem = self._permission_problem()
        if problem is None:
            with self._locked(shared=True):  # not while another run creates the file
                problem = not_duckdb(self.path) or self._database_problem()
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

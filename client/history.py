"""Run history in an embedded DuckDB file: every run's result document and measure values.

DuckDB lets one process at a time open a file for writing, so every access opens, works and
closes at once, retrying with backoff while another process holds the lock. A run is written in
one transaction: a run that fails half-way leaves the earlier history as it was.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from gryph.compiler.errors import EngineError

from .run_result import json_safe

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
)


def _utc(moment: dt.datetime) -> dt.datetime:
    """Stored times are UTC without a zone."""
    return moment.astimezone(dt.timezone.utc).replace(tzinfo=None) if moment.tzinfo else moment


class HistoryStore:
    """The history file at ``path`` (created on the first write)."""

    def __init__(self, path: str | Path = DEFAULT_PATH) -> None:
        self.path = Path(path)

    def _connect(self, read_only: bool = False) -> duckdb.DuckDBPyConnection:
        import duckdb

        if not read_only:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._check_format()
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        delay = 0.02
        while True:
            try:
                # another tool's file (SQLite, ...) must not make DuckDB fetch an extension to read it
                return duckdb.connect(
                    str(self.path),
                    read_only=read_only,
                    config={"autoinstall_known_extensions": False, "autoload_known_extensions": False},
                )
            except duckdb.IOException as error:
                if "lock" not in str(error).lower():
                    raise EngineError(
                        "HISTORY_UNREADABLE", f"cannot open the history {self.path}: {error}", text=str(self.path)
                    ) from None
                if time.monotonic() > deadline:
                    raise EngineError(
                        "HISTORY_LOCKED",
                        f"the history {self.path} stayed locked by another process for {LOCK_WAIT_SECONDS:.0f}s",
                        text=str(self.path),
                        hint="retry when the other run has finished",
                    ) from None
            # jitter keeps processes that collided from colliding again in step
            time.sleep(delay * (1 + random.random()))
            delay = min(delay * 2, 0.5)

    def _check_format(self) -> None:
        """A file that is there must be a DuckDB database (its header says ``DUCK`` at byte 8)."""
        try:
            with open(self.path, "rb") as handle:
                header = handle.read(12)
        except FileNotFoundError:
            return
        except OSError as error:
            raise EngineError(
                "HISTORY_UNREADABLE",
                f"cannot read the history {self.path}: {error.strerror or error}",
                text=str(self.path),
            ) from None
        if header and header[8:12] != b"DUCK":
            raise self._foreign("the file is no DuckDB database")

    def record(self, document: dict, started: dt.datetime, measures: dict[str, object]) -> str:
        """Store one run (its document and each measure's value) in one transaction; its run id."""
        run_id = uuid.uuid4().hex
        with self._connect() as con:
            con.execute("begin transaction")
            try:
                for statement in _SCHEMA:
                    con.execute(statement)
                seq = con.execute("select nextval('run_order')").fetchall()[0][0]
                self._write_run(con, run_id, seq, document, _utc(started))
                self._write_measures(con, run_id, seq, document["name"], _utc(started), measures)
                con.execute("commit")
            except BaseException:
                con.execute("rollback")
                raise
        return run_id

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

    def _query(self, sql: str, params: list) -> list[tuple]:
        import duckdb

        if not self.path.exists():
            return []
        with self._connect(read_only=True) as con:
            (tables,) = con.execute(
                "select count(*) from information_schema.tables where table_name = 'runs'"
            ).fetchall()[0]
            if not tables:
                return []
            try:
                return con.execute(sql, params).fetchall()
            except duckdb.Error as error:  # a runs table of another tool's making
                raise self._foreign(str(error).splitlines()[0]) from None

    def _foreign(self, problem: object) -> EngineError:
        return EngineError(
            "HISTORY_UNREADABLE",
            f"{self.path} is not a gryph run history: {problem}",
            location=None,
            text=str(self.path),
            hint="name the history file gryph runs write (--history)",
        )

    def measure_values(self, suite: str, measure: str, limit: int, since: dt.datetime | None = None) -> list[object]:
        """A measure's values in the runs of ``suite`` (started at or after ``since``), newest first."""
        window = "and started >= ?" if since is not None else ""
        params = [suite, measure] + ([_utc(since)] if since is not None else []) + [limit]
        rows = self._query(
            f"select value from measure_values where suite = ? and measure = ? {window} "
            "order by started desc, seq desc limit ?",
            params,
        )
        return [_decode(value) for (value,) in rows]

    def runs(self, suite: str, limit: int = 50) -> list[dict]:
        """The newest runs of ``suite``: run id, start time, engine, verdict and measures."""
        rows = self._query(
            "select run_id, started, engine, passed, document from runs where suite = ? "
            "order by started desc, seq desc limit ?",
            [suite, limit],
        )
        return [
            {
                "run_id": run_id,
                "started": started.isoformat(sep=" ", timespec="seconds") + "Z",
                "engine": engine,
                "pass": passed,
                "measure": json.loads(document).get("measure", {}),
            }
            for run_id, started, engine, passed, document in rows
        ]

    def suites(self) -> list[str]:
        """The names of the suites with stored runs."""
        return [name for (name,) in self._query("select distinct suite from runs order by suite", [])]

    def documents(self, suite: str, limit: int) -> list[dict]:
        """The result documents of the newest ``limit`` runs of ``suite``, oldest first, each with its
        run id and its start time (UTC, ISO 8601)."""
        rows = self._query(
            "select run_id, started, document from runs where suite = ? order by started desc, seq desc limit ?",
            [suite, limit],
        )
        documents = []
        for run_id, started, text in reversed(rows):
            try:
                document = json.loads(text)
            except (TypeError, ValueError) as error:
                raise self._foreign(f"run {run_id} holds no JSON document ({error})") from None
            if not isinstance(document, dict) or "pass" not in document:
                raise self._foreign(f"run {run_id} holds no gryph result document")
            documents.append(
                {**document, "run_id": run_id, "started": started.isoformat(sep="T", timespec="seconds") + "Z"}
            )
        return documents


def _decode(text: str) -> object:
    value = json.loads(text)
    return float(value) if value in ("NaN", "Infinity", "-Infinity") else value
